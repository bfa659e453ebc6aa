import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { PaymentAction } from '../../gateways/port.ts';
import { findEarlierUnattemptedEvent, lockPaymentRef, type StoredEvent } from './webhooks.repo.ts';

/**
 * The payment an event is about: the gateway id its first effective action names (every parser gives at most one
 * action per event). Null for an event that moves no payment, which is applied whenever its job runs.
 */
export function paymentRefOf(actions: PaymentAction[]): string | null {
  for (const action of actions) if (action.kind !== 'ignored') return action.gatewayId;
  return null;
}

/** An earlier event about the same payment has not been attempted yet: this one waits its turn (retryable). */
export class EarlierEventPendingError extends Error {
  constructor(readonly earlierEventId: number) {
    super(`waiting for earlier webhook event ${earlierEventId} of the same payment`);
    this.name = 'EarlierEventPendingError';
  }
}

/**
 * Events about one payment are applied in the order they were received: under a lock on (account, payment),
 * held to the end of `trx`, an event waits while an earlier one of the payment has not been attempted. An earlier
 * event that was attempted and failed (a refund waiting for its paid event) does not hold later ones back, or the
 * two would wait for each other.
 */
export async function awaitTurnOfEvent(trx: Transaction<DB>, event: StoredEvent, jobType: string): Promise<void> {
  if (event.payment_ref === null || event.account_id === null) return;
  await lockPaymentRef(trx, event.account_id, event.payment_ref);
  const earlier = await findEarlierUnattemptedEvent(
    trx,
    { id: event.id, accountId: event.account_id, paymentRef: event.payment_ref },
    jobType,
  );
  if (earlier !== undefined) throw new EarlierEventPendingError(earlier);
}
