import { announceJobsDue } from '../../queue/wake.ts';
import { awaitTurnOfEvent, EarlierEventPendingError } from './event-order.ts';
import { processorFor } from './processors.ts';
import type { WebhookDeps } from './webhook-deps.ts';
import {
  findEventByKey,
  insertEventWithJob,
  lockEvent,
  markEvent,
  recordDeferral,
  recordFailure,
  type NewWebhookEvent,
} from './webhooks.repo.ts';

export const PROCESS_EVENT_JOB = 'webhooks.process_event';
/** The topic receiver processes inline; its job is only a safety net, run this long after receipt. */
export const TOPIC_SAFETY_NET_DELAY_MS = 60_000;

/** `deferred`: not applied because an earlier event of its payment has not been attempted yet (`error` says which). */
export type Receipt = { eventId: number; duplicate: boolean; status: string; error?: string; deferred?: boolean };
export type Acknowledgement = { duplicate: boolean; status: 'received' };

/**
 * Where the gateway, bank, invoicing and platform receivers end, after authenticating the sender and
 * validating the body: the event and the job that processes it are stored in one statement, due now, and
 * the worker of this process is woken; the sender's 200 waits for nothing else. A duplicate changes nothing.
 */
export async function acknowledgeEvent(
  deps: WebhookDeps,
  event: Omit<NewWebhookEvent, 'at'>,
): Promise<Acknowledgement> {
  const at = deps.clock();
  const id = await insertEventWithJob(deps.db, { ...event, at }, { type: PROCESS_EVENT_JOB, runAt: at });
  if (id === undefined) return { duplicate: true, status: 'received' };
  announceJobsDue();
  return { duplicate: false, status: 'received' };
}

/**
 * The topic receiver's pipeline: store the event with its safety-net job (one statement), then process it
 * in the request, because its sender retries only on a failure answer (503). A duplicate still `received`
 * (an earlier attempt failed) is processed again, so the sender's retry retries the work.
 */
export async function receiveAndProcessEvent(deps: WebhookDeps, event: Omit<NewWebhookEvent, 'at'>): Promise<Receipt> {
  const at = deps.clock();
  const id = await insertEventWithJob(
    deps.db,
    { ...event, at },
    { type: PROCESS_EVENT_JOB, runAt: new Date(at.getTime() + TOPIC_SAFETY_NET_DELAY_MS) },
  );
  if (id !== undefined) return processEvent(deps, id);
  const stored = await findEventByKey(deps.db, event.receiver, event.companyId, event.eventId);
  if (!stored) throw new Error('webhook event vanished after insert');
  if (stored.status !== 'received') return { eventId: stored.id, duplicate: true, status: stored.status };
  return { ...(await processEvent(deps, stored.id)), duplicate: true };
}

/**
 * Processes a stored event still `received`: the worker's job, and the topic receiver. The effect and the
 * event's `processed`/`ignored` mark commit in one transaction, which first locks the event row, so a
 * concurrent run (two workers, or the topic request and its safety-net job) waits and then finds it done.
 * A failure rolls both back; only the failure count is written, and the job retries. An event about a payment
 * waits (`deferred`, not counted as an attempt) while an earlier event of that payment has not been attempted.
 */
export async function processEvent(deps: WebhookDeps, eventId: number): Promise<Receipt> {
  try {
    const status = await deps.db.transaction().execute(async (trx) => {
      const stored = await lockEvent(trx, eventId);
      // Gone with its account: nothing left to apply.
      if (!stored) return 'gone';
      if (stored.status !== 'received') return stored.status;
      await awaitTurnOfEvent(trx, stored, PROCESS_EVENT_JOB);
      const outcome = await processorFor(stored.receiver)({ ...deps, db: trx }, stored);
      await markEvent(trx, stored.id, outcome, deps.clock());
      return outcome;
    });
    return { eventId, duplicate: false, status };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof EarlierEventPendingError) {
      await recordDeferral(deps.db, eventId, message);
      return { eventId, duplicate: false, status: 'received', error: message, deferred: true };
    }
    await recordFailure(deps.db, eventId, message);
    return { eventId, duplicate: false, status: 'received', error: message };
  }
}
