import { setTimeout as sleep } from 'node:timers/promises';
import type { JobHandler } from '../../jobs/worker.ts';
import { applyPaymentAction } from '../payments/gateway-actions.ts';
import { PROCESS_EVENT_JOB, processEvent, type ApplyAction } from './webhooks.service.ts';

/**
 * A deferred event (an earlier one of its payment not attempted yet) is looked at again this often, this many
 * times, before its job is left to the worker's backoff: the earlier event is usually in the same batch or
 * another worker's, and lands within milliseconds.
 */
const DEFERRED_RECHECK_MS = 100;
const DEFERRED_RECHECKS = 3;

/**
 * Applies a stored event (every receiver's, the topic's as a safety net); a failure throws so the worker retries
 * with backoff. `masterKey` is the app's: a card a paid event names for later charges is sealed with it.
 */
export function webhookJobHandlers(options: {
  masterKey: Buffer;
  clock?: () => Date;
  applyAction?: ApplyAction;
}): Record<string, JobHandler> {
  return {
    [PROCESS_EVENT_JOB]: async (job, { database }) => {
      const eventId = Number((job.payload as { event_id: number | string }).event_id);
      const deps = {
        db: database.db,
        clock: options.clock ?? (() => new Date()),
        applyAction: options.applyAction ?? applyPaymentAction,
        masterKey: options.masterKey,
      };
      let receipt = await processEvent(deps, eventId);
      for (let recheck = 0; receipt.deferred && recheck < DEFERRED_RECHECKS; recheck++) {
        await sleep(DEFERRED_RECHECK_MS);
        receipt = await processEvent(deps, eventId);
      }
      if (receipt.error) throw new Error(`webhook event ${eventId}: ${receipt.error}`);
    },
  };
}
