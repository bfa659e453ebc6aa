import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import { GatewayRequestError } from '../../../gateways/errors.ts';
import { GatewayUnavailableError } from '../../../gateways/port.ts';
import { AppError, businessRule, notFound, validationFailed } from '../../../http/errors.ts';
import { toCents } from '../../../lib/money.ts';
import { appendOrderEvent } from '../../orders/index.ts';
import { resolveGateway, type GatewayDeps } from '../attempts/pay-gateways.ts';
import {
  enqueueRefundReconciliation,
  enqueueUnansweredRefundReconciliation,
  refundReference,
} from './refund-reconciliation.ts';
import { recordSucceededRefund } from './refund-recording.ts';
import {
  findAccountPayment,
  findOrderPaymentByGatewayId,
  lockPaymentAndOrder,
  markRefundSucceeded,
  releaseRefund,
  reserveRefund,
  type RefundReservation,
} from './refunds.repo.ts';
import type { RefundType } from './refunds.schemas.ts';

/** `clock`: the app's clock, read for the time after the gateway's answer. */
export type RefundDeps = GatewayDeps & { clock: () => Date };

export type RefundInput = { amount?: number; date?: string; type?: RefundType; transaction_id?: string };

const REFUNDABLE = new Set<string>(['paid', 'partially_refunded']);

function amountInCents(amount: number): number {
  try {
    return toCents(amount);
  } catch (error) {
    throw validationFailed('The amount is invalid', [{ field: 'body/amount', message: (error as Error).message }]);
  }
}

function refundDate(date: string | undefined, now: Date): Date {
  if (date === undefined) return now;
  const at = new Date(date);
  if (Number.isNaN(at.getTime()))
    throw validationFailed('The date is invalid', [{ field: 'body/date', message: 'must be an ISO 8601 datetime' }]);
  if (at > now)
    throw validationFailed('The refund date cannot be in the future', [
      { field: 'body/date', message: 'is in the future' },
    ]);
  return at;
}

/** The charge to refund: the path's payment, or another charge of its order named by `transaction_id`. */
async function refundTarget(db: Kysely<DB>, accountId: string, paymentId: number, transactionId: string | undefined) {
  const payment = await findAccountPayment(db, accountId, paymentId);
  if (!payment) throw notFound('Payment');
  if (transactionId === undefined) return payment;
  const target = await findOrderPaymentByGatewayId(db, accountId, payment.order_id, transactionId);
  if (!target)
    throw validationFailed("transaction_id is not a charge of this payment's order", [
      { field: 'body/transaction_id', message: 'unknown transaction' },
    ]);
  return target;
}

/**
 * Refunds a captured payment: the amount is reserved on the payment with a pending refund row and its
 * stale-reservation check is queued (one transaction), the gateway is called outside any transaction with the refund uid as idempotency key,
 * then the success is recorded (payment and order statuses, `orders.refunded_cents`) or, when the
 * gateway refuses or fails, the reservation is given back and the caller gets 422/502. When the call gets no
 * answer (504) the reservation stays: the gateway may have refunded, and its reconciliation settles it.
 */
