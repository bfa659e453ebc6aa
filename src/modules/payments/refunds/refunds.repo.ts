import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';

const REFUNDABLE = ['paid', 'partially_refunded'];

export function findAccountPayment(db: Kysely<DB>, accountId: string, paymentId: number) {
  return db
    .selectFrom('payments')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', paymentId)
    .executeTakeFirst();
}

export function findOrderPaymentByGatewayId(db: Kysely<DB>, accountId: string, orderId: number, gatewayId: string) {
  return db
    .selectFrom('payments')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('order_id', '=', orderId)
    .where('gateway_id', '=', gatewayId)
    .executeTakeFirst();
}

export type RefundReservation = {
  uid: string;
  accountId: string;
  paymentId: number;
  orderId: number;
  amountCents: number;
  type: string;
  transactionId: string | null;
  refundedAt: Date;
  now: Date;
};

/**
 * Reserves the amount on the payment: the conditional update only passes while the refunded total,
 * pending reservations included, stays within what was captured, so concurrent refunds cannot overshoot.
 */
export async function reserveRefund(trx: Kysely<DB>, refund: RefundReservation): Promise<boolean> {
  const reserved = await trx
    .updateTable('payments')
    .set((eb) => ({ refunded_cents: eb('refunded_cents', '+', refund.amountCents), updated_at: refund.now }))
    .where('account_id', '=', refund.accountId)
    .where('id', '=', refund.paymentId)
    .where('status', 'in', REFUNDABLE)
    .where((eb) => eb(eb('refunded_cents', '+', refund.amountCents), '<=', eb.ref('amount_cents')))
    .returning('id')
    .executeTakeFirst();
  if (!reserved) return false;
  await trx
    .insertInto('refunds')
    .values({
      uid: refund.uid,
      account_id: refund.accountId,
      payment_id: refund.paymentId,
      order_id: refund.orderId,
      amount_cents: refund.amountCents,
      type: refund.type,
      status: 'pending',
      transaction_id: refund.transactionId,
      refunded_at: refund.refundedAt,
      created_at: refund.now,
    })
    .execute();
  return true;
}

/**
 * Gives a failed refund's reservation back, if the refund is still pending: a reservation a webhook has
 * already settled (the gateway did refund) stays counted. Returns whether it was released.
 */
export async function releaseRefund(
  trx: Kysely<DB>,
  refund: { uid: string; accountId: string; paymentId: number; amountCents: number; now: Date },
): Promise<boolean> {
  const failed = await trx
    .updateTable('refunds')
    .set({ status: 'failed' })
    .where('account_id', '=', refund.accountId)
    .where('uid', '=', refund.uid)
    .where('status', '=', 'pending')
    .returning('id')
    .executeTakeFirst();
  if (!failed) return false;
  await trx
    .updateTable('payments')
    .set((eb) => ({ refunded_cents: eb('refunded_cents', '-', refund.amountCents), updated_at: refund.now }))
    .where('account_id', '=', refund.accountId)
    .where('id', '=', refund.paymentId)
    .returning('id')
    .execute();
  return true;
}

/** Settles a pending refund with the gateway's refund id; false when it was no longer pending (already settled). */
export async function markRefundSucceeded(
  trx: Kysely<DB>,
  accountId: string,
  uid: string,
  gatewayRefundId: string,
): Promise<boolean> {
  const row = await trx
    .updateTable('refunds')
    .set({ status: 'succeeded', gateway_refund_id: gatewayRefundId })
    .where('account_id', '=', accountId)
    .where('uid', '=', uid)
    .where('status', '=', 'pending')
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** What the gateway has confirmed as refunded, per payment of the order (pending reservations excluded). */
export async function succeededRefundsOfOrder(
  trx: Kysely<DB>,
  accountId: string,
  orderId: number,
): Promise<Map<number, number>> {
  const rows = await trx
    .selectFrom('refunds')
    .select(['payment_id', (eb) => eb.fn.sum<string | number>('amount_cents').as('cents')])
    .where('account_id', '=', accountId)
    .where('order_id', '=', orderId)
    .where('status', '=', 'succeeded')
    .groupBy('payment_id')
    .execute();
  return new Map(rows.map((row) => [Number(row.payment_id), Number(row.cents)]));
}

/** Locks the payment, then its order: the order a reservation takes them in (its refund row key-shares the order). */
export async function lockPaymentAndOrder(trx: Kysely<DB>, accountId: string, paymentId: number, orderId: number) {
  await trx
    .selectFrom('payments')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', '=', paymentId)
    .forUpdate()
    .executeTakeFirstOrThrow();
  return lockOrder(trx, accountId, orderId);
}

function lockOrder(trx: Kysely<DB>, accountId: string, orderId: number) {
  return trx
    .selectFrom('orders')
    .select(['id', 'status', 'paid_cents', 'refunded_cents'])
    .where('account_id', '=', accountId)
    .where('id', '=', orderId)
    .forUpdate()
    .executeTakeFirstOrThrow();
}

export async function setOrderRefundedCents(
  trx: Kysely<DB>,
  accountId: string,
  orderId: number,
  cents: number,
  now: Date,
): Promise<void> {
  await trx
    .updateTable('orders')
    .set({ refunded_cents: cents, updated_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', orderId)
    .returning('id')
    .execute();
}
