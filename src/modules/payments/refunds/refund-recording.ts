import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import { notifyRefund } from '../../notifications/index.ts';
import { appendOrderEvent } from '../../orders/index.ts';
import { transitionPayment, type PaymentStatus } from '../settlement/payment-status.ts';
import { settleOrderAfterReturn } from './order-after-return.ts';
import { lockPaymentAndOrder, succeededRefundsOfOrder } from './refunds.repo.ts';

/**
 * A reservation older than this cannot belong to a live request (gateway calls give up after seconds):
 * its request died between the gateway call and its commit, so a webhook may settle it.
 */
export const STALE_RESERVATION_MS = 10 * 60_000;

/** A refund webhook that must wait: one of our own refunds of the payment is still between its gateway call and its commit. */
export class RefundInFlightError extends Error {
  constructor(refundId: string) {
    super(`refund ${refundId}: a refund of this payment is still being recorded; the event is retried later`);
    this.name = 'RefundInFlightError';
  }
}

/** A refund webhook that must wait: its payment's own paid event has not been applied yet (events may arrive out of order). */
export class RefundBeforePaymentError extends Error {
  constructor(refundId: string) {
    super(`refund ${refundId}: the payment is not recorded paid yet; the event is retried later`);
    this.name = 'RefundBeforePaymentError';
  }
}

export type RefundTarget = { accountId: string; paymentId: number; orderId: number; capturedCents: number };

/**
 * After a refund succeeded: the payment moves by what the gateway confirmed (its succeeded refunds), the
 * order by what its payments keep (`settleOrderAfterReturn`). The caller holds the payment and order locks.
 */
export async function settleRefundTotals(
  trx: Kysely<DB>,
  target: RefundTarget,
  order: OrderFigures,
  cause: string,
  at: Date,
): Promise<void> {
  const confirmed = await succeededRefundsOfOrder(trx, target.accountId, target.orderId);
  const paymentTo: PaymentStatus =
    (confirmed.get(target.paymentId) ?? 0) >= target.capturedCents ? 'refunded' : 'partially_refunded';
  await transitionPayment(trx, { accountId: target.accountId, paymentId: target.paymentId, to: paymentTo, cause, at });
  await settleOrderAfterReturn(trx, target, order, cause, at);
}

/** The locked order's figures a refund settles against. */
export type OrderFigures = { paid_cents: number; status: string };

/** A refund the gateway confirmed, as its row now says (the row is already marked succeeded). */
export type SucceededRefund = {
  uid: string;
  amountCents: number;
  gatewayRefundId: string;
  type: string;
  refundedAt: Date;
};

/**
 * The one place a confirmed refund is recorded, whichever path confirmed it (our request, the gateway's
 * webhook, the stale-refund reconciliation): the order's `refund.succeeded` event, the payment and order
 * moved by the confirmed totals, and the merchant's `refund.succeeded` notification (one per refund, so a
 * second partial refund is announced too). In the caller's transaction, which holds the payment and order locks.
 */
export async function recordSucceededRefund(
  trx: Kysely<DB>,
  target: RefundTarget,
  order: OrderFigures,
  refund: SucceededRefund,
  cause: string,
  at: Date,
): Promise<void> {
  await appendOrderEvent(trx, {
    accountId: target.accountId,
    orderId: target.orderId,
    paymentId: target.paymentId,
    type: 'refund.succeeded',
    cause,
    data: { amount_cents: refund.amountCents, gateway_refund_id: refund.gatewayRefundId, refund_uid: refund.uid },
    at,
  });
  await settleRefundTotals(trx, target, order, cause, at);
  await notifyRefund(trx, {
    accountId: target.accountId,
    orderId: target.orderId,
    at,
    refund: { ...refund, paymentId: target.paymentId },
  });
}

/**
 * A refund the gateway reports (webhook), recorded once whichever path gets there first:
 * - a refund row already holds this gateway refund id: nothing to do (our own request recorded it);
 * - the payment is still waiting for its money: its paid event is late, so the refund waits for it
 *   (`RefundBeforePaymentError`, retried by the worker) rather than being dropped before the money lands;
 * - one of our reservations of the payment is still pending and recent: its request is between the
 *   gateway call and its commit, and this may be that very refund, so the event waits
 *   (`RefundInFlightError`, retried by the worker) instead of counting the money a second time;
 * - a stale pending reservation of the same amount (its request died after calling the gateway): the
 *   webhook settles that reservation, already counted in `refunded_cents`;
 * - otherwise the refund was made elsewhere (the gateway's dashboard): a new row, and the amount is added
 *   to the payment; unless it is more than remains refundable (captured less refunded and reserved): then
 *   nothing is recorded but a `refund.amount_mismatch` order event, as money never refunded must not be announced.
 * Runs in the caller's transaction; the payment row lock serialises it with reservations and commits.
 */
