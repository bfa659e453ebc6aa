import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { GatewayName, RemoteStatus } from '../../gateways/port.ts';
import { transitionOrder } from '../orders/order-status.ts';
import { applyPaymentAction } from './gateway-actions.ts';
import { settleOrder } from './order-settlement.ts';
import { resolveGateway, type GatewayDeps } from './pay-gateways.ts';
import { transitionPayment } from './payment-status.ts';

type JobRef = { accountId: string; paymentId: number };

function findPayment(db: Kysely<DB>, ref: JobRef) {
  return db.selectFrom('payments').selectAll().where('account_id', '=', ref.accountId).where('id', '=', ref.paymentId).executeTakeFirst();
}

/**
 * `payments.expire_pix`: a pix still waiting at its expiry is cancelled and its order leaves
 * waiting_payment. A charge (an order with a due date) returns to pending, payable again; a checkout or
 * cart order with no other live attempt is cancelled, since paying again creates a new order.
 */
export async function expirePix(db: Kysely<DB>, ref: JobRef, now: Date): Promise<'expired' | 'skipped'> {
  const payment = await findPayment(db, ref);
  if (!payment || payment.status !== 'waiting_payment' || payment.method !== 'pix' || !payment.pix_expires_at || payment.pix_expires_at > now) return 'skipped';
  return db.transaction().execute(async (trx) => {
    const moved = await transitionPayment(trx, { accountId: ref.accountId, paymentId: payment.id, to: 'cancelled', cause: 'pix expired unpaid', at: now });
    if (!moved.changed) return 'skipped';
    const status = await settleOrder(trx, { accountId: ref.accountId, orderId: payment.order_id, cause: 'pix expired unpaid', paymentId: payment.id, at: now });
    const order = await trx.selectFrom('orders').select(['due_date']).where('id', '=', payment.order_id).executeTakeFirstOrThrow();
    if (status === 'pending' && order.due_date === null) {
      await transitionOrder(trx, { accountId: ref.accountId, orderId: payment.order_id, to: 'cancelled', cause: 'pix expired with no other live attempt', paymentId: payment.id, at: now });
    }
    return 'expired';
  });
}

const ACTION_OF: Partial<Record<RemoteStatus, 'payment_paid' | 'payment_failed' | 'payment_cancelled'>> = {
  paid: 'payment_paid',
  partially_refunded: 'payment_paid',
  failed: 'payment_failed',
  cancelled: 'payment_cancelled',
};

/**
 * `payments.reconcile`: a payment left pending because the gateway did not answer. With a gateway id its
 * status is fetched and applied like a webhook; without one, the gateway never answered the charge call
 * (an error, or a timeout the sandboxes record as no charge), so it is failed and the order freed.
 */
export async function reconcilePayment(db: Kysely<DB>, deps: GatewayDeps, ref: JobRef, now: Date): Promise<string> {
  const payment = await findPayment(db, ref);
  if (!payment || payment.status !== 'pending') return 'skipped';
  if (payment.gateway_id) {
    const gateway = await resolveGateway(db, deps, { accountId: payment.account_id, companyId: payment.company_id }, payment.gateway);
    const remote = await gateway.client.fetchStatus(gateway.account, payment.gateway_id);
    const kind = ACTION_OF[remote];
    if (!kind) return remote;
    const action = kind === 'payment_paid' ? { kind, gatewayId: payment.gateway_id, paidAt: now } : kind === 'payment_failed' ? { kind, gatewayId: payment.gateway_id, reason: 'reconciled' } : { kind, gatewayId: payment.gateway_id };
    await applyPaymentAction(db, { gateway: payment.gateway as GatewayName, action, accountId: payment.account_id, at: now });
    return remote;
  }
  await db.transaction().execute(async (trx) => {
    const moved = await transitionPayment(trx, { accountId: ref.accountId, paymentId: payment.id, to: 'failed', cause: 'reconciliation: the gateway never answered the charge', at: now, set: { failure_code: 'gateway_unavailable' } });
    if (moved.changed) await settleOrder(trx, { accountId: ref.accountId, orderId: payment.order_id, cause: 'reconciliation', paymentId: payment.id, at: now });
  });
  return 'failed';
}
