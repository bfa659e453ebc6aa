import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { AppError } from './errors.ts';

/**
 * `Idempotency-Key` on POSTs that create orders or move money (route `config.idempotency`).
 * - The first request with a key runs; its status and body are stored (5xx answers are not: the
 *   client may retry those; nor 401/403: they depend on who asks, not on the request; nor an answer with
 *   Retry-After, such as 409 `payment_in_progress`: it says when to run the request again). A 504 is: the
 *   gateway may have charged or refunded with its answer lost, the payment is being reconciled, and a
 *   retry under the same key must learn that rather than start another attempt; so is a pay route's 502.
 * - On a `public` route the scope account's host restriction is decided before a key is replayed or
 *   claimed, so a refused caller gets 403, never the stored answer nor 409/422 about the key.
 * - The same key with the same request replays the stored answer, marked `Idempotent-Replayed: true`.
 * - The same key with another body, method or path: 422 `idempotency_key_reused`.
 * - While the first is still running: 409 `idempotency_key_in_use`. A holder that died is taken over
 *   once its lock expires.
 * Keys are scoped to the account that owns the request and kept for 24 hours.
 */
/** `gateway_timeout`: the money's outcome is unknown and being reconciled; stored like a final answer. */
const OUTCOME_UNKNOWN = 504;

export type IdempotencyOptions = {
  /** The account the request acts for: the API key's, or the owner of the resource it names. */
  scope(request: FastifyRequest): Promise<string | undefined>;
  /**
   * 5xx statuses kept like a final answer besides the 504: the pay routes keep their 502 too, since the payment
   * stays pending and is reconciled, and a retry must not start a second attempt beside it.
   */
  keptServerErrors?: readonly number[];
};

