import { parseArgs } from 'node:util';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { findWebhookEvent, listWebhookEvents, replayAllFailed, replayEvent } from './dead-events.ts';

export const WEBHOOKS_USAGE = `usage: checkout webhooks <subcommand>
  failed [--account SLUG] [--limit N]        events whose job ran out of attempts, newest first
  replay EVENT_ID | replay --all-failed [--account SLUG]`;

/** A refused value (an unknown account or event): main prints the message with exit code 1. */
export class WebhookCommandError extends Error {}
/** A usage mistake: main prints the message with exit code 64. */
export class WebhookUsageError extends WebhookCommandError {}

type Context = { db: Kysely<DB>; now: Date };

/** Runs one `checkout webhooks …` subcommand and returns what to print as JSON. */
export async function runWebhooksCommand(args: string[], context: Context): Promise<unknown> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      account: { type: 'string' },
      limit: { type: 'string', default: '100' },
      'all-failed': { type: 'boolean' },
    },
  });
  const [subcommand, argument, ...extra] = positionals;
  if (extra.length > 0) usage(`unexpected ${extra.join(' ')}`);
  const { db, now } = context;
  const accountId = values.account === undefined ? undefined : await accountIdOf(db, values.account);
  switch (subcommand) {
    case 'failed': {
      const limit = /^[1-9]\d{0,3}$/.test(values.limit) ? Number(values.limit) : usage('--limit must be 1 to 9999');
      const { rows } = await listWebhookEvents(db, { accountId, status: 'failed', limit, offset: 0 });
      return rows.map((row) => ({
        id: Number(row.id),
        account: row.account,
        receiver: row.receiver,
        event_id: row.external_event_id,
        event_type: row.event_type,
        attempts: row.attempts,
        last_error: row.last_error,
        received_at: row.received_at.toISOString(),
        failed_at: row.failed_at?.toISOString() ?? null,
      }));
    }
    case 'replay': {
      if (values['all-failed']) {
        if (argument !== undefined) usage('replay takes an EVENT_ID or --all-failed, not both');
        return { replayed: await replayAllFailed(db, { accountId }, now) };
      }
      if (argument === undefined) usage('replay needs an EVENT_ID or --all-failed');
      if (!/^[1-9]\d{0,15}$/.test(argument)) usage(`"${argument}" is not an event id (a positive number)`);
      const id = Number(argument);
      const outcome = await replayEvent(db, { id, ...(accountId ? { accountId } : {}) }, now);
      if (outcome === 'missing') throw new WebhookCommandError(`no webhook event ${id}`);
      if (outcome === 'applied') {
        const event = await findWebhookEvent(db, id);
        throw new WebhookCommandError(`webhook event ${id} is ${event?.status}: only a failed event can be replayed`);
      }
      return { replayed: outcome === 'replayed' ? [id] : [] };
    }
    default:
      return usage(subcommand ? `unknown subcommand "${subcommand}"` : 'a subcommand is required');
  }
}

function usage(problem: string): never {
  throw new WebhookUsageError(`${problem}\n${WEBHOOKS_USAGE}`);
}

async function accountIdOf(db: Kysely<DB>, slug: string): Promise<string> {
  const account = await db.selectFrom('accounts').select('id').where('slug', '=', slug).executeTakeFirst();
  if (!account) throw new WebhookCommandError(`no account with slug ${slug}`);
  return account.id;
}
