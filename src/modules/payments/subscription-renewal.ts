import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { GatewayName } from '../../gateways/port.ts';
import { unseal } from '../../lib/crypto.ts';
import { notifySubscription } from '../notifications/notify.ts';
import { appendOrderEvent } from '../orders/order-events.repo.ts';
import { submitToGateway, type GatewayAnswer } from './pay-gateway-call.ts';
import { resolveGateway, type GatewayDeps } from './pay-gateways.ts';
import { createPayOrder } from './pay-order.ts';
import { findOrderItems, findPayCompany, insertPaymentRow } from './pay.repo.ts';
import { recordGatewayAnswer } from './payment-record.ts';
import { addInterval, enqueueRenewal, type Interval } from './subscriptions.ts';

/** A failed renewal is retried this many days after each failure; after the last one the subscription is cancelled. */
export const RENEWAL_RETRY_DAYS = [1, 3, 5] as const;

/** Enqueues the renewal of every subscription that is due (one job per subscription and period); for the worker's tick. */
export async function scheduleDueRenewals(db: Kysely<DB>, now: Date): Promise<number> {
  const due = await db.selectFrom('subscriptions').select(['id', 'account_id', 'next_charge_at']).where('status', 'in', ['active', 'past_due']).where('next_charge_at', '<=', now).limit(500).execute();
  let enqueued = 0;
  for (const row of due) if (await enqueueRenewal(db, row.account_id, row.id, row.next_charge_at!)) enqueued++;
  return enqueued;
}

type Claimed = { order: { id: number; uid: string }; paymentId: number; uid: string };

/**
 * The renewal a worker claimed and then died before recording (its lease expired and the job runs again):
 * the period is claimed (`next_charge_at` cleared) and its renewal payment is still pending.
 */
async function findStrandedRenewal(db: Kysely<DB>, sub: { account_id: string; origin_order_id: number }): Promise<Claimed | undefined> {
  const row = await db
    .selectFrom('payments as p')
    .innerJoin('orders as o', 'o.id', 'p.order_id')
    .select(['o.id as orderId', 'o.uid as orderUid', 'p.id as paymentId', 'p.uid'])
    .where('o.account_id', '=', sub.account_id)
    .where('o.parent_order_id', '=', sub.origin_order_id)
    .where('o.source', '=', 'subscription')
    .where('p.status', '=', 'pending')
    .orderBy('p.id', 'desc')
    .executeTakeFirst();
  return row ? { order: { id: row.orderId, uid: row.orderUid }, paymentId: row.paymentId, uid: row.uid } : undefined;
}

/**
 * `subscriptions.renew`: charges a due subscription with its saved card. The period is claimed first
 * (a conditional update clears `next_charge_at`), so one period is charged once however many jobs run.
 * A renewal order (`source: 'subscription'`, parent = the original order) records the attempt; paid moves
 * the period on, a failure is retried after 1, 3 and 5 days and then cancels the subscription.
 * A claimed period whose worker died before recording the answer is charged again under the same payment
 * uid: the gateway's idempotency key replays a charge it already made instead of making a second one.
 */
