import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { DeadJobHandler, JobHandler } from '../../queue/job-handler.ts';
import { passCircuit, recordEndpointOutcome, type CircuitGate } from './circuit-breaker.ts';
import { signingSecrets } from './endpoints.service.ts';
import {
  failDeliveryOfDeadJob,
  findDeliveryTarget,
  insertAttempt,
  recordOutcome,
  type DeliveryOutcome,
  type DeliveryTarget,
} from './deliveries.repo.ts';
import { DELIVER_JOB, enqueueDeliveryAttempt, withPublicLinks, type DeliverPayload } from './notify.ts';
import { postJson, type PostResult } from './outbound-http.ts';
import { deliveryHeaders, eventBody } from './signing.ts';

export type DeliverySettings = {
  /** Resolves the order link in event bodies. */
  publicUrl: string;
  /** Loopback and private addresses are refused unless this is set (tests, local demos). */
  allowPrivateNetworks: boolean;
  timeoutMs?: number;
};

export type DeliveryDeps = DeliverySettings & { masterKey: Buffer; clock: () => Date; random?: () => number };

export const DELIVERY_TIMEOUT_MS = 10_000;
/** The part of a merchant's answer kept in the attempt log. */
export const KEPT_RESPONSE_BYTES = 1024;
const FIRST_RETRY_MS = 30_000;
const LONGEST_RETRY_MS = 6 * 60 * 60_000;

/**
 * The wait after failed attempt `attempt`: 30 s doubling up to 6 h, plus up to 20% jitter so endpoints
 * that failed together are not retried together. Over 15 attempts the waits add up to 32.5 h or more.
 */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(FIRST_RETRY_MS * 2 ** Math.max(attempt - 1, 0), LONGEST_RETRY_MS);
  return Math.round(base * (1 + 0.2 * random()));
}

export function notificationJobHandlers(deps: DeliveryDeps): Record<string, JobHandler> {
  return {
    [DELIVER_JOB]: async (job, { database }) => {
      await deliverAttempt(database.db, deps, job.payload as DeliverPayload);
    },
  };
}

/** A delivery job that died (the worker gave up on it) fails its delivery, which can then be redelivered. */
export function notificationDeadJobHandlers(clock: () => Date): Record<string, DeadJobHandler> {
  return {
    [DELIVER_JOB]: async (job, { database, error }) => {
      const payload = job.payload as DeliverPayload;
      await failDeliveryOfDeadJob(database.db, payload.delivery_id, payload.attempt, error, clock());
    },
  };
}

/**
 * One attempt of one delivery: POST the signed event, log the attempt, then settle the delivery (delivered
 * on 2xx; failed after its last attempt; otherwise the next attempt is enqueued) in one transaction.
 * A job for an attempt that is already recorded (a re-run) does nothing, so each attempt is logged once.
 * While the endpoint's circuit is open (circuit-breaker.ts) the attempt is logged as not sent and the next one
 * waits at least until the circuit may close.
 */
export async function deliverAttempt(db: Kysely<DB>, deps: DeliveryDeps, payload: DeliverPayload): Promise<void> {
  const target = await findDeliveryTarget(db, payload.delivery_id);
  if (!target || target.status !== 'pending' || target.attempts !== payload.attempt - 1) return;
  const startedAt = deps.clock();
  // A listen session that ended (or whose CLI stopped renewing it) sends nothing more, like a disabled endpoint.
  const live = target.enabled && !(target.listen_expires_at && target.listen_expires_at <= startedAt);
  const endpoint = { accountId: target.account_id, endpointId: target.endpoint_id };
  const timeoutMs = deps.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const gate: CircuitGate = !live
    ? { send: false, openUntil: startedAt }
    : payload.redelivery
      ? { send: true }
      : await passCircuit(db, { ...endpoint, ...target }, startedAt, timeoutMs + PROBE_MARGIN_MS);
  const result: PostResult = !live
    ? { error: target.enabled ? 'listen session ended: not sent' : 'endpoint disabled: not sent', durationMs: 0 }
    : gate.send
      ? await send(target, deps, payload.attempt, startedAt)
      : { error: circuitOpenError(target.failure_streak, gate.openUntil), durationMs: 0 };
  const delivered = result.statusCode !== undefined && result.statusCode >= 200 && result.statusCode < 300;
  const final = delivered || !live || payload.attempt >= target.max_attempts;
  const settledAt = deps.clock();
  const retryAt = settledAt.getTime() + retryDelayMs(payload.attempt, deps.random);
  const outcome: DeliveryOutcome = {
    status: delivered ? 'delivered' : final ? 'failed' : 'pending',
    nextAttemptAt: final ? null : new Date(gate.send ? retryAt : Math.max(retryAt, gate.openUntil.getTime())),
    statusCode: result.statusCode ?? null,
    error: result.error ?? (delivered ? null : `HTTP ${result.statusCode}`),
    at: settledAt,
  };
  await db.transaction().execute(async (trx) => {
    if (!(await recordOutcome(trx, target.account_id, target.id, payload.attempt, outcome))) return;
    if (gate.send) await recordEndpointOutcome(trx, endpoint, delivered, settledAt);
    await insertAttempt(trx, {
      accountId: target.account_id,
      deliveryId: target.id,
      attempt: payload.attempt,
      statusCode: result.statusCode ?? null,
      durationMs: result.durationMs,
      error: result.error ?? null,
      // PostgreSQL text cannot hold NUL; the log keeps the rest of the answer.
      responseBody: result.responseBody?.replaceAll('\u0000', '') ?? null,
      startedAt,
    });
    if (outcome.nextAttemptAt)
      await enqueueDeliveryAttempt(
        trx,
        endpoint,
        { delivery_id: target.id, attempt: payload.attempt + 1 },
        outcome.nextAttemptAt,
      );
  });
}

/** A probe holds the circuit for its whole exchange and this much more. */
const PROBE_MARGIN_MS = 5_000;

function circuitOpenError(streak: number, openUntil: Date): string {
  return `not sent: the endpoint failed ${streak} attempts in a row; its circuit is open until ${openUntil.toISOString()}`;
}

function send(target: DeliveryTarget, deps: DeliveryDeps, attempt: number, now: Date): Promise<PostResult> {
  const body = eventBody({
    id: target.event_id,
    type: target.event_type,
    created_at: target.event_created_at,
    data: withPublicLinks(target.event_data, deps.publicUrl),
  });
  const headers = deliveryHeaders({
    eventId: target.event_id,
    eventType: target.event_type,
    deliveryId: target.id,
    attempt,
    body,
    secrets: signingSecrets(deps.masterKey, target, now),
    now,
  });
  return postJson(target.url, body, headers, {
    timeoutMs: deps.timeoutMs ?? DELIVERY_TIMEOUT_MS,
    // A listen session forwards to this machine: its URL was checked to be a loopback one when it started.
    allowPrivateNetworks: deps.allowPrivateNetworks || target.listen_expires_at !== null,
    maxResponseBytes: KEPT_RESPONSE_BYTES,
  });
}

/** The delivery settings of a configured process; private networks stay refused unless allowed. */
export function deliverySettings(config: {
  publicUrl: string;
  notificationsAllowPrivateNetworks: boolean | undefined;
}): DeliverySettings {
  return { publicUrl: config.publicUrl, allowPrivateNetworks: config.notificationsAllowPrivateNetworks ?? false };
}
