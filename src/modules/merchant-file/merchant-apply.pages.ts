import { randomUUID } from 'node:crypto';
import type { CartPageDocument, CheckoutPageDocument } from './merchant-document.ts';
import type { CatalogIds } from './merchant-apply.catalog.ts';
import {
  asJsonColumns,
  changedColumns,
  hasChanges,
  resolved,
  syncIdSet,
  type CompanyScope,
} from './merchant-apply.support.ts';

const JSON_COLUMNS = ['menus', 'integrations'] as const;

/** Columns a checkout page and a cart page share, with the column defaults for omitted fields. */
function sharedPageColumns(page: CheckoutPageDocument | CartPageDocument, catalog: CatalogIds) {
  return {
    page_title: page.page_title,
    // Lower-cased so `#0A7CFF` and `#0a7cff` are the same colour, not a change.
    main_color: (page.main_color ?? '#1a73e8').toLowerCase(),
    currency: page.currency ?? 'BRL',
    gateway: page.gateway ?? 'gateway_a',
    logo_url: page.logo ?? null,
    menus: page.menus ?? [],
    integrations: page.integrations ?? {},
    require_scheduling: page.require_scheduling ?? false,
    enable_two_cards: page.enable_two_cards ?? false,
    enable_coupons: page.enable_coupons ?? false,
    default_payment_plan_id:
      page.default_payment_plan === undefined
        ? null
        : resolved(catalog.paymentPlans, page.default_payment_plan, 'payment plan'),
    custom_code: page.custom_code ?? null,
    redirect_url: page.redirect_url ?? null,
    deleted_at: null,
  };
}

export async function applyPages(
  scope: CompanyScope,
  pages: { checkout_pages?: CheckoutPageDocument[]; cart_pages?: CartPageDocument[] },
  catalog: CatalogIds,
): Promise<{ checkoutPages: Map<string, string>; cartPages: Map<string, string> }> {
  const checkoutPages = new Map<string, string>();
  const cartPages = new Map<string, string>();
  for (const page of pages.checkout_pages ?? [])
    checkoutPages.set(page.slug, await upsertCheckoutPage(scope, page, catalog));
  for (const page of pages.cart_pages ?? []) cartPages.set(page.slug, await upsertCartPage(scope, page, catalog));
  return { checkoutPages, cartPages };
}

async function upsertCheckoutPage(
  scope: CompanyScope,
  page: CheckoutPageDocument,
  catalog: CatalogIds,
): Promise<string> {
  const desired = {
    ...sharedPageColumns(page, catalog),
    customer_data_at: page.customer_data_at ?? 'start',
    asks_payer_identity: page.asks_payer_identity ?? false,
    index_on_search_engines: page.index_on_search_engines ?? false,
    upsell_product_id:
      page.upsell_product === undefined ? null : resolved(catalog.products, page.upsell_product, 'product'),
  };
  const pageId = await upsertPageRow(scope, 'checkout_pages', page.slug, desired);
  await replaceCheckoutPageProducts(scope, pageId, page.products ?? [], catalog);
  await syncPagePlans(scope, 'checkout', pageId, page.payment_plans ?? [], catalog);
  return pageId;
}

async function replaceCheckoutPageProducts(
  { trx, accountId }: CompanyScope,
  pageId: string,
  items: NonNullable<CheckoutPageDocument['products']>,
  catalog: CatalogIds,
): Promise<void> {
  const desired = items.map((item, position) => ({
    product_id: resolved(catalog.products, item.product, 'product'),
    position,
    allow_quantity: item.allow_quantity ?? false,
    max_quantity: item.max_quantity ?? 1,
    recommended: item.recommended ?? false,
  }));
  const stored = await trx
    .selectFrom('checkout_page_products')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('checkout_page_id', '=', pageId)
    .execute();
  const wanted = desired.map((item) => item.product_id);
  const gone = stored.map((row) => row.product_id).filter((productId) => !wanted.includes(productId));
  if (gone.length > 0) {
    await trx
      .deleteFrom('checkout_page_products')
      .where('account_id', '=', accountId)
      .where('checkout_page_id', '=', pageId)
      .where('product_id', 'in', gone)
      .execute();
  }
  const byProduct = new Map(stored.map((row) => [row.product_id, row]));
  for (const item of desired) {
    const row = byProduct.get(item.product_id);
    if (!row) {
      await trx
        .insertInto('checkout_page_products')
        .values({ ...item, account_id: accountId, checkout_page_id: pageId })
        .execute();
      continue;
    }
    const changed = changedColumns(row, item);
    if (!hasChanges(changed)) continue;
    await trx
      .updateTable('checkout_page_products')
      .set(changed)
      .where('account_id', '=', accountId)
      .where('checkout_page_id', '=', pageId)
      .where('product_id', '=', item.product_id)
      .execute();
  }
}

