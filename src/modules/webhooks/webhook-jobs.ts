import type { JobHandler } from '../../jobs/worker.ts';
import { applyPaymentAction } from '../payments/gateway-actions.ts';
import { PROCESS_EVENT_JOB, processEvent, type ApplyAction } from './webhooks.service.ts';

/**
 * Applies a stored event (every receiver's, the topic's as a safety net); a failure throws so the worker retries
 * with backoff. `masterKey` is the app's: a card a paid event names for later charges is sealed with it.
 */
export function webhookJobHandlers(options: { masterKey: Buffer; clock?: () => Date; applyAction?: ApplyAction }): Record<string, JobHandler> {
  return {
    [PROCESS_EVENT_JOB]: async (job, { database }) => {
      const eventId = Number((job.payload as { event_id: number | string }).event_id);
      const receipt = await processEvent({ db: database.db, clock: options.clock ?? (() => new Date()), applyAction: options.applyAction ?? applyPaymentAction, masterKey: options.masterKey }, eventId);
      if (receipt.error) throw new Error(`webhook event ${eventId}: ${receipt.error}`);
    },
  };
}
