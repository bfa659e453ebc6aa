import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import type { GatewayName } from '../../../gateways/port.ts';
import type { GatewayDeps } from '../attempts/pay-gateways.ts';
import { createPayOrder } from '../checkout/pay-order.ts';
import { findOrderItems, findPayCompany } from '../payments.repo.ts';
import { recordPendingPayment } from '../attempts/charge.ts';
import {
  findRenewalCard,
  chargeRenewal,
  renewalMethodOf,
  type RenewalAttempt,
  type RenewalOutcome,
  type Subscription,
} from './subscription-attempt.ts';
import { settleRenewalInFlight } from './subscription-in-flight.ts';
import { enqueueRenewal } from './subscriptions.ts';

/** Enqueues the renewal of every subscription that is due (one job per subscription and instant); for the worker's tick. */
export async function scheduleDueRenewals(db: Kysely<DB>, now: Date): Promise<number> {
  const due = await db
    .selectFrom('subscriptions')
    .select(['id', 'account_id', 'next_charge_at'])
    .where('status', 'in', ['active', 'past_due'])
    .where('next_charge_at', '<=', now)
    .limit(500)
    .execute();
  let enqueued = 0;
  for (const row of due) if (await enqueueRenewal(db, row.account_id, row.id, row.next_charge_at!)) enqueued++;
  return enqueued;
}

/**
 * `subscriptions.renew`. With no renewal in flight, a due subscription starts one: the period is claimed
 * (a conditional update clears `next_charge_at`, so one period starts one renewal however many jobs run),
 * a renewal order (`source: 'subscription'`, parent = the original order) and its pending payment are
 * recorded as the subscription's renewal in flight, then the saved card is charged, or a new pix or boleto
 * issued, under the payment's uid (subscription-attempt.ts).
 * With a renewal in flight, the job looks at it when it is due again, or at once when its claim was left
 * by a worker that died (`next_charge_at` still cleared): subscription-in-flight.ts resolves it without
 * ever charging the period under another uid.
 */
export async function renewSubscription(
  db: Kysely<DB>,
  deps: GatewayDeps,
  ref: { accountId: string; subscriptionId: string },
  now: Date,
): Promise<RenewalOutcome> {
  const sub = await db
    .selectFrom('subscriptions')
    .selectAll()
    .where('account_id', '=', ref.accountId)
    .where('id', '=', ref.subscriptionId)
    .executeTakeFirst();
  if (!sub || sub.status === 'cancelled') return 'skipped';
  if (sub.next_charge_at !== null && sub.next_charge_at > now) return 'skipped';
  if (sub.renewal_order_id !== null) return settleRenewalInFlight(db, deps, sub, sub.renewal_order_id, now);
  if (sub.next_charge_at === null) return 'skipped';
  const attempt = await claimPeriod(db, sub, now);
  if (!attempt) return 'skipped';
  return chargeRenewal(db, deps, sub, attempt, now);
}

/** The gateway a renewal is made on: the saved card's, or the one the original pix or boleto used. */
async function renewalGateway(db: Kysely<DB>, sub: Subscription): Promise<GatewayName> {
  if (renewalMethodOf(sub) !== 'credit_card') return (sub.renewal_gateway ?? 'gateway_a') as GatewayName;
  return ((await findRenewalCard(db, sub))?.gateway ?? 'gateway_a') as GatewayName;
}

async function claimPeriod(db: Kysely<DB>, sub: Subscription, now: Date): Promise<RenewalAttempt | undefined> {
  const gateway = await renewalGateway(db, sub);
  const company = await findPayCompany(db, sub.account_id, sub.company_id);
  const items = (await findOrderItems(db, sub.account_id, sub.origin_order_id)).filter((item) => item.subscription);
  return db.transaction().execute(async (trx) => {
    // Still due, so not yet claimed (a claim clears it). Not an equality with the value read above: a
    // timestamp written by SQL has microseconds that the JS Date read back does not, and would never match.
    const taken = await trx
      .updateTable('subscriptions')
      .set({ next_charge_at: null, updated_at: now })
      .where('id', '=', sub.id)
      .where('next_charge_at', '<=', now)
      .where('renewal_order_id', 'is', null)
      .returning('id')
      .executeTakeFirst();
    if (!taken) return undefined;
    const order = await createPayOrder(
      trx,
      {
        accountId: sub.account_id,
        companyId: sub.company_id,
        customerId: sub.customer_id,
        source: 'subscription',
        parentOrderId: sub.origin_order_id,
        paymentPlanId: sub.payment_plan_id,
        lines: items.map((item) => ({
          productId: item.product_id,
          name: item.product_name,
          unitName: item.unit_name,
          quantity: item.quantity,
          unitCents: item.unit_value_cents,
          totalCents: item.total_cents,
          subscription: true,
          interval: item.interval,
          intervalCount: item.cycle,
        })),
        freightCents: 0,
        totalCents: sub.amount_cents,
        discountCents: Math.max(items.reduce((sum, item) => sum + item.total_cents, 0) - sub.amount_cents, 0),
        cause: `subscriptions.renew ${sub.id}`,
      },
      company.time_zone,
      now,
    );
    const payment = await recordPendingPayment(
      trx,
      {
        accountId: sub.account_id,
        companyId: sub.company_id,
        orderId: order.id,
        gateway,
        method: renewalMethodOf(sub),
        planId: sub.payment_plan_id,
        amountCents: sub.amount_cents,
        savedMethodId: renewalMethodOf(sub) === 'credit_card' ? sub.saved_payment_method_id : null,
        cause: 'subscription renewal',
        // A renewal in flight is looked at by its own subscription's job (subscription-in-flight.ts).
        recovery: false,
      },
      now,
    );
    await trx
      .updateTable('subscriptions')
      .set({ renewal_order_id: order.id })
      .where('id', '=', sub.id)
      .returning('id')
      .execute();
    return { order, paymentId: payment.id, uid: payment.uid, gateway };
  });
}
