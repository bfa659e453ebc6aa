import { setTimeout as sleep } from 'node:timers/promises';
import { JobDeferral, type DeadJobHandler, type JobHandler } from '../../queue/job-handler.ts';
import { applyPaymentAction } from '../payments/index.ts';
import { failEventOfDeadJob } from './dead-events.ts';
import { findEventPaymentRef, findNextEventOfPayment } from './webhooks.repo.ts';
import { PROCESS_EVENT_JOB, processEvent } from './webhooks.service.ts';
import type { ApplyAction, WebhookDeps } from './webhook-deps.ts';

/**
 * A deferred event (an earlier one of its payment not attempted yet) is looked at again this often, this many
 * times, before its job is queued again: the earlier event is usually in the same batch or another worker's, and
 * lands within milliseconds.
 */
const DEFERRED_RECHECK_MS = 100;
const DEFERRED_RECHECKS = 3;
/** Still deferred after the rechecks: the job runs again this much later, without spending an attempt. */
export const DEFERRED_REQUEUE_MS = 500;
/** Events of the same payment a job applies after its own, at most. */
const FOLLOWING_EVENTS_PER_JOB = 100;

/**
 * Applies a stored event (every receiver's, the topic's as a safety net); a failure throws so the worker retries
 * with backoff, and waiting for an earlier event of the payment is a deferral, which spends no attempt. `masterKey` is the app's: a card a paid event names for later charges is sealed with it.
 */
export function webhookJobHandlers(options: {
  masterKey: Buffer;
  clock: () => Date;
  applyAction?: ApplyAction;
}): Record<string, JobHandler> {
  return {
    [PROCESS_EVENT_JOB]: async (job, { database }) => {
      const eventId = Number((job.payload as { event_id: number | string }).event_id);
      const deps = {
        db: database.db,
        clock: options.clock,
        applyAction: options.applyAction ?? applyPaymentAction,
        masterKey: options.masterKey,
      };
      let receipt = await processEvent(deps, eventId);
      for (let recheck = 0; receipt.deferred && recheck < DEFERRED_RECHECKS; recheck++) {
        await sleep(DEFERRED_RECHECK_MS);
        receipt = await processEvent(deps, eventId);
      }
      if (receipt.deferred) throw new JobDeferral(DEFERRED_REQUEUE_MS, `webhook event ${eventId}: ${receipt.error}`);
      if (receipt.error) throw new Error(`webhook event ${eventId}: ${receipt.error}`);
      await applyFollowingEvents(deps, eventId);
    },
  };
}

/**
 * Having applied its event, a job goes on with the payment's next events in the order received, each in its own
 * transaction as its own job would: a burst about one payment is applied in one pass instead of one event per
 * deferral round. Their own jobs then find them applied and finish. Stops at the first event that does not apply
 * (its failure is recorded on it, and its own job retries it).
 */
async function applyFollowingEvents(deps: WebhookDeps, eventId: number): Promise<void> {
  const applied = await findEventPaymentRef(deps.db, eventId);
  if (!applied?.account_id || !applied.payment_ref) return;
  let afterId = eventId;
  for (let count = 0; count < FOLLOWING_EVENTS_PER_JOB; count++) {
    const next = await findNextEventOfPayment(deps.db, {
      afterId,
      accountId: applied.account_id,
      paymentRef: applied.payment_ref,
    });
    if (next === undefined) return;
    const receipt = await processEvent(deps, next);
    if (receipt.error) return;
    afterId = next;
  }
}

/** A webhook job out of attempts fails its event: listed for the merchant and the operator, and replayable. */
export function webhookDeadJobHandlers(clock: () => Date): Record<string, DeadJobHandler> {
  return {
    [PROCESS_EVENT_JOB]: async (job, { database, error, logger }) => {
      const eventId = Number((job.payload as { event_id: number | string }).event_id);
      const failed = await failEventOfDeadJob(database.db, eventId, error, clock());
      if (failed)
        logger.error(
          {
            webhookEventId: failed.id,
            accountId: failed.account_id,
            receiver: failed.receiver,
            eventType: failed.event_type,
            attempts: failed.attempts,
          },
          'webhook event failed: its job ran out of attempts (listed by `checkout webhooks failed`, replayable)',
        );
    },
  };
}