export async function refundPayment(
  db: Kysely<DB>,
  deps: RefundDeps,
  accountId: string,
  paymentId: number,
  input: RefundInput,
  now: Date,
): Promise<void> {
  const refundedAt = refundDate(input.date, now);
  const target = await refundTarget(db, accountId, paymentId, input.transaction_id);
  // A refund cannot precede its charge; this also bounds the date to what the database can store (year 0000 cannot be).
  if (refundedAt < target.created_at)
    throw validationFailed('The refund date cannot be before the payment was made', [
      { field: 'body/date', message: 'is before the payment was created' },
    ]);
  if (!REFUNDABLE.has(target.status))
    throw businessRule(`Only a paid or partially refunded payment can be refunded (this one is ${target.status})`);
  if (!target.gateway_id) throw businessRule('The payment has no gateway charge to refund');
  const amountCents =
    input.amount === undefined ? target.amount_cents - target.refunded_cents : amountInCents(input.amount);
  if (amountCents <= 0) throw businessRule('Nothing is left to refund on this payment');
  const gateway = await resolveGateway(db, deps, { accountId, companyId: target.company_id }, target.gateway);
  const refund: RefundReservation = {
    uid: randomUUID(),
    accountId,
    paymentId: target.id,
    orderId: target.order_id,
    amountCents,
    type: input.type ?? 'requested_by_customer',
    transactionId: input.transaction_id ?? null,
    refundedAt,
    now,
  };
  const reserved = await db.transaction().execute(async (trx) => {
    if (!(await reserveRefund(trx, refund))) return false;
    await enqueueRefundReconciliation(trx, { accountId, refundUid: refund.uid }, now);
    return true;
  });
  if (!reserved)
    throw businessRule('The refund exceeds what remains to be refunded on this payment', [
      { field: 'body/amount', message: 'exceeds the refundable amount' },
    ]);
  let gatewayRefundId: string;
  try {
    gatewayRefundId = (
      await gateway.client.refund(gateway.account, target.gateway_id, amountCents, refundReference(refund.uid))
    ).refundId;
  } catch (error) {
    if (error instanceof GatewayUnavailableError && error.kind === 'timeout') {
      // The gateway may have refunded (its answer lost): the amount stays reserved, so no retry can refund it twice,
      // until the gateway is asked what became of it (a minute later) or its refund webhook settles it.
      const at = deps.clock();
      await db.transaction().execute(async (trx) => {
        await appendOrderEvent(trx, {
          accountId,
          orderId: target.order_id,
          paymentId: target.id,
          type: 'refund.outcome_unknown',
          cause: `the gateway did not answer refund ${refund.uid} in time; its amount stays reserved until the gateway's outcome is known`,
          data: { refund_uid: refund.uid, amount_cents: amountCents },
          at,
        });
        await enqueueUnansweredRefundReconciliation(trx, { accountId, refundUid: refund.uid }, at);
      });
      throw new AppError(
        'gateway_timeout',
        'The gateway did not answer the refund in time; its outcome is unknown, so the amount stays reserved until the gateway confirms or denies it (asked again after a minute)',
      );
    }
    const at = deps.clock();
    await db.transaction().execute(async (trx) => {
      if (!(await releaseRefund(trx, { ...refund, now: at }))) return;
      await appendOrderEvent(trx, {
        accountId,
        orderId: target.order_id,
        paymentId: target.id,
        type: 'refund.failed',
        cause: `gateway refused or failed the refund ${refund.uid}`,
        data: { amount_cents: amountCents, error: (error as Error).message.slice(0, 300) },
        at,
      });
    });
    throw refundFailure(error);
  }
  const answeredAt = deps.clock();
  await db
    .transaction()
    .execute((trx) => recordRefundSuccess(trx, refund, gatewayRefundId, target.amount_cents, answeredAt));
}

function refundFailure(error: unknown): AppError {
  if (error instanceof GatewayUnavailableError)
    return new AppError('gateway_error', 'The gateway failed to refund; nothing was refunded');
  if (error instanceof GatewayRequestError) return businessRule(`The gateway refused the refund: ${error.message}`);
  throw error;
}

/**
 * The gateway refunded: the refund succeeds with its gateway refund id, then it is recorded like every
 * confirmed refund. A refund a webhook already settled (its request had been given up as dead) is left as it is.
 */
async function recordRefundSuccess(
  trx: Kysely<DB>,
  refund: RefundReservation,
  gatewayRefundId: string,
  capturedCents: number,
  at: Date,
): Promise<void> {
  const order = await lockPaymentAndOrder(trx, refund.accountId, refund.paymentId, refund.orderId);
  if (!(await markRefundSucceeded(trx, refund.accountId, refund.uid, gatewayRefundId))) return;
  const target = { accountId: refund.accountId, paymentId: refund.paymentId, orderId: refund.orderId, capturedCents };
  const succeeded = {
    uid: refund.uid,
    amountCents: refund.amountCents,
    gatewayRefundId,
    type: refund.type,
    refundedAt: refund.refundedAt,
  };
  await recordSucceededRefund(
    trx,
    target,
    order,
    succeeded,
    `refund ${refund.uid} (${refund.type}) of ${refund.amountCents} cents`,
    at,
  );
}
