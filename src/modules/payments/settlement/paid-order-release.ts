import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import { enqueueJob } from '../../../queue/outbox.ts';
import { appendOrderEvent, findProducts } from '../../orders/index.ts';
import { findOrderItems, findPaymentsOfOrder } from '../payments.repo.ts';
import { completeRenewalOfOrder } from '../subscriptions/subscription-periods.ts';
import { periodOf, startSubscription, type RenewalMethod } from '../subscriptions/subscriptions.ts';
import { ensureUpsellOffer, type OfferRow } from './upsell-offer-token.ts';

/** Releases what a paid order unlocks once its payment is confirmed later (pix, boleto, a reconciled card). */
export const RELEASE_PAID_ORDER_JOB = 'payments.release_paid_order';

type Line = { subscription: boolean; interval: string | null; intervalCount?: number | null; cycle?: number | null };

export type PaidOrderRelease = {
  accountId: string;
  companyId: number;
  orderId: number;
  customerId: number;
  lines: Line[];
  planId: number | null;
  upsellProductId: number | null;
  now: Date;
};

/**
 * What a paid order unlocks, once whoever gets here first: the subscription of its subscription products
 * (unique per origin order) and, on a page with an upsell product still sold at a price, its offer (unique
 * per order).
 * Runs in the caller's transaction; returns the offer when the order has one.
 */
export async function releasePaidOrder(
  trx: Kysely<DB>,
  input: PaidOrderRelease,
): Promise<{ offer?: OfferRow & { created: boolean }; subscriptionStarted: boolean }> {
  let subscriptionStarted = false;
  const period = input.lines.map(periodOf).find((found) => found !== undefined);
  if (period) {
    const subscribedCents = (await findOrderItems(trx, input.accountId, input.orderId))
      .filter((item) => item.subscription)
      .reduce((sum, item) => sum + item.total_cents, 0);
    const paid = (await findPaymentsOfOrder(trx, input.accountId, input.orderId)).filter(
      (payment) => payment.status === 'paid',
    );
    const savedMethodId = paid.find((payment) => payment.saved_payment_method_id)?.saved_payment_method_id ?? null;
    // A pix or boleto leaves no card to renew with: each period is renewed by a new one on the same gateway.
    const slip =
      savedMethodId === null
        ? paid.find((payment) => payment.method === 'pix' || payment.method === 'bank_slip')
        : undefined;
    subscriptionStarted = await startSubscription(trx, {
      accountId: input.accountId,
      companyId: input.companyId,
      customerId: input.customerId,
      orderId: input.orderId,
      savedMethodId,
      renewal: slip
        ? { method: slip.method as RenewalMethod, gateway: slip.gateway }
        : { method: 'credit_card', gateway: null },
      planId: input.planId,
      amountCents: subscribedCents,
      interval: period.interval,
      intervalCount: period.count,
      now: input.now,
    });
  }
  if (input.upsellProductId === null) return { subscriptionStarted };
  // No offer that could only be refused: the product must still be sold, and have a price to charge.
  const [product] = await findProducts(trx, input.accountId, [input.upsellProductId]);
  if (!product || product.value_cents <= 0) return { subscriptionStarted };
  const offer = await ensureUpsellOffer(trx, {
    accountId: input.accountId,
    orderId: input.orderId,
    productId: input.upsellProductId,
    now: input.now,
  });
  return { offer, subscriptionStarted };
}

/** Queued in the transaction that confirms an order's payment; one live job per order. */
export function enqueuePaidOrderRelease(trx: Kysely<DB>, accountId: string, orderId: number): Promise<boolean> {
  return enqueueJob(trx, {
    type: RELEASE_PAID_ORDER_JOB,
    payload: { account_id: accountId, order_id: orderId },
    accountId,
    dedupKey: `${RELEASE_PAID_ORDER_JOB}:${orderId}`,
  });
}

/**
 * `payments.release_paid_order`: an order confirmed paid after its pay request answered gets what a card
 * paid at once gets in that request. Only an order still paid is released (a refund or chargeback that
 * came first leaves nothing to release); a renewal order renews its subscription's period (when it is
 * still the renewal in flight) and never starts another subscription; only a checkout page's upsell
 * product makes an offer.
 */
export async function releaseConfirmedOrder(
  db: Kysely<DB>,
  ref: { accountId: string; orderId: number },
  now: Date,
): Promise<'released' | 'skipped'> {
  return db.transaction().execute(async (trx) => {
    const order = await trx
      .selectFrom('orders as o')
      .leftJoin('checkout_pages as cp', (join) =>
        join.onRef('cp.id', '=', 'o.checkout_page_id').onRef('cp.account_id', '=', 'o.account_id'),
      )
      .select([
        'o.id',
        'o.company_id',
        'o.customer_id',
        'o.status',
        'o.source',
        'o.parent_order_id',
        'o.payment_plan_id',
        'cp.upsell_product_id',
      ])
      .where('o.account_id', '=', ref.accountId)
      .where('o.id', '=', ref.orderId)
      .forUpdate('o')
      .executeTakeFirst();
    if (!order || (order.status !== 'paid' && order.status !== 'billed') || order.customer_id === null)
      return 'skipped';
    // A renewal order paid later (a pix or boleto confirmed, a card charge found by reconciliation) renews its subscription.
    const renewed =
      order.source === 'subscription' &&
      order.parent_order_id !== null &&
      (await completeRenewalOfOrder(trx, ref.accountId, order.parent_order_id, order.id, now));
    const lines = order.source === 'subscription' ? [] : await findOrderItems(trx, ref.accountId, order.id);
    const released = await releasePaidOrder(trx, {
      accountId: ref.accountId,
      companyId: order.company_id,
      orderId: order.id,
      customerId: order.customer_id,
      lines,
      planId: order.payment_plan_id,
      upsellProductId: order.source === 'checkout_page' ? order.upsell_product_id : null,
      now,
    });
    if (released.subscriptionStarted || released.offer?.created || renewed) {
      await appendOrderEvent(trx, {
        accountId: ref.accountId,
        orderId: order.id,
        type: 'order.released',
        cause: 'payment confirmed after the pay request',
        data: {
          subscription_started: released.subscriptionStarted,
          ...(renewed ? { subscription_renewed: true } : {}),
          ...(released.offer?.created ? { upsell_offer_id: released.offer.id } : {}),
        },
        at: now,
      });
    }
    return 'released';
  });
}