export async function recordReportedRefund(
  trx: Kysely<DB>,
  target: RefundTarget,
  refund: { gatewayRefundId: string; amountCents: number; source: string },
  at: Date,
): Promise<'recorded' | 'duplicate' | 'not_refundable' | 'amount_mismatch'> {
  const order = await lockPaymentAndOrder(trx, target.accountId, target.paymentId, target.orderId);
  const payment = await trx
    .selectFrom('payments')
    .select(['status', 'refunded_cents', 'amount_cents'])
    .where('id', '=', target.paymentId)
    .executeTakeFirstOrThrow();
  const known = await trx
    .selectFrom('refunds')
    .select('id')
    .where('account_id', '=', target.accountId)
    .where('payment_id', '=', target.paymentId)
    .where('gateway_refund_id', '=', refund.gatewayRefundId)
    .executeTakeFirst();
  if (known) return 'duplicate';
  if (payment.status === 'pending' || payment.status === 'waiting_payment')
    throw new RefundBeforePaymentError(refund.gatewayRefundId);
  if (payment.status !== 'paid' && payment.status !== 'partially_refunded') return 'not_refundable';
  const pending = await trx
    .selectFrom('refunds')
    .select(['uid', 'amount_cents', 'type', 'refunded_at', 'created_at'])
    .where('account_id', '=', target.accountId)
    .where('payment_id', '=', target.paymentId)
    .where('status', '=', 'pending')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const staleBefore = at.getTime() - STALE_RESERVATION_MS;
  if (pending.some((row) => row.created_at.getTime() > staleBefore))
    throw new RefundInFlightError(refund.gatewayRefundId);
  const abandoned = pending.find((row) => row.amount_cents === refund.amountCents);
  // `refunded_cents` counts pending reservations too, so what remains is what no refund has claimed yet.
  const refundable = payment.amount_cents - payment.refunded_cents;
  if (!abandoned && refund.amountCents > refundable) {
    await appendOrderEvent(trx, {
      accountId: target.accountId,
      orderId: target.orderId,
      paymentId: target.paymentId,
      type: 'refund.amount_mismatch',
      cause: `${refund.source}: refund ${refund.gatewayRefundId} reports ${refund.amountCents} cents where ${refundable} cents remain refundable; not recorded`,
      data: {
        reported_amount_cents: refund.amountCents,
        refundable_cents: refundable,
        gateway_refund_id: refund.gatewayRefundId,
        payment_id: target.paymentId,
      },
      at,
    });
    return 'amount_mismatch';
  }
  const cause = `${refund.source}: refund ${refund.gatewayRefundId} of ${refund.amountCents} cents`;
  let recorded: SucceededRefund;
  if (abandoned) {
    await trx
      .updateTable('refunds')
      .set({ status: 'succeeded', gateway_refund_id: refund.gatewayRefundId })
      .where('account_id', '=', target.accountId)
      .where('uid', '=', abandoned.uid)
      .returning('id')
      .execute();
    recorded = {
      uid: abandoned.uid,
      amountCents: abandoned.amount_cents,
      gatewayRefundId: refund.gatewayRefundId,
      type: abandoned.type,
      refundedAt: abandoned.refunded_at,
    };
  } else {
    await trx
      .updateTable('payments')
      .set({ refunded_cents: payment.refunded_cents + refund.amountCents, updated_at: at })
      .where('account_id', '=', target.accountId)
      .where('id', '=', target.paymentId)
      .returning('id')
      .execute();
    recorded = {
      uid: crypto.randomUUID(),
      amountCents: refund.amountCents,
      gatewayRefundId: refund.gatewayRefundId,
      type: 'gateway',
      refundedAt: at,
    };
    await trx
      .insertInto('refunds')
      .values({
        uid: recorded.uid,
        account_id: target.accountId,
        payment_id: target.paymentId,
        order_id: target.orderId,
        amount_cents: refund.amountCents,
        type: 'gateway',
        status: 'succeeded',
        gateway_refund_id: refund.gatewayRefundId,
        refunded_at: at,
        created_at: at,
      })
      .execute();
  }
  await recordSucceededRefund(trx, target, order, recorded, cause, at);
  return 'recorded';
}
