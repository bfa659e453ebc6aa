import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import type { GatewayName, PaymentAction } from '../../../gateways/port.ts';
import { settleOrderAfterReturn } from '../refunds/order-after-return.ts';
import { recordReportedRefund } from '../refunds/refund-recording.ts';
import { lockPaymentAndOrder } from '../refunds/refunds.repo.ts';
import { claimCouponForOrder } from '../../coupons/index.ts';
import { appendOrderEvent } from '../../orders/index.ts';
import { settleOrder, type OrderRow } from '../settlement/order-settlement.ts';
import { keepLateCard } from './late-card.ts';
import { enqueuePaidOrderRelease } from '../settlement/paid-order-release.ts';
import { adoptGatewayId, findOrderRow, findPaymentByGatewayId, findUnansweredPayment } from '../payments.repo.ts';
import { transitionPayment, type PaymentStatus } from '../settlement/payment-status.ts';
import { cancelUnpaidPayment } from './unpaid-attempt.ts';

export type AppliedAction = { applied: boolean; paymentId?: number; reason?: string };

/** A chargeback event that must wait: its payment's paid event has not been applied yet. */
export class DisputeBeforePaymentError extends Error {
  constructor(disputeId: string) {
    super(`chargeback ${disputeId}: the payment is not recorded paid yet; the event is retried later`);
    this.name = 'DisputeBeforePaymentError';
  }
}

/**
 * `source`: who reported it when that is not the issuing gateway (the bank, a topic message); causes name it.
 * `masterKey` seals a card that a paid action names for later charges (`keepLateCard`); the webhook pipeline and
 * reconciliation always pass it, and a card that must be kept without it is an error rather than lost.
 */
export type ActionInput = {
  gateway: GatewayName;
  action: PaymentAction;
  accountId?: string;
  at: Date;
  masterKey?: Buffer;
  source?: string;
};

/** Who reported the effect, for the event log: `source` (the bank, a topic message) when another party than the issuing gateway did. */
const reporterOf = (input: ActionInput): string => input.source ?? input.gateway;

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
  return db.isTransaction
    ? applyInTransaction(db, input)
    : db.transaction().execute((trx) => applyInTransaction(trx, input));
}

/**
 * A capture confirmed by the gateway before we learnt its id (the charge call timed out, reconciliation has
 * not run yet): the event names our payment uid in the charge's metadata, so the gateway id is recorded here
 * and the event applies now rather than waiting for reconciliation.
 */
async function adoptedByReference(trx: Kysely<DB>, input: ActionInput) {
  const { action } = input;
  if (action.kind !== 'payment_paid' || !action.paymentUid) return undefined;
  const payment = await findUnansweredPayment(trx, input.gateway, action.paymentUid, input.accountId);
  if (!payment) return undefined;
  const how = `${reporterOf(input)}: a payment event named the charge by our reference`;
  if (!(await adoptGatewayId(trx, payment, { gatewayId: action.gatewayId, how, data: {} }, input.at))) return undefined;
  return { ...payment, gateway_id: action.gatewayId };
}

/**
 * A paid event reporting less than the payment's amount pays nothing: marking it paid would release the order
 * for a fraction of its price. The mismatch is logged on the order for the merchant to settle.
 */
async function logUnderpayment(
  trx: Kysely<DB>,
  input: ActionInput,
  payment: { id: number; account_id: string; order_id: number; amount_cents: number },
  reportedCents: number,
): Promise<AppliedAction> {
  await appendOrderEvent(trx, {
    accountId: payment.account_id,
    orderId: payment.order_id,
    paymentId: payment.id,
    type: 'payment.amount_mismatch',
    cause: `${reporterOf(input)}: a paid event reports ${reportedCents} cents where the payment is of ${payment.amount_cents} cents; not marked paid`,
    data: { reported_amount_cents: reportedCents, expected_amount_cents: payment.amount_cents, payment_id: payment.id },
    at: input.at,
  });
  return { applied: false, paymentId: payment.id, reason: 'paid amount below the payment amount' };
}

/**
 * Money reported received for an attempt already closed (a pix the bank credits after it expired here): the
 * attempt stays closed and its order unpaid, since the buyer was told it lapsed, and the money is not counted.
 * The order's log says so for the merchant, who returns it to the buyer (a Pix return is made at the bank).
 */
async function logPaidAfterClose(
  trx: Kysely<DB>,
  input: ActionInput,
  payment: { id: number; account_id: string; order_id: number; amount_cents: number; status: string },
  reportedCents: number | undefined,
): Promise<AppliedAction> {
  const cents = reportedCents ?? payment.amount_cents;
  await appendOrderEvent(trx, {
    accountId: payment.account_id,
    orderId: payment.order_id,
    paymentId: payment.id,
    type: 'payment.paid_after_close',
    cause: `${reporterOf(input)}: ${cents} cents reported received for a payment already ${payment.status}; not counted, to be returned to the buyer`,
    data: { reported_amount_cents: cents, payment_status: payment.status, payment_id: payment.id },
    at: input.at,
  });
  return { applied: false, paymentId: payment.id, reason: `paid after the payment was ${payment.status}` };
}

const REFUND_NOT_RECORDED = {
  duplicate: 'refund already recorded',
  not_refundable: 'no transition',
  amount_mismatch: 'refund above the refundable amount',
} as const;

