import type { Kysely } from 'kysely';
import type { Static } from 'typebox';
import type { DB } from '../../db/schema.ts';
import { notFound } from '../../http/errors.ts';
import { toMajor } from '../../lib/money.ts';
import type {
  CheckoutPageProductSchema,
  CheckoutPageShowSchema,
  CheckoutPageSummarySchema,
} from './checkout-pages.schemas.ts';
import { findCheckoutPage, listCheckoutPageProducts, type listCheckoutPages } from './checkout-pages.repo.ts';
import { productDescription } from './products.service.ts';

type SummaryRow = Awaited<ReturnType<typeof listCheckoutPages>>[number];
type PageProductRow = Awaited<ReturnType<typeof listCheckoutPageProducts>>[number];

const SINGLE_PERIOD: Record<string, string> = { day: 'daily', week: 'weekly', month: 'monthly', year: 'yearly' };
const MONTH_MULTIPLES: Record<number, string> = { 2: 'bimonthly', 3: 'quarterly', 6: 'semiannually' };

/** A billing period as a word: `monthly`, `quarterly`, `every_10_days`… */
export function billingInterval(interval: string, count: number): string {
  if (count === 1) return SINGLE_PERIOD[interval] ?? interval;
  if (interval === 'month' && MONTH_MULTIPLES[count]) return MONTH_MULTIPLES[count];
  return `every_${count}_${interval}s`;
}

export function toCheckoutPageSummary(row: SummaryRow): Static<typeof CheckoutPageSummarySchema> {
  return {
    id: row.id,
    page_title: row.page_title,
    main_color: row.main_color,
    currency: row.currency,
    gateway: row.gateway,
    public_key: row.public_key ?? '',
    subscription: Boolean(row.subscription),
    enable_coupons: row.enable_coupons,
    company_id: row.company_id,
  };
}

/** `type` says how a product is billed (`product_type` says what it is); `interval` is set only for subscriptions. */
export function toCheckoutPageProduct(row: PageProductRow): Static<typeof CheckoutPageProductSchema> {
  return {
    id: row.id,
    uid: row.uid,
    name: row.name,
    description: productDescription(row),
    product_type: row.product_type,
    subscription: row.subscription,
    type: row.subscription ? 'subscription' : 'one_time',
    interval: row.subscription && row.interval !== null ? billingInterval(row.interval, row.interval_count) : null,
    max_quantity: row.max_quantity,
    value: toMajor(row.value_cents),
    image: row.image_url,
    allow_quantity: row.allow_quantity,
    recommended: row.recommended,
  };
}

/** CheckoutPageShow of one of the account's live pages; another account's or a deleted page is not found. */
export async function showCheckoutPage(
  db: Kysely<DB>,
  accountId: string,
  id: string,
): Promise<Static<typeof CheckoutPageShowSchema>> {
  const page = await findCheckoutPage(db, accountId, id);
  if (!page) throw notFound('Checkout page');
  const products = await listCheckoutPageProducts(db, accountId, id);
  return {
    ...toCheckoutPageSummary(page),
    customer_data_at: page.customer_data_at === 'end' ? 'end' : 'start',
    logo: page.logo_url,
    menus: Array.isArray(page.menus) ? page.menus : [],
    index_on_search_engines: page.index_on_search_engines,
    require_scheduling: page.require_scheduling,
    enable_two_cards: page.enable_two_cards,
    ...(page.upsell_id !== null && page.upsell_name !== null
      ? { upsell_product: { id: page.upsell_id, name: page.upsell_name } }
      : {}),
    custom_code: page.custom_code ?? '',
    default_payment_plan:
      page.plan_id !== null && page.plan_name !== null && page.plan_payment_method !== null
        ? { id: String(page.plan_id), name: page.plan_name, payment_method: page.plan_payment_method }
        : null,
    integrations: isPlainObject(page.integrations) ? page.integrations : {},
    products: products.map(toCheckoutPageProduct),
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
