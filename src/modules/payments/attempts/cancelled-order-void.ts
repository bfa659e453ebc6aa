import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import { enqueueJob } from '../../../queue/outbox.ts';
import { appendOrderEvent } from '../../orders/index.ts';
import { transitionPayment } from '../settlement/payment-status.ts';
import { resolveGateway, type GatewayDeps } from './pay-gateways.ts';

export const VOID_CANCELLED_ORDER_JOB = 'payments.void_cancelled_order';
const VOID_OUTCOME_EVENTS = ['payment.voided_at_gateway', 'payment.void_skipped'];

/**
 * A merchant cancelled an unpaid order (in `trx`, with the order locked): each pix or boleto still payable on it is
 * cancelled here at once, so money that still arrives is money for a closed attempt (`payment.paid_after_close`
 * on the order's log, to be returned to the buyer, as for a pix paid after its expiry), and gets a job that voids
 * it at the gateway, so the buyer can no longer pay it. Returns the payments cancelled.
 */
export async function cancelAttemptsOfCancelledOrder(
  trx: Kysely<DB>,
  order: { accountId: string; orderId: number },
  cause: string,
  at: Date,
): Promise<number[]> {
  const live = await trx
    .selectFrom('payments')
    .select(['id', 'gateway_id'])
    .where('account_id', '=', order.accountId)
    .where('order_id', '=', order.orderId)
    .where('method', 'in', ['pix', 'bank_slip'])
    .where('status', 'in', ['pending', 'waiting_payment'])
    .orderBy('id')
    .execute();
  const cancelled: number[] = [];
  for (const payment of live) {
    const moved = await transitionPayment(trx, {
      accountId: order.accountId,
      paymentId: payment.id,
      to: 'cancelled',
      cause,
      at,
    });
    if (!moved.changed) continue;
    cancelled.push(payment.id);
    await enqueueJob(trx, {
      type: VOID_CANCELLED_ORDER_JOB,
      payload: { account_id: order.accountId, payment_id: payment.id },
      accountId: order.accountId,
      runAt: at,
      dedupKey: `${VOID_CANCELLED_ORDER_JOB}:${payment.id}`,
    });
  }
  return cancelled;
}

/**
 * `payments.void_cancelled_order`: the pix or boleto of a cancelled order, voided at the gateway, and the outcome
 * written to the order's event log. Still payable there → voided. Paid there already (the buyer paid before the
 * void) → left as it is: the gateway's paid event records the money as paid after close, for the merchant to
 * return. Already closed there → nothing to do. A gateway that cannot be reached throws, and the worker retries.
 */
export async function voidAttemptOfCancelledOrder(
  db: Kysely<DB>,
  deps: GatewayDeps,
  ref: { accountId: string; paymentId: number },
  now: Date,
): Promise<'voided' | 'paid' | 'closed' | 'skipped'> {
  const payment = await db
    .selectFrom('payments')
    .select(['id', 'uid', 'order_id', 'company_id', 'gateway', 'gateway_id', 'method', 'status'])
    .where('account_id', '=', ref.accountId)
    .where('id', '=', ref.paymentId)
    .executeTakeFirst();
  if (!payment || payment.status !== 'cancelled' || !payment.gateway_id) return 'skipped';
  // A run that wrote its outcome and died before the job was marked done: the void is settled already.
  const settled = await db
    .selectFrom('order_events')
    .select('id')
    .where('account_id', '=', ref.accountId)
    .where('order_id', '=', payment.order_id)
    .where('payment_id', '=', payment.id)
    .where('type', 'in', VOID_OUTCOME_EVENTS)
    .executeTakeFirst();
  if (settled) return 'skipped';
  const gateway = await resolveGateway(
    db,
    deps,
    { accountId: ref.accountId, companyId: payment.company_id },
    payment.gateway,
  );
  const remote = await gateway.client.fetchStatus(gateway.account, payment.gateway_id);
  const outcome =
    remote === 'waiting_payment' || remote === 'pending'
      ? 'voided'
      : remote === 'paid' || remote === 'partially_refunded'
        ? 'paid'
        : 'closed';
  if (outcome === 'voided') await gateway.client.voidCharge(gateway.account, payment.gateway_id, `void:${payment.uid}`);
  const method = payment.method === 'bank_slip' ? 'boleto' : payment.method;
  const said = {
    voided: `worker: ${method} voided at ${payment.gateway} after the order was cancelled`,
    paid: `worker: ${method} not voided: ${payment.gateway} reports it paid before the void; the money is to be returned to the buyer`,
    closed: `worker: ${method} already closed at ${payment.gateway} (${remote}); nothing to void`,
  } as const;
  await appendOrderEvent(db, {
    accountId: ref.accountId,
    orderId: payment.order_id,
    paymentId: payment.id,
    type: outcome === 'voided' ? 'payment.voided_at_gateway' : 'payment.void_skipped',
    cause: said[outcome],
    data: { payment_id: payment.id, gateway: payment.gateway, gateway_status: remote },
    at: now,
  });
  return outcome;
}
