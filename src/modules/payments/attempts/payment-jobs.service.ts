import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import type { FoundCharge, GatewayName, RemoteStatus } from '../../../gateways/port.ts';
import { enqueueJob } from '../../../queue/outbox.ts';
import { type OrderStatus, PURCHASED_STATUSES } from '../../orders/index.ts';
import { applyPaymentAction } from './gateway-actions.ts';
import { recordVoided } from '../checkout/pay-finish.ts';
import {
  cartPaidByAnotherOrder,
  coveredWithout,
  orderWithPayments,
  settleOrder,
} from '../settlement/order-settlement.ts';
import { adoptGatewayId } from '../payments.repo.ts';
import { payIdempotencyKey } from './pay-gateway-call.ts';
import { resolveGateway, type GatewayDeps, type ResolvedGateway } from './pay-gateways.ts';
import { RECONCILE_JOB } from './payment-record.ts';
import { transitionPayment } from '../settlement/payment-status.ts';
import { cancelUnpaidPayment } from './unpaid-attempt.ts';
import { RECONCILE_RETRY_MS, RECONCILE_WINDOW_MS } from './reconcile-timing.ts';

type JobRef = { accountId: string; paymentId: number };

function findPayment(db: Kysely<DB>, ref: JobRef) {
  return db
    .selectFrom('payments')
    .selectAll()
    .where('account_id', '=', ref.accountId)
    .where('id', '=', ref.paymentId)
    .executeTakeFirst();
}

/**
 * `payments.expire_pix`: a pix still waiting at its expiry is first asked of the gateway. Paid meanwhile
 * (its webhook not applied yet, or lost) → recorded paid. Otherwise it is voided at the gateway, so the
 * buyer can no longer pay it, then cancelled here and its order leaves waiting_payment: a charge (an order
 * with a due date) returns to pending, payable again; a checkout or cart order with no other live attempt
 * is cancelled, since paying again creates a new order. A gateway that cannot be reached throws and the
 * worker retries: nothing is cancelled on a guess.
 */
export async function expirePix(
  db: Kysely<DB>,
  deps: GatewayDeps,
  ref: JobRef,
  now: Date,
): Promise<'expired' | 'paid' | 'skipped'> {
  const payment = await findPayment(db, ref);
  if (
    !payment ||
    payment.status !== 'waiting_payment' ||
    payment.method !== 'pix' ||
    !payment.pix_expires_at ||
    payment.pix_expires_at > now
  )
    return 'skipped';
  if (payment.gateway_id) {
    const gateway = await resolveGateway(
      db,
      deps,
      { accountId: payment.account_id, companyId: payment.company_id },
      payment.gateway,
    );
    if (await paidOrVoidedAtGateway(db, gateway, payment, now)) return 'paid';
  }
  const cancelled = await db
    .transaction()
    .execute((trx) =>
      cancelUnpaidPayment(
        trx,
        { accountId: ref.accountId, paymentId: payment.id, orderId: payment.order_id },
        'pix expired unpaid',
        now,
      ),
    );
  return cancelled ? 'expired' : 'skipped';
}

/**
 * A pix or boleto at its deadline, as the gateway sees it: paid meanwhile → applied as paid here (true);
 * still waiting → voided at the gateway, so a charge we no longer expect cannot be paid (false). A void
 * that races the buyer's payment is the gateway's cancel-or-refund, so no money stays on a cancelled order.
 */
export async function paidOrVoidedAtGateway(
  db: Kysely<DB>,
  gateway: ResolvedGateway,
  payment: PaymentRow,
  now: Date,
): Promise<boolean> {
  const gatewayId = payment.gateway_id!;
  const status = await gateway.client.fetchStatus(gateway.account, gatewayId);
  if (status === 'paid' || status === 'partially_refunded') {
    // A pix or boleto names no card to keep, so nothing needs sealing.
    await applyRemoteStatus(db, undefined, payment, { gatewayId, status }, now);
    return true;
  }
  if (status === 'waiting_payment' || status === 'pending')
    await gateway.client.voidCharge(gateway.account, gatewayId, `void:${payment.uid}`);
  return false;
}

/**
 * `payments.void_orphan_capture`: money settled on an order that cannot keep it is voided at the gateway
 * (cancel or full refund, under the same key as the pay request's own compensation) and recorded refunded:
 * - a card captured on an order its attempt can no longer pay (still `pending`, no attempt live);
 * - an overpayment: a payment settled on an order its other payments already paid (a charge's pix paid after
 *   the buyer paid it by card);
 * - a payment settled on an order of a cart another order bought first (the earlier order's pix paid after the
 *   buyer paid the cart by card): once given back, that order is cancelled.
 * Skipped when none holds any more or the payment moved meanwhile; a gateway error throws and the worker retries.
 */
