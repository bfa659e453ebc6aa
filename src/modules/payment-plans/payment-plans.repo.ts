import { sql, type Expression, type Kysely } from 'kysely';
import { SETTLED_PAYMENT_STATUSES } from '../orders/index.ts';
import type { DB } from '../../db/schema.ts';

/** A filter value, or a reference to the enclosing query's column when the read is a subquery of a larger one. */
type ValueOrRef<T> = T | Expression<T>;

/* Contexts are found by their unguessable public id (uuid); everything after that is filtered by account. */

export function findCheckoutPage(db: Kysely<DB>, id: string) {
  return db
    .selectFrom('checkout_pages')
    .select(['id', 'account_id', 'company_id', 'currency', 'enable_coupons', 'default_payment_plan_id'])
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export function findCartPage(db: Kysely<DB>, id: string) {
  return db
    .selectFrom('cart_pages')
    .select(['id', 'account_id', 'company_id', 'currency', 'enable_coupons', 'default_payment_plan_id'])
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export function findCart(db: Kysely<DB>, id: string) {
  return db
    .selectFrom('carts as c')
    .innerJoin('cart_pages as cp', (join) =>
      join.onRef('cp.id', '=', 'c.cart_page_id').onRef('cp.account_id', '=', 'c.account_id'),
    )
    .select([
      'c.id',
      'c.account_id',
      'c.company_id',
      'c.cart_page_id',
      'c.freight_cents',
      'c.total_override_cents',
      'cp.currency',
      'cp.enable_coupons',
      'cp.default_payment_plan_id',
    ])
    .where('c.id', '=', id)
    .executeTakeFirst();
}

export function listCartItems(db: Kysely<DB>, accountId: string, cartId: string) {
  return db
    .selectFrom('cart_items')
    .select(['product_id', 'total_cents'])
    .where('account_id', '=', accountId)
    .where('cart_id', '=', cartId)
    .execute();
}

/**
 * An order is a charge when it has a due date. `settled_principal_cents`: what its standing payments already
 * paid of the total and kept (interest and refunds aside), e.g. a payment received elsewhere recorded with `POST /orders`.
 */
export function findCharge(db: Kysely<DB>, uid: string) {
  return db
    .selectFrom('orders as o')
    .innerJoin('companies as co', (join) =>
      join.onRef('co.id', '=', 'o.company_id').onRef('co.account_id', '=', 'o.account_id'),
    )
    .select([
      'o.id',
      'o.account_id',
      'o.company_id',
      'o.currency',
      'o.total_cents',
      'o.due_date',
      'o.payment_plan_id',
      'co.time_zone',
    ])
    .select((eb) =>
      eb
        .selectFrom('payments as p')
        .select(sql<number>`coalesce(sum(p.amount_cents - p.interest_cents - p.refunded_cents), 0)::bigint`.as('cents'))
        .whereRef('p.account_id', '=', 'o.account_id')
        .whereRef('p.order_id', '=', 'o.id')
        .where('p.status', 'in', SETTLED_PAYMENT_STATUSES)
        .as('settled_principal_cents'),
    )
    .where('o.uid', '=', uid)
    .where('o.due_date', 'is not', null)
    .executeTakeFirst();
}

/**
 * Kept products on a checkout page (those among `ids` when given), with the page's quantity limits and
 * what an order line copies of them (a pay flow reads them once, for its lines and its quote).
 */
export function listPageProducts(db: Kysely<DB>, accountId: string, pageId: string, ids?: number[]) {
  return pageProductsQuery(db, accountId, pageId, ids).execute();
}

/** The read of `listPageProducts`, to run or to embed (the pay flow reads it with its page). */
export function pageProductsQuery(
  db: Kysely<DB>,
  accountId: ValueOrRef<string>,
  pageId: ValueOrRef<string>,
  ids?: number[],
) {
  let query = db
    .selectFrom('checkout_page_products as cpp')
    .innerJoin('products as p', (join) =>
      join.onRef('p.id', '=', 'cpp.product_id').onRef('p.account_id', '=', 'cpp.account_id'),
    )
    .select([
      'p.id',
      'p.value_cents',
      'cpp.allow_quantity',
      'cpp.max_quantity',
      'p.name',
      'p.unit_name',
      'p.subscription',
      'p.interval',
      'p.interval_count',
    ])
    .where('cpp.account_id', '=', accountId)
    .where('cpp.checkout_page_id', '=', pageId)
    .where('p.deleted_at', 'is', null);
  // `in ()` is not SQL: an empty list matches nothing.
  if (ids) query = ids.length ? query.where('p.id', 'in', ids) : query.where(sql<boolean>`false`);
  return query;
}

/** Kept products among `ids` of one company. */
export function listCompanyProducts(db: Kysely<DB>, accountId: string, companyId: number, ids: number[]) {
  return db
    .selectFrom('products')
    .select(['id', 'value_cents'])
    .where('account_id', '=', accountId)
    .where('company_id', '=', companyId)
    .where('id', 'in', ids)
    .where('deleted_at', 'is', null)
    .execute();
}

const PLAN_COLUMNS = [
  'pp.id',
  'pp.name',
  'pp.payment_method',
  'pp.max_installments',
  'pp.min_installment_cents',
  'pp.fine_type',
  'pp.fine_cents',
  'pp.fine_tax',
  'pp.late_interest_cents',
  'pp.late_interest_tax',
  't.installments',
  't.fixed_cents',
  't.percentage',
] as const;

export type PlanSource =
  | { kind: 'checkout_page'; pageId: string }
  | { kind: 'cart_page'; cartPageId: string }
  | { kind: 'company'; companyId: number };

/** Kept plans of a source, one row per (plan, tax row) with the plan's columns repeated; ordered by plan id. */
export function listPlanRows(db: Kysely<DB>, accountId: string, source: PlanSource) {
  return planRowsQuery(db, accountId, source).execute();
}

/** The read of `listPlanRows`, to run or to embed (the pay flow reads a page's plans with the page). */
export function planRowsQuery(db: Kysely<DB>, accountId: ValueOrRef<string>, source: PlanSource) {
  let query = db
    .selectFrom('payment_plans as pp')
    .leftJoin('payment_plan_taxes as t', (join) =>
      join.onRef('t.payment_plan_id', '=', 'pp.id').onRef('t.account_id', '=', 'pp.account_id'),
    )
    .select(PLAN_COLUMNS)
    .where('pp.account_id', '=', accountId)
    .where('pp.deleted_at', 'is', null);
  if (source.kind === 'checkout_page') {
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('checkout_page_payment_plans as l')
          .select('l.payment_plan_id')
          .whereRef('l.payment_plan_id', '=', 'pp.id')
          .where('l.account_id', '=', accountId)
          .where('l.checkout_page_id', '=', source.pageId),
      ),
    );
  } else if (source.kind === 'cart_page') {
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('cart_page_payment_plans as l')
          .select('l.payment_plan_id')
          .whereRef('l.payment_plan_id', '=', 'pp.id')
          .where('l.account_id', '=', accountId)
          .where('l.cart_page_id', '=', source.cartPageId),
      ),
    );
  } else {
    query = query.where('pp.company_id', '=', source.companyId);
  }
  return query.orderBy('pp.id').orderBy('t.installments');
}

export type PlanRow = Awaited<ReturnType<typeof listPlanRows>>[number];

/** A charge's own plan, kept or not: its fine and late-interest settings are the charge's terms. */
export function findPlanTerms(db: Kysely<DB>, accountId: string, planId: number) {
  return db
    .selectFrom('payment_plans')
    .select(['fine_type', 'fine_cents', 'fine_tax', 'late_interest_cents', 'late_interest_tax'])
    .where('account_id', '=', accountId)
    .where('id', '=', planId)
    .executeTakeFirst();
}
