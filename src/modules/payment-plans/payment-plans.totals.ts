import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { assertWithinAmountLimit } from '../../http/amount-limits.ts';
import { businessRule, validationFailed, type FieldError } from '../../http/errors.ts';
import { hasAtMostTwoDecimals, toCents } from '../../lib/money.ts';
import { CouponError, usableCoupon } from '../coupons/index.ts';
import {
  couponDiscount,
  orderAmounts,
  overdueCharges,
  type OverdueCharges,
  type PricedLine,
  todayInTimeZone,
} from '../pricing/index.ts';
import type { PricingContext, PricingQuery } from './payment-plans.context.ts';
import type { PricingReads } from './payment-plans.reads.ts';
import { findPlanTerms, listCartItems, listCompanyProducts } from './payment-plans.repo.ts';

export type AppliedCoupon = { id: number; code: string; discountCents: number };

/** The amount the installment options are computed on, and how it was reached. */
export type ContextTotal = {
  baseCents: number;
  coupon?: AppliedCoupon;
  overdue?: OverdueCharges;
  amountOverride: boolean;
};

/**
 * The context's total in cents: products (with a valid coupon) for a checkout page, a cart page with
 * products or no context; the cart's items (or override) less a coupon, plus freight; the charge's
 * total not yet paid plus fine and late interest on it. `amount` then replaces it, after everything sent was validated.
 */
export async function contextTotal(
  db: Kysely<DB>,
  reads: PricingReads,
  context: PricingContext,
  query: PricingQuery,
  now: Date,
): Promise<ContextTotal> {
  const computed = await computedTotal(db, reads, context, query, now);
  // Products times quantities on a page can add up past what one order may amount to (and a boleto can carry).
  // A charge's fine and late interest are not: an overdue charge stays payable, by the options that fit.
  assertWithinAmountLimit('The total to pay', [
    { field: 'total', cents: computed.baseCents - (computed.overdue?.extraCents ?? 0) },
  ]);
  if (query.amount === undefined) return { ...computed, amountOverride: false };
  if (!hasAtMostTwoDecimals(query.amount)) throw validationFailed('amount has more than two decimals');
  return { ...computed, baseCents: toCents(query.amount), amountOverride: true };
}

async function computedTotal(
  db: Kysely<DB>,
  reads: PricingReads,
  context: PricingContext,
  query: PricingQuery,
  now: Date,
): Promise<Omit<ContextTotal, 'amountOverride'>> {
  const requested = requestedLines(query.products);
  if (context.kind === 'charge') return chargeTotal(db, context, now);
  if (context.kind === 'cart') {
    const items = await listCartItems(db, context.accountId, context.cartId);
    const itemsCents = context.totalOverrideCents ?? items.reduce((sum, item) => sum + item.total_cents, 0);
    const productIds = [...new Set(items.map((item) => item.product_id))];
    const coupon = await applicableCoupon(reads, context, query.coupon, productIds, itemsCents, now);
    return {
      baseCents: itemsCents - (coupon?.discountCents ?? 0) + context.freightCents,
      ...(coupon ? { coupon } : {}),
    };
  }
  if (requested.length === 0) return { baseCents: 0 }; // a cart page priced by `amount` alone
  const { subtotalCents } = orderAmounts(await pricedLines(db, reads, context, requested, query.productField), 0);
  const coupon = await applicableCoupon(
    reads,
    context,
    query.coupon,
    requested.map((line) => line.productId),
    subtotalCents,
    now,
  );
  return { baseCents: subtotalCents - (coupon?.discountCents ?? 0), ...(coupon ? { coupon } : {}) };
}

async function chargeTotal(db: Kysely<DB>, context: Extract<PricingContext, { kind: 'charge' }>, now: Date) {
  const terms = context.planId === null ? undefined : await findPlanTerms(db, context.accountId, context.planId);
  if (!terms) return { baseCents: context.owedCents };
  const overdue = overdueCharges({
    totalCents: context.owedCents,
    dueDate: context.dueDate,
    today: todayInTimeZone(now, context.timeZone),
    fineType: terms.fine_type,
    fineCents: terms.fine_cents,
    fineTax: terms.fine_tax,
    lateInterestCents: terms.late_interest_cents,
    lateInterestTax: terms.late_interest_tax,
  });
  return { baseCents: context.owedCents + overdue.extraCents, overdue };
}

type RequestedLine = { productId: number; quantity: number };

function requestedLines(products: Record<string, number> | undefined): RequestedLine[] {
  return Object.entries(products ?? {}).map(([id, quantity]) => ({ productId: Number(id), quantity }));
}

const queryField = (productId: number) => `querystring/products/${productId}`;

/** Unit prices from the database; a product that is unknown, deleted, another account's or off the page is a 422. */
async function pricedLines(
  db: Kysely<DB>,
  reads: PricingReads,
  context: PricingContext,
  requested: RequestedLine[],
  fieldOf: PricingQuery['productField'] = queryField,
): Promise<PricedLine[]> {
  const ids = requested.map((line) => line.productId);
  const onPage = context.kind === 'checkout_page';
  const rows = onPage
    ? await reads.pageProducts(context.accountId, context.pageId, ids)
    : (await listCompanyProducts(db, context.accountId, context.companyId, ids)).map((row) => ({
        ...row,
        allow_quantity: true,
        max_quantity: Infinity,
      }));
  const byId = new Map(rows.map((row) => [row.id, row]));
  const errors: FieldError[] = [];
  const lines: PricedLine[] = [];
  for (const line of requested) {
    const row = byId.get(line.productId);
    if (!row)
      errors.push({
        field: fieldOf(line.productId, 'id'),
        message: onPage ? 'is not a product of this checkout page' : 'is not a product of this company',
      });
    else if (line.quantity > (row.allow_quantity ? row.max_quantity : 1))
      errors.push({
        field: fieldOf(line.productId, 'quantity'),
        message: `must be at most ${row.allow_quantity ? row.max_quantity : 1}`,
      });
    else lines.push({ unitCents: row.value_cents, quantity: line.quantity });
  }
  if (errors.length) throw validationFailed('products is invalid', errors);
  return lines;
}

/** A blank coupon is no coupon; any other must be usable for every product, or the request is refused. */
async function applicableCoupon(
  reads: PricingReads,
  context: PricingContext,
  code: string | undefined,
  productIds: (number | null)[],
  subtotalCents: number,
  now: Date,
): Promise<AppliedCoupon | undefined> {
  if (code === undefined || code.trim() === '') return undefined;
  if (!context.couponsEnabled) throw businessRule('Coupons are not accepted here');
  try {
    const coupon = usableCoupon(await reads.coupon(context, code), productIds, now);
    return { id: coupon.id, code: coupon.code, discountCents: couponDiscount(subtotalCents, coupon.rule) };
  } catch (error) {
    if (error instanceof CouponError) throw businessRule(error.message);
    throw error;
  }
}