export async function voidOrphanCapture(
  db: Kysely<DB>,
  deps: GatewayDeps,
  ref: JobRef,
  now: Date,
): Promise<'voided' | 'skipped'> {
  const payment = await findPayment(db, ref);
  if (!payment || payment.status !== 'paid' || !payment.gateway_id) return 'skipped';
  const reason = await whyNotKept(db, ref.accountId, payment);
  if (!reason) return 'skipped';
  const gateway = await resolveGateway(
    db,
    deps,
    { accountId: payment.account_id, companyId: payment.company_id },
    payment.gateway,
  );
  await gateway.client.voidCharge(gateway.account, payment.gateway_id, `void:${payment.uid}`);
  const why =
    reason === 'cart_bought'
      ? 'paid on an order of a cart another order bought'
      : payment.method === 'credit_card'
        ? 'captured on an order that cannot keep it'
        : 'paid on an order that cannot keep it';
  await recordVoided(
    db,
    { accountId: ref.accountId, paymentId: payment.id, orderId: payment.order_id, amountCents: payment.amount_cents },
    `${why}: voided at the gateway`,
    now,
    { cancelOrder: reason === 'cart_bought' },
  );
  return 'voided';
}

/**
 * Why the order of a settled payment cannot keep its money: pending with nothing live, paid by its other
 * payments, or of a cart another order bought; undefined when it can.
 */
async function whyNotKept(
  db: Kysely<DB>,
  accountId: string,
  payment: PaymentRow,
): Promise<'orphan' | 'overpaid' | 'cart_bought' | undefined> {
  const { order, payments } = await orderWithPayments(db, accountId, payment.order_id);
  // First, as it also ends the order: a capture on an order of a cart another order bought (two buyers' cards at once).
  if (
    !PURCHASED_STATUSES.includes(order.status as OrderStatus) &&
    (await cartPaidByAnotherOrder(db, accountId, payment.order_id, order.cart_id))
  )
    return 'cart_bought';
  if (
    order.status === 'pending' &&
    !payments.some((other) => other.status === 'pending' || other.status === 'waiting_payment')
  )
    return 'orphan';
  if (order.status !== 'pending' && coveredWithout(order, payments, payment.id)) return 'overpaid';
  return undefined;
}

/**
 * `payments.void_superseded`: a pix or boleto still payable on an order another payment paid, or on an
 * earlier order of a cart another order paid. The gateway is asked first: paid meanwhile → recorded paid (on
 * the same order, the settlement then queues its refund as an overpayment); otherwise voided there and
 * cancelled here (a cart's earlier order with it), so the buyer cannot pay twice. Skipped when the attempt is
 * no longer waiting or nothing else paid for it.
 */
export async function voidSupersededAttempt(
  db: Kysely<DB>,
  deps: GatewayDeps,
  ref: JobRef,
  now: Date,
): Promise<'cancelled' | 'paid' | 'skipped'> {
  const payment = await findPayment(db, ref);
  if (!payment || payment.status !== 'waiting_payment') return 'skipped';
  const { order, payments } = await orderWithPayments(db, ref.accountId, payment.order_id);
  const sameOrder = coveredWithout(order, payments, payment.id);
  if (!sameOrder && !(await cartPaidByAnotherOrder(db, ref.accountId, payment.order_id, order.cart_id)))
    return 'skipped';
  if (payment.gateway_id) {
    const gateway = await resolveGateway(
      db,
      deps,
      { accountId: payment.account_id, companyId: payment.company_id },
      payment.gateway,
    );
    if (await paidOrVoidedAtGateway(db, gateway, payment, now)) return 'paid';
  }
  const cause = sameOrder
    ? 'superseded: the order was paid by another payment'
    : 'superseded: the cart was paid by another order';
  // A cart's earlier order has nothing else to wait for, so it is cancelled with its attempt.
  const cancelled = await db
    .transaction()
    .execute((trx) =>
      cancelUnpaidPayment(
        trx,
        { accountId: ref.accountId, paymentId: payment.id, orderId: payment.order_id },
        cause,
        now,
      ),
    );
  return cancelled ? 'cancelled' : 'skipped';
}

const ACTION_OF: Partial<Record<RemoteStatus, 'payment_paid' | 'payment_failed' | 'payment_cancelled'>> = {
  paid: 'payment_paid',
  partially_refunded: 'payment_paid',
  failed: 'payment_failed',
  cancelled: 'payment_cancelled',
};

export type PaymentRow = NonNullable<Awaited<ReturnType<typeof findPayment>>>;

/**
 * `payments.reconcile`: a payment left pending because the gateway did not answer its charge call.
 * - With a gateway id, its status is fetched and applied like a webhook.
 * - Without one (the call timed out or failed before the answer), the gateway is asked for the charge our
 *   references made (`findCharge`: payment uid, idempotency key). A charge found gets its gateway id and
 *   status applied: a capture we never heard back from is never failed.
 * - No charge at the gateway: after a 5xx (the gateway said it failed) the payment is failed and its order
 *   freed at once; after a timeout the gateway may still be working, so the payment stays pending and is
 *   asked about again every 5 minutes, and failed once 30 minutes have passed since it was created.
 * A gateway that cannot be reached throws, so the worker retries with backoff; nothing is failed on a guess.
 */