export async function renewSubscription(db: Kysely<DB>, deps: GatewayDeps, ref: { accountId: string; subscriptionId: string }, now: Date): Promise<'renewed' | 'failed' | 'cancelled' | 'skipped'> {
  const sub = await db.selectFrom('subscriptions').selectAll().where('account_id', '=', ref.accountId).where('id', '=', ref.subscriptionId).executeTakeFirst();
  if (!sub || sub.status === 'cancelled') return 'skipped';
  const stranded = sub.next_charge_at === null ? await findStrandedRenewal(db, sub) : undefined;
  if (!stranded && (!sub.next_charge_at || sub.next_charge_at > now)) return 'skipped';
  const method = sub.saved_payment_method_id
    ? await db.selectFrom('saved_payment_methods').select(['gateway', 'gateway_reference_encrypted']).where('account_id', '=', sub.account_id).where('id', '=', sub.saved_payment_method_id).where('revoked_at', 'is', null).executeTakeFirst()
    : undefined;
  const company = await findPayCompany(db, sub.account_id, sub.company_id);
  const customer = await db.selectFrom('customers').selectAll().where('account_id', '=', sub.account_id).where('id', '=', sub.customer_id).executeTakeFirstOrThrow();
  const items = (await findOrderItems(db, sub.account_id, sub.origin_order_id)).filter((item) => item.subscription);
  const claimed: Claimed | undefined = stranded ?? await db.transaction().execute(async (trx) => {
    // Still due, so not yet claimed (a claim clears it). Not an equality with the value read above: a
    // timestamp written by SQL has microseconds that the JS Date read back does not, and would never match.
    const taken = await trx.updateTable('subscriptions').set({ next_charge_at: null, updated_at: now }).where('id', '=', sub.id).where('next_charge_at', '<=', now).returning('id').executeTakeFirst();
    if (!taken) return undefined;
    const order = await createPayOrder(trx, {
      accountId: sub.account_id,
      companyId: sub.company_id,
      customerId: sub.customer_id,
      source: 'subscription',
      parentOrderId: sub.origin_order_id,
      paymentPlanId: sub.payment_plan_id,
      lines: items.map((item) => ({ productId: item.product_id, name: item.product_name, unitName: item.unit_name, quantity: item.quantity, unitCents: item.unit_value_cents, totalCents: item.total_cents, subscription: true, interval: item.interval, intervalCount: item.cycle })),
      freightCents: 0,
      totalCents: sub.amount_cents,
      discountCents: Math.max(items.reduce((sum, item) => sum + item.total_cents, 0) - sub.amount_cents, 0),
      cause: `subscriptions.renew ${sub.id}`,
    }, company.time_zone, now);
    const uid = crypto.randomUUID();
    const paymentId = await insertPaymentRow(trx, {
      uid, account_id: sub.account_id, company_id: sub.company_id, order_id: order.id, gateway: method?.gateway ?? 'gateway_a', method: 'credit_card', status: 'pending',
      payment_plan_id: sub.payment_plan_id, installments: 1, amount_cents: sub.amount_cents, installment_value_cents: sub.amount_cents, saved_payment_method_id: sub.saved_payment_method_id, created_at: now, updated_at: now,
    });
    await appendOrderEvent(trx, { accountId: sub.account_id, orderId: order.id, paymentId, type: 'payment.created', cause: 'subscription renewal', toStatus: 'pending', at: now });
    return { order, paymentId, uid };
  });
  if (!claimed) return 'skipped';
  let answer: GatewayAnswer = { kind: 'refused', code: 'no_saved_method', message: 'The subscription has no saved card' };
  if (method) {
    const gateway = await resolveGateway(db, deps, { accountId: sub.account_id, companyId: sub.company_id }, method.gateway);
    answer = await submitToGateway(gateway, {
      paymentUid: claimed.uid, method: 'credit_card', amountCents: sub.amount_cents, installments: 1,
      card: { savedReference: unseal(deps.masterKey, method.gateway_reference_encrypted), saveForLater: false },
      buyer: { name: customer.name, email: customer.email, document: customer.identification, phone: customer.phone },
      description: `${company.name} subscription ${sub.id}`,
      metadata: { companyId: sub.company_id, orderUid: claimed.order.uid, paymentUid: claimed.uid },
    });
  }
  return db.transaction().execute(async (trx) => {
    // A resumed renewal may race the worker it took over from: whoever records first moves the period.
    const current = await trx.selectFrom('subscriptions').select('next_charge_at').where('id', '=', sub.id).forUpdate().executeTakeFirstOrThrow();
    if (current.next_charge_at !== null) return 'skipped';
    const payment = { id: claimed.paymentId, uid: claimed.uid, accountId: sub.account_id, companyId: sub.company_id, orderId: claimed.order.id, customerId: sub.customer_id, gateway: (method?.gateway ?? 'gateway_a') as GatewayName };
    await recordGatewayAnswer(trx, deps.masterKey, payment, answer, now);
    if (answer.kind === 'paid') {
      const start = sub.current_period_end;
      const end = addInterval(start, sub.interval as Interval, sub.interval_count);
      await trx.updateTable('subscriptions').set({ status: 'active', failed_attempts: 0, current_period_start: start, current_period_end: end, next_charge_at: end, updated_at: now }).where('id', '=', sub.id).returning('id').execute();
      await enqueueRenewal(trx, sub.account_id, sub.id, end);
      await notifySubscription(trx, { accountId: sub.account_id, orderId: claimed.order.id, subscriptionId: sub.id, type: 'subscription.renewed', at: now });
      return 'renewed';
    }
    const attempts = sub.failed_attempts + 1;
    const retryDays = RENEWAL_RETRY_DAYS[attempts - 1];
    if (retryDays === undefined) {
      await trx.updateTable('subscriptions').set({ status: 'cancelled', failed_attempts: attempts, cancelled_at: now, next_charge_at: null, updated_at: now }).where('id', '=', sub.id).returning('id').execute();
      await notifySubscription(trx, { accountId: sub.account_id, orderId: claimed.order.id, subscriptionId: sub.id, type: 'subscription.cancelled', at: now });
      return 'cancelled';
    }
    const retryAt = new Date(now.getTime() + retryDays * 86_400_000);
    await trx.updateTable('subscriptions').set({ status: 'past_due', failed_attempts: attempts, next_charge_at: retryAt, updated_at: now }).where('id', '=', sub.id).returning('id').execute();
    await enqueueRenewal(trx, sub.account_id, sub.id, retryAt);
    return 'failed';
  });
}