declare module 'fastify' {
  interface FastifyContextConfig {
    idempotency?: IdempotencyOptions;
  }
  interface FastifyRequest {
    idempotencyRecord: { accountId: string; key: string } | undefined;
  }
}

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const LOCK_MS = 60_000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** JSON with every object's keys in order: the same request sent with its fields in another order is the same request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * The request as the key remembers it. Who asks (an API key or a buyer's browser) and the host it was sent to are
 * part of it: some routes shape their answer by the caller (a customer's full record only for the API key) or take
 * the company from the host name, so the same body from another caller or host name is another request, never a replay.
 */
function requestHash(request: FastifyRequest): string {
  const caller = request.apiKey ? 'api_key' : 'public';
  // The host name only: processes behind one name on different ports (or a proxy adding one) serve the same request.
  const host = (request.headers.host ?? '').toLowerCase().replace(/:[0-9]*$/, '');
  return createHash('sha256')
    .update(`${request.method}\n${request.url}\n${caller}\n${host}\n${canonicalJson(request.body ?? null)}`)
    .digest('hex');
}

const IN_USE_MESSAGE = 'A request with this Idempotency-Key is in progress; retry shortly';

/** Decides a public route's host restriction for the scope account (the accounts module's rule). */
export type PublicAccessCheck = (db: Kysely<DB>, request: FastifyRequest, accountId: string) => Promise<void>;

export function registerIdempotency(
  app: FastifyInstance,
  db: Kysely<DB>,
  clock: () => Date,
  assertPublicAccess: PublicAccessCheck,
): void {
  app.decorateRequest('idempotencyRecord', undefined);

  app.addHook('preHandler', async (request, reply) => {
    const options = request.routeOptions.config?.idempotency;
    const key = request.headers['idempotency-key'];
    if (!options || key === undefined) return;
    // A route that takes no key for this request (POST /customers without create_deal) ignores it, whatever its shape.
    const accountId = await options.scope(request);
    if (!accountId) return;
    if (typeof key !== 'string' || !KEY_PATTERN.test(key)) {
      throw new AppError(
        'validation_failed',
        'Idempotency-Key must be 1 to 255 ASCII characters from ! to ~ (no spaces)',
      );
    }
    if (request.routeOptions.config?.access === 'public') await assertPublicAccess(db, request, accountId);
    const now = clock();
    const hash = requestHash(request);
    const claimed = await db
      .insertInto('idempotency_keys')
      .values({
        account_id: accountId,
        key,
        request_method: request.method,
        request_path: request.url,
        request_hash: hash,
        locked_until: new Date(now.getTime() + LOCK_MS),
        expires_at: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
      })
      .onConflict((oc) =>
        // An expired record is the only one a new request may overwrite.
        oc
          .columns(['account_id', 'key'])
          .doUpdateSet({
            request_method: request.method,
            request_path: request.url,
            request_hash: hash,
            status: 'in_flight',
            response_status: null,
            response_body: null,
            locked_until: new Date(now.getTime() + LOCK_MS),
            expires_at: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
            created_at: now,
          })
          .where('idempotency_keys.expires_at', '<=', now),
      )
      .returning('key')
      .executeTakeFirst();
    if (claimed) {
      request.idempotencyRecord = { accountId, key };
      return;
    }
    const existing = await db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('key', '=', key)
      .executeTakeFirst();
    // Taken by a request that is still claiming it (its row not yet visible here): in use, like any holder.
    if (!existing) throw new AppError('idempotency_key_in_use', IN_USE_MESSAGE, [], { 'Retry-After': '1' });
    if (existing.request_hash !== hash) {
      throw new AppError('idempotency_key_reused', 'This Idempotency-Key was used with a different request');
    }
    if (existing.status === 'completed') return replay(reply, existing.response_status!, existing.response_body);
    // Still in flight: take it over only if its holder's lock has expired (the holder died).
    const takenOver = await db
      .updateTable('idempotency_keys')
      .set({ locked_until: new Date(now.getTime() + LOCK_MS) })
      .where('account_id', '=', accountId)
      .where('key', '=', key)
      .where('status', '=', 'in_flight')
      .where('locked_until', '<', now)
      .returning('key')
      .executeTakeFirst();
    if (!takenOver) throw new AppError('idempotency_key_in_use', IN_USE_MESSAGE, [], { 'Retry-After': '1' });
    request.idempotencyRecord = { accountId, key };
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const record = request.idempotencyRecord;
    if (!record) return payload;
    request.idempotencyRecord = undefined;
    const kept =
      reply.statusCode === OUTCOME_UNKNOWN ||
      (request.routeOptions.config?.idempotency?.keptServerErrors ?? []).includes(reply.statusCode);
    // An answer that asks to be retried later (Retry-After: a payment of the charge already in progress) is not
    // the request's outcome: the same key must be able to run it then.
    const retryLater = reply.getHeader('retry-after') !== undefined;
    if ((reply.statusCode >= 500 && !kept) || reply.statusCode === 401 || reply.statusCode === 403 || retryLater) {
      await db
        .deleteFrom('idempotency_keys')
        .where('account_id', '=', record.accountId)
        .where('key', '=', record.key)
        .execute();
      return payload;
    }
    await db
      .updateTable('idempotency_keys')
      .set({
        status: 'completed',
        response_status: reply.statusCode,
        response_body: payloadText(payload),
        locked_until: null,
      })
      .where('account_id', '=', record.accountId)
      .where('key', '=', record.key)
      .execute();
    return payload;
  });
}

function payloadText(payload: unknown): string | null {
  if (payload === null || payload === undefined) return null;
  return typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : String(payload);
}

function replay(reply: FastifyReply, status: number, body: string | null): FastifyReply {
  reply.code(status).header('idempotent-replayed', 'true');
  if (body === null) return reply.send();
  return reply
    .type('application/json; charset=utf-8')
    .serializer((value: unknown) => value as string)
    .send(body);
}

/** Scope of a `key` route: the API key's account. */
export const byApiKey: IdempotencyOptions = { scope: async (request) => request.apiKey?.accountId };
