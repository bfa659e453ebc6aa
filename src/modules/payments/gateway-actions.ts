import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { GatewayName, PaymentAction } from '../../gateways/port.ts';
import { claimCouponForOrder } from './coupon-usage.ts';
import { settleOrder } from './order-settlement.ts';
import { transitionOrder } from '../orders/order-status.ts';
import { findOrderRow, findPaymentByGatewayId, findPaymentsOfOrder } from './pay.repo.ts';
import { transitionPayment, type PaymentStatus } from './payment-status.ts';

export type AppliedAction = { applied: boolean; paymentId?: number; reason?: string };

export type ActionInput = { gateway: GatewayName; action: PaymentAction; accountId?: string; at: Date };

/**
 * Applies one gateway effect (from a webhook, or a status fetched by reconciliation) to the payment with
 * that gateway id. Idempotent and monotonic: every move goes through the transition tables, so a duplicate
 * or late event (a `paid` after a refund, a `failed` after `paid`) changes nothing.
 * Given a transaction (`db.isTransaction`), it runs inside it, so the caller can commit the effect together
 * with its own record of the event (the webhook pipeline marks the event processed in the same commit);
 * otherwise it opens one. `accountId`, when the receiver knows the company's account, keeps the lookup
 * inside that tenant.
 */
export function applyPaymentAction(db: Kysely<DB>, input: ActionInput): Promise<AppliedAction> {
  if (input.action.kind === 'ignored') return Promise.resolve({ applied: false, reason: input.action.reason });
  return db.isTransaction ? applyInTransaction(db, input) : db.transaction().execute((trx) => applyInTransaction(trx, input));
}

async function applyInTransaction(trx: Kysely<DB>, input: ActionInput): Promise<AppliedAction> {
  const { action, at } = input;
  if (action.kind === 'ignored') return { applied: false, reason: action.reason };
  const payment = await findPaymentByGatewayId(trx, input.gateway, action.gatewayId, input.accountId);
  if (!payment) return { applied: false, reason: 'unknown payment' };
  const base = { accountId: payment.account_id, paymentId: payment.id, at };
  const settle = (cause: string) => settleOrder(trx, { accountId: payment.account_id, orderId: payment.order_id, cause, paymentId: payment.id, at });
  switch (action.kind) {
    case 'payment_paid': {
      const moved = await transitionPayment(trx, { ...base, to: 'paid', cause: `${input.gateway}: payment confirmed`, at: action.paidAt });
      if (!moved.changed) return { applied: false, paymentId: payment.id, reason: 'already settled' };
      await confirmCoupon(trx, payment.account_id, payment.order_id);
      await settle('gateway confirmed the payment');
      return { applied: true, paymentId: payment.id };
    }
    case 'payment_failed':
    case 'payment_cancelled':
    case 'payment_expired': {
      const to: PaymentStatus = action.kind === 'payment_failed' ? 'failed' : 'cancelled';
      const moved = await transitionPayment(trx, { ...base, to, cause: `${input.gateway}: ${action.kind.replace('payment_', 'payment ')}`, ...(action.kind === 'payment_failed' ? { set: { failure_message: action.reason.slice(0, 500) } } : {}) });
      if (!moved.changed) return { applied: false, paymentId: payment.id, reason: 'no transition' };
      await settle(`gateway: ${action.kind}`);
      return { applied: true, paymentId: payment.id };
    }
    case 'payment_refunded':
      return applyRefund(trx, payment, action, input.gateway, at);
    case 'payment_disputed': {
      const moved = await transitionPayment(trx, { ...base, to: 'charged_back', cause: `${input.gateway}: chargeback ${action.disputeId}`, data: { amount_cents: action.amountCents } });
      return moved.changed ? { applied: true, paymentId: payment.id } : { applied: false, paymentId: payment.id, reason: 'no transition' };
    }
  }
}

/** A pix or boleto confirmed later claims the order's coupon use (a no-op when the intent already holds it). */
async function confirmCoupon(trx: Kysely<DB>, accountId: string, orderId: number): Promise<void> {
  const order = await findOrderRow(trx, accountId, orderId);
  if (order.coupon_id !== null) await claimCouponForOrder(trx, accountId, order.coupon_id, orderId);
}

type PaymentRow = NonNullable<Awaited<ReturnType<typeof findPaymentByGatewayId>>>;

/** One refund, recorded once per gateway refund id; the payment and the order move to (partially_)refunded. */
async function applyRefund(trx: Kysely<DB>, payment: PaymentRow, action: Extract<PaymentAction, { kind: 'payment_refunded' }>, gateway: string, at: Date): Promise<AppliedAction> {
  const seen = await trx.selectFrom('refunds').select('id').where('account_id', '=', payment.account_id).where('payment_id', '=', payment.id).where('gateway_refund_id', '=', action.refundId).executeTakeFirst();
  if (seen) return { applied: false, paymentId: payment.id, reason: 'refund already recorded' };
  const current = await trx.selectFrom('payments').select(['refunded_cents', 'amount_cents', 'status']).where('id', '=', payment.id).forUpdate().executeTakeFirstOrThrow();
  const refunded = Math.min(current.refunded_cents + action.amountCents, current.amount_cents);
  const to: PaymentStatus = refunded >= current.amount_cents ? 'refunded' : 'partially_refunded';
  const moved = to === current.status
    ? await trx.updateTable('payments').set({ refunded_cents: refunded, updated_at: at }).where('id', '=', payment.id).returning('id').executeTakeFirst().then(Boolean)
    : (await transitionPayment(trx, { accountId: payment.account_id, paymentId: payment.id, to, cause: `${gateway}: refund ${action.refundId}`, at, set: { refunded_cents: refunded } })).changed;
  if (!moved) return { applied: false, paymentId: payment.id, reason: 'no transition' };
  await trx
    .insertInto('refunds')
    .values({ uid: crypto.randomUUID(), account_id: payment.account_id, payment_id: payment.id, order_id: payment.order_id, amount_cents: action.amountCents, type: 'gateway', status: 'succeeded', gateway_refund_id: action.refundId, refunded_at: at, created_at: at })
    .execute();
  const payments = await findPaymentsOfOrder(trx, payment.account_id, payment.order_id);
  const order = await findOrderRow(trx, payment.account_id, payment.order_id);
  const orderRefunded = payments.reduce((sum, row) => sum + row.refunded_cents, 0);
  await trx.updateTable('orders').set({ refunded_cents: Math.min(orderRefunded, order.paid_cents) }).where('id', '=', order.id).returning('id').execute();
  const allRefunded = payments.filter((row) => row.amount_cents > 0 && ['paid', 'partially_refunded', 'refunded'].includes(row.status)).every((row) => row.status === 'refunded');
  await transitionOrder(trx, { accountId: payment.account_id, orderId: order.id, to: allRefunded ? 'refunded' : 'partially_refunded', cause: `${gateway}: refund ${action.refundId}`, paymentId: payment.id, at });
  return { applied: true, paymentId: payment.id };
}
