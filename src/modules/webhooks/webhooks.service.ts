import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { enqueueJob } from '../../jobs/outbox.ts';
import type { applyPaymentAction } from '../payments/gateway-actions.ts';
import { processorFor } from './processors.ts';
import { findEventByKey, insertEventOnce, lockEvent, markEvent, recordFailure, type NewWebhookEvent, type StoredEvent } from './webhooks.repo.ts';

export const PROCESS_EVENT_JOB = 'webhooks.process_event';
/** The safety-net job runs this long after receipt; by then the request itself has normally processed the event. */
export const PROCESS_EVENT_DELAY_MS = 60_000;

export type ApplyAction = typeof applyPaymentAction;
/** While an event is processed, `db` is the transaction that also marks it. */
export type WebhookDeps = { db: Kysely<DB>; clock: () => Date; applyAction: ApplyAction };
export type Receipt = { eventId: number; duplicate: boolean; status: string; error?: string };

/**
 * The pipeline every receiver ends in, after it authenticated the sender: store the event once (with its
 * retry job, in one transaction, so a crash after the insert loses nothing), then process it. A duplicate
 * changes nothing. A processing failure leaves the event `received` for the job and is reported in `error`.
 * `retryReceived` also reprocesses a duplicate still `received` (the topic receiver: its sender retries on 503).
 */
export async function receiveEvent(deps: WebhookDeps, event: Omit<NewWebhookEvent, 'at'>, options: { retryReceived?: boolean } = {}): Promise<Receipt> {
  const at = deps.clock();
  const id = await deps.db.transaction().execute(async (trx) => {
    const inserted = await insertEventOnce(trx, { ...event, at });
    if (inserted !== undefined) {
      await enqueueJob(trx, { type: PROCESS_EVENT_JOB, payload: { event_id: inserted }, accountId: event.accountId, runAt: new Date(at.getTime() + PROCESS_EVENT_DELAY_MS), dedupKey: `${PROCESS_EVENT_JOB}:${inserted}` });
    }
    return inserted;
  });
  // A new event is the row just inserted (its payload is the parsed body the row's jsonb was made from);
  // only a duplicate needs reading back.
  const stored = id !== undefined ? newlyStored(id, event) : await findEventByKey(deps.db, event.receiver, event.companyId, event.eventId);
  if (!stored) throw new Error('webhook event vanished after insert');
  const duplicate = id === undefined;
  if (duplicate && !(options.retryReceived && stored.status === 'received')) return { eventId: stored.id, duplicate, status: stored.status };
  return { ...(await processEvent(deps, stored)), duplicate };
}

function newlyStored(id: number, event: Omit<NewWebhookEvent, 'at'>): StoredEvent {
  return { id, receiver: event.receiver, account_id: event.accountId, company_id: event.companyId, external_event_id: event.eventId, event_type: event.type, payload: event.payload ?? null, status: 'received' };
}

/**
 * Processes a stored event still `received`; used by the request and by the retry job. The effect and the
 * event's `processed`/`ignored` mark commit in one transaction, which first locks the event row, so a
 * concurrent run (the request and its safety-net job) waits and then finds it done. A failure rolls both
 * back; only the failure count is written, and the job retries.
 */
export async function processEvent(deps: WebhookDeps, stored: StoredEvent): Promise<Receipt> {
  if (stored.status !== 'received') return { eventId: stored.id, duplicate: false, status: stored.status };
  try {
    const status = await deps.db.transaction().execute(async (trx) => {
      const current = await lockEvent(trx, stored.id);
      if (current !== 'received') return current ?? stored.status;
      const outcome = await processorFor(stored.receiver)({ ...deps, db: trx }, stored);
      await markEvent(trx, stored.id, outcome, deps.clock());
      return outcome;
    });
    return { eventId: stored.id, duplicate: false, status };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await recordFailure(deps.db, stored.id, message);
    return { eventId: stored.id, duplicate: false, status: 'received', error: message };
  }
}
