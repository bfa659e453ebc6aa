import { isIP } from 'node:net';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { AppError, notFound, validationFailed } from '../../http/errors.ts';
import { seal } from '../../lib/crypto.ts';
import { findAccountBySlug, insertEndpoint } from './endpoints.repo.ts';
import { endpointUrlProblem, eventTypesProblem, newEndpointId, newSigningSecret } from './endpoints.service.ts';

/** A session lives this long past the CLI's last renewal: a CLI that dies leaves nothing delivering for long. */
export const LISTEN_LEASE_MS = 30_000;

export type ListenRequest = { account: string; forwardTo: string; eventTypes: readonly string[] };

/** Only this machine: a listen session is how a merchant receives notifications on localhost during development. */
export function isLoopbackUrl(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/**
 * Starts a listen session: an endpoint of the account with its own new signing secret, signed and sent by the
 * same delivery job as any endpoint, hidden from the merchant's endpoint list, alive while its lease is renewed.
 */
export async function startListenSession(db: Kysely<DB>, masterKey: Buffer, input: ListenRequest, now: Date) {
  const urlProblem = endpointUrlProblem(input.forwardTo);
  if (urlProblem) throw validationFailed(`forward_to ${urlProblem}`, [{ field: 'forward_to', message: urlProblem }]);
  if (!isLoopbackUrl(input.forwardTo))
    throw validationFailed('forward_to must be on this machine (localhost, 127.0.0.1 or [::1])', [
      { field: 'forward_to', message: 'must be a loopback URL' },
    ]);
  const typesProblem = eventTypesProblem(input.eventTypes);
  if (typesProblem) throw validationFailed(typesProblem, [{ field: 'events', message: typesProblem }]);
  const account = await findAccountBySlug(db, input.account);
  if (!account) throw notFound('Account');
  const secret = newSigningSecret();
  const endpoint = await insertEndpoint(db, {
    id: newEndpointId(),
    account_id: account.id,
    url: input.forwardTo,
    event_types: [...new Set(input.eventTypes)],
    description: 'checkout listen',
    secret_encrypted: seal(masterKey, secret),
    listen_expires_at: leaseEnd(now),
    created_at: now,
    updated_at: now,
  });
  return { id: endpoint.id, secret, expires_at: endpoint.listen_expires_at!.toISOString() };
}

/**
 * Extends a live session's lease and returns the attempts logged after `afterAttemptId`. A session whose lease
 * lapsed stays ended: the CLI must start a new one.
 */
export async function renewListenSession(db: Kysely<DB>, id: string, afterAttemptId: number, now: Date) {
  const renewed = await db
    .updateTable('notification_endpoints')
    .set({ listen_expires_at: leaseEnd(now), updated_at: now })
    .where('id', '=', id)
    .where('enabled', '=', true)
    .where('listen_expires_at', '>', now)
    .returning(['listen_expires_at'])
    .executeTakeFirst();
  if (!renewed) throw new AppError('not_found', 'Listen session not found, or it has ended');
  const attempts = await db
    .selectFrom('notification_attempts as a')
    .innerJoin('notification_deliveries as d', (join) =>
      join.onRef('d.id', '=', 'a.delivery_id').onRef('d.account_id', '=', 'a.account_id'),
    )
    .innerJoin('notification_events as e', (join) =>
      join.onRef('e.id', '=', 'd.event_id').onRef('e.account_id', '=', 'd.account_id'),
    )
    .select(['a.id', 'e.type', 'e.id as event_id', 'd.id as delivery_id', 'a.attempt', 'a.status_code', 'a.error'])
    .where('d.endpoint_id', '=', id)
    .where('a.id', '>', afterAttemptId)
    .orderBy('a.id')
    .limit(100)
    .execute();
  return {
    expires_at: renewed.listen_expires_at!.toISOString(),
    attempts: attempts.map((row) => ({ ...row, id: Number(row.id) })),
  };
}

/** Ends a session now: it gets no further events, and attempts still queued for it are not sent. */
export async function endListenSession(db: Kysely<DB>, id: string, now: Date): Promise<void> {
  const ended = await db
    .updateTable('notification_endpoints')
    .set({ enabled: false, listen_expires_at: now, updated_at: now })
    .where('id', '=', id)
    .where('listen_expires_at', 'is not', null)
    .returning('id')
    .executeTakeFirst();
  if (!ended) throw new AppError('not_found', 'Listen session not found');
}

const leaseEnd = (now: Date) => new Date(now.getTime() + LISTEN_LEASE_MS);