async function applyInTransaction(trx: Kysely<DB>, input: ActionInput): Promise<AppliedAction> {
  const { action, at } = input;
  if (action.kind === 'ignored') return { applied: false, reason: action.reason };
  const payment =
    (await findPaymentByGatewayId(trx, input.gateway, action.gatewayId, input.accountId)) ??
    (await adoptedByReference(trx, input));
  if (!payment) return { applied: false, reason: 'unknown payment' };
  const base = { accountId: payment.account_id, paymentId: payment.id, at };
  const settle = (cause: string, order?: OrderRow) =>
    settleOrder(trx, {
      accountId: payment.account_id,
      orderId: payment.order_id,
      cause,
      paymentId: payment.id,
      at,
      ...(order ? { order } : {}),
    });
  switch (action.kind) {
    case 'payment_paid': {
      const reported = action.amountCents;
      if (reported !== undefined && reported < payment.amount_cents)
        return logUnderpayment(trx, input, payment, reported);
      // As in the pay request: the payment, then its order, locked before the money settles.
      await lockPaymentAndOrder(trx, payment.account_id, payment.id, payment.order_id);
      const moved = await transitionPayment(trx, {
        ...base,
        to: 'paid',
        cause: `${reporterOf(input)}: payment confirmed`,
        at: action.paidAt,
        ...(reported !== undefined ? { data: { amount_cents: reported } } : {}),
      });
      if (!moved.changed) {
        // Final statuses never change, so the row read before the lock still tells why the transition was refused.
        if (payment.status === 'cancelled' || payment.status === 'failed')
          return logPaidAfterClose(trx, input, payment, reported);
        return { applied: false, paymentId: payment.id, reason: 'already settled' };
      }
      // A card captured after its pay request stopped waiting keeps the card its request asked the gateway to save.
      await keepLateCard(trx, input.masterKey, payment, action.savedMethod, at);
      // A pix or boleto confirmed later claims the order's coupon use (a no-op when the intent already holds
      // it). Claiming changes no order column, so settling uses the same row.
      const order = await findOrderRow(trx, payment.account_id, payment.order_id);
      if (
        order.coupon_id !== null &&
        !(await claimCouponForOrder(trx, payment.account_id, order.coupon_id, payment.order_id, at))
      ) {
        // The money is in and the discount was granted: the order is paid, and the merchant sees the coupon ran over its limit.
        await appendOrderEvent(trx, {
          accountId: payment.account_id,
          orderId: payment.order_id,
          paymentId: payment.id,
          type: 'coupon.over_limit',
          cause: `${reporterOf(input)}: paid with coupon ${order.coupon_code ?? order.coupon_id} after its uses ran out`,
          data: { coupon_id: order.coupon_id },
          at,
        });
      }
      // What the paid order unlocks (subscription, upsell offer) is released by the worker, once.
      if ((await settle('gateway confirmed the payment', order)) === 'paid')
        await enqueuePaidOrderRelease(trx, payment.account_id, payment.order_id);
      return { applied: true, paymentId: payment.id };
    }
    case 'payment_cancelled':
    case 'payment_expired':
      // A pix or boleto that lapsed ends its order as the expiry job would (a checkout or cart order with no
      // other live attempt is cancelled), whichever learns it first.
      if (payment.method !== 'credit_card') {
        if (payment.status !== 'pending' && payment.status !== 'waiting_payment')
          return { applied: false, paymentId: payment.id, reason: 'no transition' };
        const cancelled = await cancelUnpaidPayment(
          trx,
          { accountId: payment.account_id, paymentId: payment.id, orderId: payment.order_id },
          `${reporterOf(input)}: ${action.kind.replace('payment_', 'payment ')}`,
          at,
        );
        return cancelled
          ? { applied: true, paymentId: payment.id }
          : { applied: false, paymentId: payment.id, reason: 'no transition' };
      }
    // falls through: a card the gateway cancelled is settled like a failed one
    case 'payment_failed': {
      const to: PaymentStatus = action.kind === 'payment_failed' ? 'failed' : 'cancelled';
      const moved = await transitionPayment(trx, {
        ...base,
        to,
        cause: `${reporterOf(input)}: ${action.kind.replace('payment_', 'payment ')}`,
        ...(action.kind === 'payment_failed' ? { set: { failure_message: action.reason.slice(0, 500) } } : {}),
      });
      if (!moved.changed) return { applied: false, paymentId: payment.id, reason: 'no transition' };
      await settle(`gateway: ${action.kind}`);
      return { applied: true, paymentId: payment.id };
    }
    case 'payment_refunded': {
      const target = {
        accountId: payment.account_id,
        paymentId: payment.id,
        orderId: payment.order_id,
        capturedCents: payment.amount_cents,
      };
      const outcome = await recordReportedRefund(
        trx,
        target,
        { gatewayRefundId: action.refundId, amountCents: action.amountCents, source: reporterOf(input) },
        at,
      );
      if (outcome === 'recorded') return { applied: true, paymentId: payment.id };
      return { applied: false, paymentId: payment.id, reason: REFUND_NOT_RECORDED[outcome] };
    }
    case 'payment_disputed': {
      // Its paid event is late (events may arrive out of order): the chargeback waits for it rather than being lost.
      if (payment.status === 'pending' || payment.status === 'waiting_payment')
        throw new DisputeBeforePaymentError(action.disputeId);
      const cause = `${reporterOf(input)}: chargeback ${action.disputeId}`;
      const order = await lockPaymentAndOrder(trx, payment.account_id, payment.id, payment.order_id);
      const moved = await transitionPayment(trx, {
        ...base,
        to: 'charged_back',
        cause,
        data: { amount_cents: action.amountCents },
      });
      if (!moved.changed) return { applied: false, paymentId: payment.id, reason: 'no transition' };
      // The disputed money is gone: the order is refunded (in part), which ends its subscription and its offer.
      await settleOrderAfterReturn(
        trx,
        { accountId: payment.account_id, orderId: payment.order_id, paymentId: payment.id },
        order,
        cause,
        at,
      );
      return { applied: true, paymentId: payment.id };
    }
  }
}
