import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import { enqueueJob, type Executor } from '../../../queue/outbox.ts';
import { appendOrderEvent } from '../../orders/index.ts';
import { resolveGateway, type GatewayDeps } from '../attempts/pay-gateways.ts';
import { recordSucceededRefund, STALE_RESERVATION_MS } from './refund-recording.ts';
import { findAccountPayment, lockPaymentAndOrder, markRefundSucceeded, releaseRefund } from './refunds.repo.ts';

export const RECONCILE_REFUND_JOB = 'refunds.reconcile';
const UNANSWERED = 'unanswered';
/** Retried with the worker's backoff (capped at an hour) while the gateway cannot be reached: about a day. */
const RECONCILE_REFUND_ATTEMPTS = 30;

/** A refund call's idempotency key, which is also the refund's reference at the gateway (`findRefund`). */
export const refundReference = (refundUid: string) => `refund:${refundUid}`;

type RefundRef = { accountId: string; refundUid: string };

/**
 * The dedup key of a refund's `refunds.reconcile` job: `attempt` 0 is the one written with the reservation
 * (and by the pending-refund sweep), 1 the one a job that ran too early leaves for later, `unanswered` the one
 * a timed-out refund call writes.
 */
export const reconcileRefundKey = (refundUid: string, attempt: 0 | 1 | typeof UNANSWERED = 0) =>
  `${RECONCILE_REFUND_JOB}:${refundUid}${attempt ? `:${attempt}` : ''}`;

/**
 * Written with every refund reservation, in its transaction, to run once the reservation is stale. A
 * request that dies between its reservation and its commit or release (a crash, the database failing
 * then) would otherwise keep the amount reserved forever; by then the job finds the refund settled and
 * does nothing, or asks the gateway what became of it.
 */
export function enqueueRefundReconciliation(
  trx: Executor,
  ref: RefundRef,
  reservedAt: Date,
  attempt: 0 | 1 = 0,
): Promise<boolean> {
  const runAt = new Date(reservedAt.getTime() + STALE_RESERVATION_MS);
  return enqueueJob(trx, {
    type: RECONCILE_REFUND_JOB,
    payload: { account_id: ref.accountId, refund_uid: ref.refundUid },
    accountId: ref.accountId,
    runAt,
    maxAttempts: RECONCILE_REFUND_ATTEMPTS,
    dedupKey: reconcileRefundKey(ref.refundUid, attempt),
  });
}

/** How long after a refund call went unanswered its outcome is asked of the gateway (time for the gateway to finish). */
export const UNANSWERED_REFUND_DELAY_MS = 60_000;

/**
 * Written when a refund call timed out: its request is over, so the reservation need not wait to be stale before
 * the gateway is asked what became of it; the job runs a minute later (`unanswered` in its payload).
 */
export function enqueueUnansweredRefundReconciliation(trx: Executor, ref: RefundRef, at: Date): Promise<boolean> {
  return enqueueJob(trx, {
    type: RECONCILE_REFUND_JOB,
    payload: { account_id: ref.accountId, refund_uid: ref.refundUid, [UNANSWERED]: true },
    accountId: ref.accountId,
    runAt: new Date(at.getTime() + UNANSWERED_REFUND_DELAY_MS),
    maxAttempts: RECONCILE_REFUND_ATTEMPTS,
    dedupKey: reconcileRefundKey(ref.refundUid, UNANSWERED),
  });
}

export type RefundReconciliation = 'skipped' | 'not_stale' | 'succeeded' | 'failed' | 'recorded_elsewhere';

/**
 * `refunds.reconcile`: a refund reservation still pending once stale, or once its call went unanswered
 * (`unanswered`, a minute after the timeout). The gateway is asked for the refund
 * made under its reference (`findRefund`):
 * - found: the refund succeeds with the gateway's refund id and is recorded like any confirmed refund;
 *   if a webhook already recorded that gateway refund as a row of its own, the reservation is released
 *   instead (the money is counted there);
 * - not found: the gateway never refunded, so the refund fails and its reservation is given back.
 * A gateway that cannot be reached throws (the worker retries); nothing is settled on a guess.
 */
export async function reconcileStaleRefund(
  db: Kysely<DB>,
  deps: GatewayDeps,
  ref: RefundRef,
  now: Date,
  options: { unanswered?: boolean } = {},
): Promise<RefundReconciliation> {
  const refund = await db
    .selectFrom('refunds')
    .selectAll()
    .where('account_id', '=', ref.accountId)
    .where('uid', '=', ref.refundUid)
    .executeTakeFirst();
  if (!refund || refund.status !== 'pending') return 'skipped';
  // A refund whose call went unanswered has no live request left to wait for.
  if (!options.unanswered && now.getTime() - refund.created_at.getTime() < STALE_RESERVATION_MS) {
    await enqueueRefundReconciliation(db, ref, refund.created_at, 1);
    return 'not_stale';
  }
  const payment = await findAccountPayment(db, ref.accountId, refund.payment_id);
  if (!payment?.gateway_id) return 'skipped';
  const gateway = await resolveGateway(
    db,
    deps,
    { accountId: ref.accountId, companyId: payment.company_id },
    payment.gateway,
  );
  const found = await gateway.client.findRefund(gateway.account, payment.gateway_id, refundReference(refund.uid));
  const reservation = {
    uid: refund.uid,
    accountId: ref.accountId,
    paymentId: payment.id,
    amountCents: refund.amount_cents,
    now,
  };
  const event = (type: string, cause: string, data: Record<string, unknown>) => ({
    accountId: ref.accountId,
    orderId: refund.order_id,
    paymentId: payment.id,
    type,
    cause,
    data: { refund_uid: refund.uid, amount_cents: refund.amount_cents, ...data },
    at: now,
  });
  return db.transaction().execute(async (trx): Promise<RefundReconciliation> => {
    const order = await lockPaymentAndOrder(trx, ref.accountId, payment.id, refund.order_id);
    if (!found) {
      if (!(await releaseRefund(trx, reservation))) return 'skipped';
      await appendOrderEvent(
        trx,
        event(
          'refund.failed',
          `reconciliation: the gateway has no refund ${refund.uid}; its reservation is released`,
          {},
        ),
      );
      return 'failed';
    }
    const known = await trx
      .selectFrom('refunds')
      .select('uid')
      .where('account_id', '=', ref.accountId)
      .where('payment_id', '=', payment.id)
      .where('gateway_refund_id', '=', found.refundId)
      .executeTakeFirst();
    if (known) {
      if (!(await releaseRefund(trx, reservation))) return 'skipped';
      await appendOrderEvent(
        trx,
        event(
          'refund.failed',
          `reconciliation: the gateway's refund ${found.refundId} is already recorded as refund ${known.uid}; this reservation is released`,
          { gateway_refund_id: found.refundId },
        ),
      );
      return 'recorded_elsewhere';
    }
    if (!(await markRefundSucceeded(trx, ref.accountId, refund.uid, found.refundId))) return 'skipped';
    const target = {
      accountId: ref.accountId,
      paymentId: payment.id,
      orderId: refund.order_id,
      capturedCents: payment.amount_cents,
    };
    const succeeded = {
      uid: refund.uid,
      amountCents: refund.amount_cents,
      gatewayRefundId: found.refundId,
      type: refund.type,
      refundedAt: refund.refunded_at,
    };
    await recordSucceededRefund(
      trx,
      target,
      order,
      succeeded,
      `reconciliation: refund ${refund.uid} (${refund.type}) of ${refund.amount_cents} cents found at the gateway`,
      now,
    );
    return 'succeeded';
  });
}
