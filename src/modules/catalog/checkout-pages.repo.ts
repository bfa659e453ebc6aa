import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { containsPattern } from '../../db/like.ts';

export type CheckoutPageFilter = { q?: string; hasProducts?: boolean; productIds?: number[] };

type PageScope = ExpressionBuilder<DB & { cp: DB['checkout_pages'] }, 'cp'>;

/** The live products of the page in `cp`: a soft-deleted product no longer counts as on any page. */
function pageProducts(eb: PageScope, accountId: string) {
  return eb
    .selectFrom('checkout_page_products as cpp')
    .innerJoin('products as p', (join) =>
      join.onRef('p.id', '=', 'cpp.product_id').onRef('p.account_id', '=', 'cpp.account_id'),
    )
    .whereRef('cpp.checkout_page_id', '=', 'cp.id')
    .where('cpp.account_id', '=', accountId)
    .where('p.deleted_at', 'is', null);
}

/** The CheckoutPageSummary columns of the account's live pages; `public_key` is the enabled gateway's. */
function pageSummaries(db: Kysely<DB>, accountId: string) {
  return db
    .selectFrom('checkout_pages as cp')
    .leftJoin('company_gateways as g', (join) =>
      join
        .onRef('g.account_id', '=', 'cp.account_id')
        .onRef('g.company_id', '=', 'cp.company_id')
        .onRef('g.gateway', '=', 'cp.gateway')
        .on('g.enabled', '=', true),
    )
    .select((eb) => [
      'cp.id',
      'cp.page_title',
      'cp.main_color',
      'cp.currency',
      'cp.gateway',
      'cp.enable_coupons',
      'cp.company_id',
      'g.public_key',
      eb
        .exists(pageProducts(eb, accountId).where('p.subscription', '=', true).select(sql.lit(1).as('one')))
        .as('subscription'),
    ])
    .where('cp.account_id', '=', accountId)
    .where('cp.deleted_at', 'is', null);
}

export function listCheckoutPages(db: Kysely<DB>, accountId: string, filter: CheckoutPageFilter) {
  let query = pageSummaries(db, accountId);
  if (filter.hasProducts !== undefined) {
    const exists = (eb: PageScope) => eb.exists(pageProducts(eb, accountId).select(sql.lit(1).as('one')));
    query = query.where((eb) => (filter.hasProducts ? exists(eb) : eb.not(exists(eb))));
  }
  if (filter.productIds?.length) {
    const productIds = filter.productIds;
    query = query.where((eb) =>
      eb.exists(pageProducts(eb, accountId).where('cpp.product_id', 'in', productIds).select(sql.lit(1).as('one'))),
    );
  }
  if (filter.q) {
    const pattern = containsPattern(filter.q);
    query = query.where((eb) =>
      eb.or([
        eb('cp.page_title', 'ilike', pattern),
        eb.exists(pageProducts(eb, accountId).where('p.name', 'ilike', pattern).select(sql.lit(1).as('one'))),
      ]),
    );
  }
  return query.orderBy('cp.created_at').orderBy('cp.id').limit(1000).execute();
}

/** One live page of the account with every CheckoutPageShow column; the upsell product and default plan only when live. */
export function findCheckoutPage(db: Kysely<DB>, accountId: string, id: string) {
  return pageSummaries(db, accountId)
    .leftJoin('products as upsell', (join) =>
      join
        .onRef('upsell.id', '=', 'cp.upsell_product_id')
        .onRef('upsell.account_id', '=', 'cp.account_id')
        .on('upsell.deleted_at', 'is', null),
    )
    .leftJoin('payment_plans as plan', (join) =>
      join
        .onRef('plan.id', '=', 'cp.default_payment_plan_id')
        .onRef('plan.account_id', '=', 'cp.account_id')
        .on('plan.deleted_at', 'is', null),
    )
    .select([
      'cp.customer_data_at',
      'cp.logo_url',
      'cp.menus',
      'cp.integrations',
      'cp.index_on_search_engines',
      'cp.require_scheduling',
      'cp.enable_two_cards',
      'cp.custom_code',
      'upsell.id as upsell_id',
      'upsell.name as upsell_name',
      'plan.id as plan_id',
      'plan.name as plan_name',
      'plan.payment_method as plan_payment_method',
    ])
    .where('cp.id', '=', id)
    .executeTakeFirst();
}

/** The live products of one of the account's pages, in page order. */
export function listCheckoutPageProducts(db: Kysely<DB>, accountId: string, pageId: string) {
  return db
    .selectFrom('checkout_page_products as cpp')
    .innerJoin('products as p', (join) =>
      join.onRef('p.id', '=', 'cpp.product_id').onRef('p.account_id', '=', 'cpp.account_id'),
    )
    .select([
      'p.id',
      'p.uid',
      'p.name',
      'p.description',
      'p.short_description',
      'p.product_type',
      'p.subscription',
      'p.interval',
      'p.interval_count',
      'p.value_cents',
      'p.image_url',
      'cpp.max_quantity',
      'cpp.allow_quantity',
      'cpp.recommended',
    ])
    .where('cpp.account_id', '=', accountId)
    .where('cpp.checkout_page_id', '=', pageId)
    .where('p.deleted_at', 'is', null)
    .orderBy('cpp.position')
    .orderBy('p.id')
    .execute();
}

/** Whether the account has this live page (the payment list of a page checks ownership first). */
export async function checkoutPageExists(db: Kysely<DB>, accountId: string, id: string): Promise<boolean> {
  const row = await db
    .selectFrom('checkout_pages')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return row !== undefined;
}
