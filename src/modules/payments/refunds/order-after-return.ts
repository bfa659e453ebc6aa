import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import { sumOf } from '../../../lib/money.ts';
import { transitionOrder } from '../../orders/index.ts';
import { setOrderRefundedCents, succeededRefundsOfOrder } from './refunds.repo.ts';

// Payments that captured money at some point: what they hold still stands, or was given back.
const CAPTURED = ['paid', 'partially_refunded', 'waiting_cancellation', 'refunded', 'charged_back'] as const;

// Given back whole: a charged-back payment, and a refunded one (a void records no refund row).
const GONE_WHOLE = new Set(['refunded', 'charged_back']);

export type ReturnedOn = { accountId: string; orderId: number; paymentId: number };

/**
 * Moves an order after money on it went back (a refund confirmed, or a chargeback), from the money its
 * payments captured and what of it returned (confirmed refunds; the whole payment for a chargeback):
 * - what the order keeps still covers what it was paid (`paid_cents`): only an overpayment went back (a
 *   duplicate pix refunded), so the order keeps its status and its `refunded_cents`;
 * - a partly paid order (a charge with money received elsewhere) that keeps some money stays `partially_paid`,
 *   so the rest can still be paid;
 * - otherwise `refunded` when nothing is kept, else `partially_refunded`.
 * `orders.refunded_cents` is what of the order's paid money went back. The caller holds the order lock.
 */
export async function settleOrderAfterReturn(
  trx: Kysely<DB>,
  on: ReturnedOn,
  order: { paid_cents: number; status: string },
  cause: string,
  at: Date,
): Promise<void> {
  // An order never paid (money captured on it is an overpayment waiting for its void) has nothing of its own to give back.
  if (order.paid_cents <= 0) return;
  const [refunds, payments] = await Promise.all([
    succeededRefundsOfOrder(trx, on.accountId, on.orderId),
    trx
      .selectFrom('payments')
      .select(['id', 'status', 'amount_cents'])
      .where('account_id', '=', on.accountId)
      .where('order_id', '=', on.orderId)
      .where('status', 'in', CAPTURED)
      .execute(),
  ]);
  const captured = sumOf(payments, (payment) => payment.amount_cents);
  const returned = sumOf(payments, (payment) =>
    GONE_WHOLE.has(payment.status)
      ? payment.amount_cents
      : Math.min(refunds.get(payment.id) ?? 0, payment.amount_cents),
  );
  const kept = captured - returned;
  const paid = order.paid_cents;
  await setOrderRefundedCents(trx, on.accountId, on.orderId, Math.min(paid, Math.max(0, paid - kept)), at);
  if (kept >= paid) return;
  if (order.status === 'partially_paid' && kept > 0) return;
  await transitionOrder(trx, {
    accountId: on.accountId,
    orderId: on.orderId,
    to: kept <= 0 ? 'refunded' : 'partially_refunded',
    cause,
    paymentId: on.paymentId,
    at,
  });
}