async function upsertCartPage(scope: CompanyScope, page: CartPageDocument, catalog: CatalogIds): Promise<string> {
  const desired = { ...sharedPageColumns(page, catalog), name: page.name };
  const pageId = await upsertPageRow(scope, 'cart_pages', page.slug, desired);
  await syncPagePlans(scope, 'cart', pageId, page.payment_plans ?? [], catalog);
  return pageId;
}

const PAGE_PLAN_LINKS = {
  checkout: { table: 'checkout_page_payment_plans', pageColumn: 'checkout_page_id' },
  cart: { table: 'cart_page_payment_plans', pageColumn: 'cart_page_id' },
} as const;

/** Makes a page's enabled plans exactly the document's. Both link tables share one shape. */
async function syncPagePlans(
  scope: CompanyScope,
  kind: keyof typeof PAGE_PLAN_LINKS,
  pageId: string,
  refs: string[],
  catalog: CatalogIds,
): Promise<void> {
  const { trx, accountId } = scope;
  // Kysely cannot type a union of table names; the names are the cart page's only for the compiler.
  const table = PAGE_PLAN_LINKS[kind].table as 'cart_page_payment_plans';
  const pageColumn = PAGE_PLAN_LINKS[kind].pageColumn as 'cart_page_id';
  const planIds = refs.map((ref) => resolved(catalog.paymentPlans, ref, 'payment plan'));
  const linked = await trx
    .selectFrom(table)
    .select('payment_plan_id')
    .where('account_id', '=', accountId)
    .where(pageColumn, '=', pageId)
    .execute();
  await syncIdSet(
    linked.map((row) => row.payment_plan_id),
    planIds,
    (ids) =>
      trx
        .deleteFrom(table)
        .where('account_id', '=', accountId)
        .where(pageColumn, '=', pageId)
        .where('payment_plan_id', 'in', ids)
        .execute(),
    (ids) =>
      trx
        .insertInto(table)
        .values(
          ids.map(
            (payment_plan_id) =>
              ({ account_id: accountId, [pageColumn]: pageId, payment_plan_id }) as {
                account_id: string;
                cart_page_id: string;
                payment_plan_id: number;
              },
          ),
        )
        .execute(),
  );
}

/** Inserts the page row by (company, slug) or rewrites the columns that differ; returns its id. */
async function upsertPageRow(
  scope: CompanyScope,
  kind: 'checkout_pages' | 'cart_pages',
  slug: string,
  desired: Record<string, unknown>,
): Promise<string> {
  const { trx, accountId, companyId, now } = scope;
  // Both page tables share these columns; the name is the checkout page's only for the compiler.
  const table = kind as 'checkout_pages';
  const stored = await trx
    .selectFrom(table)
    .selectAll()
    .where('account_id', '=', accountId)
    .where('company_id', '=', companyId)
    .where('slug', '=', slug)
    .executeTakeFirst();
  if (!stored) {
    const id = randomUUID();
    const values = { ...desired, id, account_id: accountId, company_id: companyId, slug };
    await trx
      .insertInto(table)
      .values(asJsonColumns(values, JSON_COLUMNS) as never)
      .execute();
    return id;
  }
  const changed = changedColumns(stored as Record<string, unknown>, desired);
  if (hasChanges(changed)) {
    await trx
      .updateTable(table)
      .set({ ...asJsonColumns(changed, JSON_COLUMNS), updated_at: now } as never)
      .where('id', '=', stored.id)
      .execute();
  }
  return stored.id;
}
