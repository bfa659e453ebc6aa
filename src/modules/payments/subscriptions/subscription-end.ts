import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import { notifySubscription } from '../../notifications/index.ts';

/**
 * An order whose money was all given back (refunded, charged back, voided as an overpayment) no longer pays
 * for a subscription: the one it started is cancelled (`subscription.cancelled`), so no later period is
 * charged. A renewal already in flight is left to settle; a paid one keeps its period.
 */
export async function endSubscriptionOfRefundedOrder(
  trx: Kysely<DB>,
  accountId: string,
  orderId: number,
  at: Date,
): Promise<void> {
  const ended = await trx
    .updateTable('subscriptions')
    .set({ status: 'cancelled', cancelled_at: at, next_charge_at: null, updated_at: at })
    .where('account_id', '=', accountId)
    .where('origin_order_id', '=', orderId)
    .where('status', '<>', 'cancelled')
    .returning('id')
    .executeTakeFirst();
  if (ended)
    await notifySubscription(trx, { accountId, orderId, subscriptionId: ended.id, type: 'subscription.cancelled', at });
}
