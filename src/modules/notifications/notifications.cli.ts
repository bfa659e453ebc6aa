import { parseArgs } from 'node:util';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { wholeSecondsArgument } from '../../lib/cli-numbers.ts';
import { attemptsOfDelivery } from './deliveries.repo.ts';
import { findAccountBySlug, findCompanyOfAccount, listEndpoints } from './endpoints.repo.ts';
import { MAX_GRACE_SECONDS } from './endpoints.schemas.ts';
import {
  createEndpoint,
  endpointView,
  NotificationInputError,
  rotateEndpointSecret,
  setEndpointEnabled,
} from './endpoints.service.ts';
import { listFailedDeliveries, redeliver, redeliverAllFailed } from './redelivery.ts';

export const NOTIFICATIONS_USAGE = `usage: checkout notifications <subcommand>
  add --account SLUG --url URL [--events TYPE,TYPE…] [--company SLUG] [--description TEXT] [--disabled]
  list --account SLUG
  enable ENDPOINT_ID | disable ENDPOINT_ID
  rotate-secret ENDPOINT_ID [--grace-seconds N]   (default 86400; 0 drops the old secret now)
  failed [--account SLUG]
  redeliver DELIVERY_OR_EVENT_ID | redeliver --all-failed [--account SLUG]
  attempts DELIVERY_ID`;

/** A usage mistake: main prints the message with exit code 64. */
export class NotificationUsageError extends NotificationInputError {}

type Context = { db: Kysely<DB>; masterKey: Buffer; now: Date };

/** Runs one `checkout notifications …` subcommand and returns what to print as JSON. */
export async function runNotificationsCommand(args: string[], context: Context): Promise<unknown> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      account: { type: 'string' },
      url: { type: 'string' },
      events: { type: 'string' },
      company: { type: 'string' },
      description: { type: 'string' },
      disabled: { type: 'boolean' },
      'grace-seconds': { type: 'string', default: '86400' },
      'all-failed': { type: 'boolean' },
    },
  });
  const [subcommand, argument] = positionals;
  const { db, now } = context;
  const accountId = async () => (values.account === undefined ? undefined : await accountIdOf(db, values.account));
  const required = (value: string | undefined, what: string) => value ?? usage(`${subcommand} needs ${what}`);
  switch (subcommand) {
    case 'add': {
      const account = await accountIdOf(db, required(values.account, '--account SLUG'));
      const company = values.company === undefined ? null : await findCompanyOfAccount(db, account, values.company);
      if (company === undefined)
        throw new NotificationInputError(`no company ${values.company} in account ${values.account}`);
      const eventTypes =
        values.events
          ?.split(',')
          .map((type) => type.trim())
          .filter((type) => type !== '' && type !== '*') ?? [];
      const url = required(values.url, '--url URL');
      const created = await createEndpoint(
        db,
        context.masterKey,
        {
          accountId: account,
          companyId: company?.id ?? null,
          url,
          eventTypes,
          enabled: !values.disabled,
          description: values.description ?? null,
        },
        now,
      );
      return { ...endpointView(created.endpoint, now), secret: created.secret };
    }
    case 'list':
      return (await listEndpoints(db, await accountIdOf(db, required(values.account, '--account SLUG')))).map(
        (endpoint) => endpointView(endpoint, now),
      );
    case 'enable':
    case 'disable':
      return endpointView(
        await setEndpointEnabled(db, required(argument, 'an ENDPOINT_ID'), subcommand === 'enable', now),
        now,
      );
    case 'rotate-secret': {
      const grace = wholeSecondsArgument(values['grace-seconds'], MAX_GRACE_SECONDS);
      if (grace === undefined)
        usage(`--grace-seconds must be a whole number of seconds from 0 to ${MAX_GRACE_SECONDS}`);
      const rotated = await rotateEndpointSecret(
        db,
        context.masterKey,
        required(argument, 'an ENDPOINT_ID'),
        grace,
        now,
      );
      return { ...endpointView(rotated.endpoint, now), secret: rotated.secret };
    }
    case 'failed':
      return (await listFailedDeliveries(db, { accountId: await accountId() })).map((row) => ({
        ...row,
        failed_at: row.failed_at?.toISOString() ?? null,
      }));
    case 'redeliver': {
      if (values['all-failed'])
        return { redelivered: await redeliverAllFailed(db, { accountId: await accountId() }, now) };
      return { redelivered: await redeliver(db, required(argument, 'a DELIVERY_OR_EVENT_ID or --all-failed'), now) };
    }
    case 'attempts':
      return (await attemptsOfDelivery(db, required(argument, 'a DELIVERY_ID'))).map((row) => ({
        ...row,
        started_at: row.started_at.toISOString(),
      }));
    default:
      return usage(subcommand ? `unknown subcommand "${subcommand}"` : 'a subcommand is required');
  }
}

function usage(problem: string): never {
  throw new NotificationUsageError(`${problem}\n${NOTIFICATIONS_USAGE}`);
}

async function accountIdOf(db: Kysely<DB>, slug: string): Promise<string> {
  const account = await findAccountBySlug(db, slug);
  if (!account) throw new NotificationInputError(`no account with slug ${slug}`);
  return account.id;
}
