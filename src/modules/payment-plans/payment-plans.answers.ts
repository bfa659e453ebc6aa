import type { Static } from 'typebox';
import type { CouponRow } from '../coupons/index.ts';
import type { PricingContext, PricingQuery } from './payment-plans.context.ts';
import type { CachedPricingReads } from './payment-plans.reads.ts';
import type { PaymentPlanOptionsSchema } from './payment-plans.schemas.ts';

export type PlanOptionsView = Static<typeof PaymentPlanOptionsSchema>;

type RememberedAnswer = { view: PlanOptionsView; coupon: CouponRow | undefined };

/** A page's snapshot lives one second; this bounds what one snapshot may remember meanwhile. */
export const MAX_ANSWERS_PER_SNAPSHOT = 1_000;

/**
 * The answer of `GET /payment_plans` for a checkout page is a pure function of the page's cached
 * snapshot (page, products, plans), the cached coupon row and the query; only coupon expiry depends on
 * the time. So an answer is remembered on the snapshot it was priced from and dies with it (at most
 * PAGE_CACHE_TTL_MS), is dropped as soon as the coupon cache holds another row for its code, and is
 * recomputed once its coupon has expired. Failures are never remembered. Other contexts (carts,
 * charges, cart pages, no context) are always computed.
 */
export function rememberedAnswers(reads: CachedPricingReads) {
  return async function answer(
    context: PricingContext,
    query: PricingQuery,
    now: Date,
    compute: () => Promise<PlanOptionsView>,
  ): Promise<PlanOptionsView> {
    if (context.kind !== 'checkout_page') return compute();
    const snapshot = await reads.pageSnapshot(context.pageId);
    if (!snapshot) return compute();
    const answers = snapshot.answers as Map<string, RememberedAnswer>;
    const key = answerKey(query);
    const coupon =
      query.coupon !== undefined && query.coupon.trim() !== '' ? await reads.coupon(context, query.coupon) : undefined;
    const known = answers.get(key);
    if (known && known.coupon === coupon && couponLive(coupon, now)) return known.view;
    const view = await compute();
    if (answers.size < MAX_ANSWERS_PER_SNAPSHOT) answers.set(key, { view, coupon });
    return view;
  };
}

/** Everything of the query a checkout page's answer depends on (the page itself is the snapshot). */
function answerKey(query: PricingQuery): string {
  return JSON.stringify([query.coupon ?? null, query.amount ?? null, query.products ?? null]);
}

function couponLive(coupon: CouponRow | undefined, now: Date): boolean {
  return !coupon?.expires_at || coupon.expires_at > now;
}
