import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { CouponRule } from '../pricing/index.ts';

export type CouponRefusal = 'not_found' | 'expired' | 'exhausted' | 'not_applicable';

const MESSAGES: Record<CouponRefusal, string> = {
  not_found: 'Coupon not found',
  expired: 'Coupon has expired',
  exhausted: 'Coupon has reached its usage limit',
  not_applicable: 'Coupon does not apply to these products',
};

export class CouponError extends Error {
  constructor(readonly reason: CouponRefusal) {
    super(MESSAGES[reason]);
    this.name = 'CouponError';
  }
}

export type UsableCoupon = {
  id: number;
  code: string;
  rule: CouponRule;
  percentage: number | null;
  amountCents: number | null;
};

export type CouponScope = { accountId: string; companyId: number };

/**
 * The company's coupon with this code (matched case-insensitively) when it is live, not exhausted and
 * applies to every one of `productIds` (a coupon with a product restriction applies only to those).
 * Usage is only checked here; a payment claims a use with a conditional update when it succeeds.
 */
export async function findUsableCoupon(
  db: Kysely<DB>,
  scope: CouponScope,
  code: string,
  productIds: readonly number[],
  now: Date,
): Promise<UsableCoupon> {
  return usableCoupon(await findCoupon(db, scope, code), productIds, now);
}

export type CouponRow = NonNullable<Awaited<ReturnType<typeof findCoupon>>>;

/** The kept coupon with this code, with its product restriction (ids; empty when unrestricted). */
export function findCoupon(db: Kysely<DB>, scope: CouponScope, code: string) {
  return (
    db
      .selectFrom('coupons')
      .select(['id', 'code', 'type', 'percentage', 'amount_cents', 'expires_at', 'usage_limit', 'used_count'])
      // The product restriction comes in the same round trip: this lookup sits on every priced request.
      .select((eb) =>
        eb
          .selectFrom('coupon_products')
          .select(sql<number[]>`coalesce(json_agg(product_id), '[]'::json)`.as('ids'))
          .where('coupon_products.account_id', '=', scope.accountId)
          .whereRef('coupon_products.coupon_id', '=', 'coupons.id')
          .as('restricted_product_ids'),
      )
      .where('account_id', '=', scope.accountId)
      .where('company_id', '=', scope.companyId)
      .where('code', '=', code.trim().toUpperCase())
      .where('deleted_at', 'is', null)
      .executeTakeFirst()
  );
}

/** The rules of `findUsableCoupon` on a coupon already read (`undefined`: no such coupon). */
export function usableCoupon(
  coupon: CouponRow | undefined,
  productIds: readonly (number | null)[],
  now: Date,
): UsableCoupon {
  if (!coupon) throw new CouponError('not_found');
  if (coupon.expires_at && coupon.expires_at <= now) throw new CouponError('expired');
  if (coupon.usage_limit !== null && coupon.used_count >= coupon.usage_limit) throw new CouponError('exhausted');
  const restricted = (coupon.restricted_product_ids ?? []).map(Number);
  if (restricted.length) {
    const allowed = new Set(restricted);
    // A line that is no catalog product (a cart item named by the merchant: `null`) is covered by no restriction.
    if (productIds.length === 0 || productIds.some((id) => id === null || !allowed.has(id)))
      throw new CouponError('not_applicable');
  }
  const rule: CouponRule =
    coupon.type === 'percentage'
      ? { type: 'percentage', percentage: coupon.percentage! }
      : { type: 'price', amountCents: coupon.amount_cents! };
  return { id: coupon.id, code: coupon.code, rule, percentage: coupon.percentage, amountCents: coupon.amount_cents };
}
