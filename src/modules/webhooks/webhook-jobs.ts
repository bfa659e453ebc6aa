import type { JobHandler } from '../../jobs/worker.ts';
import { applyPaymentAction } from '../payments/gateway-actions.ts';
import { findEvent } from './webhooks.repo.ts';
import { PROCESS_EVENT_JOB, processEvent, type ApplyAction } from './webhooks.service.ts';

/** Re-processes an event the request could not (or crashed before it could); a failure throws so the worker retries. */
export function webhookJobHandlers(options: { clock?: () => Date; applyAction?: ApplyAction } = {}): Record<string, JobHandler> {
  return {
    [PROCESS_EVENT_JOB]: async (job, { database }) => {
      const eventId = (job.payload as { event_id: number }).event_id;
      const stored = await findEvent(database.db, eventId);
      if (!stored) return;
      const receipt = await processEvent({ db: database.db, clock: options.clock ?? (() => new Date()), applyAction: options.applyAction ?? applyPaymentAction }, stored);
      if (receipt.error) throw new Error(`webhook event ${eventId}: ${receipt.error}`);
    },
  };
}
