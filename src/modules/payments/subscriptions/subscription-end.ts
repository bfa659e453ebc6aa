import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import { notifySubscription } from '../../notifications/index.ts';

type SubscriptionOf = { originOrderId: number } | { subscriptionId: string };

/**
 * The one way a subscription is ended on purpose: cancelled (`subscription.cancelled`), so no later period is
 * charged. A renewal already in flight is left to settle; a paid one keeps its period. Returns the subscription
 * ended, or undefined when there was none still running.
 */
export async function endSubscription(
  trx: Kysely<DB>,
  accountId: string,
  which: SubscriptionOf,
  at: Date,
): Promise<{ id: string; originOrderId: number } | undefined> {
  let update = trx
    .updateTable('subscriptions')
    .set({ status: 'cancelled', cancelled_at: at, next_charge_at: null, updated_at: at })
    .where('account_id', '=', accountId)
    .where('status', '<>', 'cancelled');
  update =
    'originOrderId' in which
      ? update.where('origin_order_id', '=', which.originOrderId)
      : update.where('id', '=', which.subscriptionId);
  const ended = await update.returning(['id', 'origin_order_id']).executeTakeFirst();
  if (!ended) return undefined;
  await notifySubscription(trx, {
    accountId,
    orderId: ended.origin_order_id,
    subscriptionId: ended.id,
    type: 'subscription.cancelled',
    at,
  });
  return { id: ended.id, originOrderId: ended.origin_order_id };
}

/** An order whose money was all given back (refunded, charged back, voided as an overpayment) no longer pays for a subscription: the one it started ends. */
export async function endSubscriptionOfRefundedOrder(
  trx: Kysely<DB>,
  accountId: string,
  orderId: number,
  at: Date,
): Promise<void> {
  await endSubscription(trx, accountId, { originOrderId: orderId }, at);
}
