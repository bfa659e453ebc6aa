import type { Kysely } from 'kysely';
import type { DB } from './db/schema.ts';
import { notifyOrderTransition } from './modules/notifications/index.ts';
import { onOrderTransition, type OrderTransition } from './modules/orders/index.ts';
import { endSubscriptionOfRefundedOrder } from './modules/payments/index.ts';

const notifyMerchant = (trx: Kysely<DB>, transition: OrderTransition) =>
  notifyOrderTransition(trx, {
    accountId: transition.accountId,
    orderId: transition.orderId,
    status: transition.to,
    at: transition.at,
  });

const endSubscriptionOfRefunded = async (trx: Kysely<DB>, transition: OrderTransition) => {
  if (transition.to === 'refunded')
    await endSubscriptionOfRefundedOrder(trx, transition.accountId, transition.orderId, transition.at);
};

/**
 * What happens in the transaction of every order transition, in this order: the merchant notification, then the end
 * of the subscription an order refunded in full started. Every process calls it at start-up (the app, the worker,
 * the CLI); calling it again changes nothing.
 */
export function registerOrderTransitionHooks(): void {
  onOrderTransition(notifyMerchant);
  onOrderTransition(endSubscriptionOfRefunded);
}
