import type { JobHandler } from '../../jobs/worker.ts';
import { applyPaymentAction } from '../payments/gateway-actions.ts';
import { PROCESS_EVENT_JOB, processEvent, type ApplyAction } from './webhooks.service.ts';

/** Applies a stored event (every receiver's, the topic's as a safety net); a failure throws so the worker retries with backoff. */
export function webhookJobHandlers(options: { clock?: () => Date; applyAction?: ApplyAction } = {}): Record<string, JobHandler> {
  return {
    [PROCESS_EVENT_JOB]: async (job, { database }) => {
      const eventId = Number((job.payload as { event_id: number | string }).event_id);
      const receipt = await processEvent({ db: database.db, clock: options.clock ?? (() => new Date()), applyAction: options.applyAction ?? applyPaymentAction }, eventId);
      if (receipt.error) throw new Error(`webhook event ${eventId}: ${receipt.error}`);
    },
  };
}