export async function reconcilePayment(db: Kysely<DB>, deps: GatewayDeps, ref: JobRef, now: Date): Promise<string> {
  const payment = await findPayment(db, ref);
  if (!payment || payment.status !== 'pending') return 'skipped';
  const gateway = await resolveGateway(
    db,
    deps,
    { accountId: payment.account_id, companyId: payment.company_id },
    payment.gateway,
  );
  const found = payment.gateway_id
    ? await gateway.client.fetchCharge(gateway.account, payment.gateway_id)
    : await gateway.client.findCharge(gateway.account, {
        paymentUid: payment.uid,
        idempotencyKey: payIdempotencyKey(payment.uid),
      });
  const withinWindow = now.getTime() - payment.created_at.getTime() < RECONCILE_WINDOW_MS;
  const askAgain = () => {
    const runAt = new Date(now.getTime() + RECONCILE_RETRY_MS);
    return enqueueJob(db, {
      type: RECONCILE_JOB,
      payload: { account_id: ref.accountId, payment_id: ref.paymentId },
      accountId: ref.accountId,
      runAt,
      dedupKey: `${RECONCILE_JOB}:${ref.paymentId}:${runAt.toISOString()}`,
    });
  };
  if (found) {
    const settled = await applyRemoteStatus(db, deps.masterKey, payment, found, now);
    // A charge the gateway is still processing is asked about again; it is never failed from here.
    if (!settled && withinWindow) await askAgain();
    return found.status;
  }
  if ((await unavailableReason(db, ref)) !== 'error' && withinWindow) {
    await askAgain();
    return 'pending';
  }
  await db.transaction().execute(async (trx) => {
    const moved = await transitionPayment(trx, {
      accountId: ref.accountId,
      paymentId: payment.id,
      to: 'failed',
      cause: 'reconciliation: the gateway has no charge for this payment',
      at: now,
      set: { failure_code: 'gateway_unavailable' },
    });
    if (moved.changed)
      await settleOrder(trx, {
        accountId: ref.accountId,
        orderId: payment.order_id,
        cause: 'reconciliation',
        paymentId: payment.id,
        at: now,
      });
  });
  return 'failed';
}

/**
 * `payments.recover_intent`: the safety net of an intent whose process died before recording any answer
 * from the gateway. A payment answered since is skipped (settled, or left pending by a timeout or error,
 * which has its own reconciliation); an orphan is reconciled: the gateway is asked for the charge our
 * references made, a capture found is applied, and a charge never made is failed once the window passes.
 */
export async function recoverIntent(db: Kysely<DB>, deps: GatewayDeps, ref: JobRef, now: Date): Promise<string> {
  const payment = await findPayment(db, ref);
  if (!payment || payment.status !== 'pending' || payment.gateway_id) return 'skipped';
  if ((await unavailableReason(db, ref)) !== undefined) return 'skipped';
  return reconcilePayment(db, deps, ref, now);
}

/**
 * Records the gateway id a lookup found, then applies the charge's status in the same transaction; false when the
 * status settles nothing yet. A capture applied as paid keeps the card the lookup names when its pay request asked
 * for it (`keepLateCard`, sealed with `masterKey`).
 */
export async function applyRemoteStatus(
  db: Kysely<DB>,
  masterKey: Buffer | undefined,
  payment: PaymentRow,
  found: FoundCharge,
  now: Date,
): Promise<boolean> {
  const kind = ACTION_OF[found.status];
  await db.transaction().execute(async (trx) => {
    if (!payment.gateway_id)
      await adoptGatewayId(
        trx,
        payment,
        {
          gatewayId: found.gatewayId,
          how: 'reconciliation found the charge by its reference',
          data: { remote_status: found.status },
        },
        now,
      );
    if (!kind) return;
    const gatewayId = found.gatewayId;
    const paid = {
      kind: 'payment_paid' as const,
      gatewayId,
      paidAt: now,
      ...(found.savedMethod ? { savedMethod: found.savedMethod } : {}),
    };
    const action =
      kind === 'payment_paid'
        ? paid
        : kind === 'payment_failed'
          ? { kind, gatewayId, reason: 'reconciled' }
          : { kind, gatewayId };
    await applyPaymentAction(trx, {
      gateway: payment.gateway as GatewayName,
      action,
      accountId: payment.account_id,
      at: now,
      masterKey,
    });
  });
  return kind !== undefined;
}

/** Why the charge call got no answer, as the answer's record says: `timeout` (it may have charged) or `error`. */
async function unavailableReason(db: Kysely<DB>, ref: JobRef): Promise<string | undefined> {
  const event = await db
    .selectFrom('order_events')
    .select('data')
    .where('account_id', '=', ref.accountId)
    .where('payment_id', '=', ref.paymentId)
    .where('type', '=', 'payment.gateway_unavailable')
    .orderBy('id', 'desc')
    .executeTakeFirst();
  const reason = (event?.data as { reason?: unknown } | undefined)?.reason;
  return typeof reason === 'string' ? reason : undefined;
}
