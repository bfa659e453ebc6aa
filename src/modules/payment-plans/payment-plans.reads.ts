import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { type CouponRow, type CouponScope, findCoupon } from '../coupons/index.ts';
import {
  findCheckoutPage,
  listPageProducts,
  listPlanRows,
  type PlanRow,
  type PlanSource,
} from './payment-plans.repo.ts';
import { TtlCache } from './ttl-cache.ts';

export type CheckoutPageRow = NonNullable<Awaited<ReturnType<typeof findCheckoutPage>>>;
export type PageProductRow = Awaited<ReturnType<typeof listPageProducts>>[number];

/** The reads of the pricing path a cache may answer: a checkout page, its products and plans, coupons. */
export type PricingReads = {
  coupon(scope: CouponScope, code: string): Promise<CouponRow | undefined>;
  checkoutPage(id: string): Promise<CheckoutPageRow | undefined>;
  pageProducts(accountId: string, pageId: string, ids: number[]): Promise<PageProductRow[]>;
  planRows(accountId: string, source: PlanSource): Promise<PlanRow[]>;
};

export function databaseReads(db: Kysely<DB>): PricingReads {
  return {
    coupon: (scope, code) => findCoupon(db, scope, code),
    checkoutPage: (id) => findCheckoutPage(db, id),
    pageProducts: (accountId, pageId, ids) => listPageProducts(db, accountId, pageId, ids),
    planRows: (accountId, source) => listPlanRows(db, accountId, source),
  };
}

/**
 * Database reads, except a page's products and plans: the rows the caller read of that page in the same request
 * (a pay flow reads them with the page, and uses the products for its order lines too).
 */
export function readsWithPageRows(
  db: Kysely<DB>,
  page: { accountId: string; pageId: string },
  products: PageProductRow[],
  plans: PlanRow[],
): PricingReads {
  const direct = databaseReads(db);
  const byId = new Map(products.map((row) => [row.id, row]));
  const isPage = (accountId: string, pageId: string) => accountId === page.accountId && pageId === page.pageId;
  return {
    ...direct,
    pageProducts: (accountId, pageId, ids) =>
      isPage(accountId, pageId)
        ? Promise.resolve(ids.flatMap((id) => byId.get(id) ?? []))
        : direct.pageProducts(accountId, pageId, ids),
    planRows: (accountId, source) =>
      source.kind === 'checkout_page' && isPage(accountId, source.pageId)
        ? Promise.resolve(plans)
        : direct.planRows(accountId, source),
  };
}

/** A checkout page as the display cache holds it; `answers` are the responses priced from it (payment-plans.answers.ts). */
export type PageSnapshot = {
  page: CheckoutPageRow;
  products: Map<number, PageProductRow>;
  plans: PlanRow[];
  answers: Map<string, unknown>;
};

/** The display cache's reads, plus the cached snapshot of a page itself. */
export type CachedPricingReads = PricingReads & { pageSnapshot(pageId: string): Promise<PageSnapshot | undefined> };

export const PAGE_CACHE_TTL_MS = 1_000;
const PAGE_CACHE_MAX_PAGES = 5_000;

/**
 * Reads for `GET /payment_plans` only: a checkout page's row, products (with prices) and plans (with
 * tax rows), and coupons (with usage counts and restrictions), are kept for PAGE_CACHE_TTL_MS, so an
 * edit or a coupon use is visible within a second; coupon expiry is still judged at request time.
 * Invalidation is that expiry alone. Nothing more is needed because the endpoint only displays
 * prices: every pay flow prices with `quoteOption` on `databaseReads`, never this cache. Carts,
 * charges, cart pages, allowed hosts and API keys are always read fresh.
 */
export function cachedCheckoutPageReads(db: Kysely<DB>): CachedPricingReads {
  const direct = databaseReads(db);
  const cache = new TtlCache<string, PageSnapshot>(PAGE_CACHE_TTL_MS, PAGE_CACHE_MAX_PAGES);
  const coupons = new TtlCache<string, CouponRow>(PAGE_CACHE_TTL_MS, PAGE_CACHE_MAX_PAGES);
  const snapshot = (pageId: string) =>
    cache.get(pageId, async () => {
      const page = await findCheckoutPage(db, pageId);
      if (!page) return undefined;
      const [products, plans] = await Promise.all([
        listPageProducts(db, page.account_id, page.id),
        listPlanRows(db, page.account_id, { kind: 'checkout_page', pageId: page.id }),
      ]);
      return { page, products: new Map(products.map((row) => [row.id, row])), plans, answers: new Map() };
    });
  const ownSnapshot = async (accountId: string, pageId: string) => {
    const found = await snapshot(pageId);
    return found?.page.account_id === accountId ? found : undefined;
  };
  return {
    pageSnapshot: snapshot,
    coupon: (scope, code) =>
      coupons.get(`${scope.accountId}/${scope.companyId}/${code.trim().toUpperCase()}`, () =>
        findCoupon(db, scope, code),
      ),
    checkoutPage: async (id) => (await snapshot(id))?.page,
    pageProducts: async (accountId, pageId, ids) => {
      const found = await ownSnapshot(accountId, pageId);
      return found ? ids.flatMap((id) => found.products.get(id) ?? []) : direct.pageProducts(accountId, pageId, ids);
    },
    planRows: async (accountId, source) => {
      const found = source.kind === 'checkout_page' ? await ownSnapshot(accountId, source.pageId) : undefined;
      return found ? found.plans : direct.planRows(accountId, source);
    },
  };
}
