import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import { transitionOrder } from '../../orders/index.ts';
import { settleOrder } from '../settlement/order-settlement.ts';
import { transitionPayment } from '../settlement/payment-status.ts';

/**
 * A pix or boleto that will not be paid any more is cancelled in the caller's transaction (unless the
 * gateway's own event cancelled it first); its order leaves waiting_payment, and a checkout, cart or
 * renewal order with no other live attempt is cancelled (a charge stays pending, payable again).
 * Returns whether this call cancelled the payment.
 */
export async function cancelUnpaidPayment(
  trx: Kysely<DB>,
  payment: { accountId: string; paymentId: number; orderId: number },
  cause: string,
  now: Date,
): Promise<boolean> {
  const moved = await transitionPayment(trx, {
    accountId: payment.accountId,
    paymentId: payment.paymentId,
    to: 'cancelled',
    cause,
    at: now,
  });
  const status = await settleOrder(trx, {
    accountId: payment.accountId,
    orderId: payment.orderId,
    cause,
    paymentId: payment.paymentId,
    at: now,
  });
  const order = await trx
    .selectFrom('orders')
    .select(['due_date'])
    .where('id', '=', payment.orderId)
    .executeTakeFirstOrThrow();
  const live = await trx
    .selectFrom('payments')
    .select('id')
    .where('account_id', '=', payment.accountId)
    .where('order_id', '=', payment.orderId)
    .where('status', 'in', ['pending', 'waiting_payment'])
    .executeTakeFirst();
  if (status === 'pending' && order.due_date === null && !live) {
    await transitionOrder(trx, {
      accountId: payment.accountId,
      orderId: payment.orderId,
      to: 'cancelled',
      cause: `${cause}, with no other live attempt`,
      paymentId: payment.paymentId,
      at: now,
    });
  }
  return moved.changed;
}
