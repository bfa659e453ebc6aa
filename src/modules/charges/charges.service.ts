import type { Kysely } from 'kysely';
import type { Static } from 'typebox';
import type { DB } from '../../db/schema.ts';
import { toMajor } from '../../lib/money.ts';
import { productDescription } from '../catalog/index.ts';
import { type Branding, companyBranding, pageBranding, planRef } from '../carts/index.ts';
import { addressOf } from '../customers/index.ts';
import { findChargeFiles, findChargeInvoices, findChargeProducts, findPlan, type ChargeRow } from './charges.repo.ts';
import type { ChargeShowSchema } from './charges.schemas.ts';

export type ChargeShow = Static<typeof ChargeShowSchema>;
type ChargeShowProduct = ChargeShow['products'][number];
/** What the hosted charge page reads: ChargeShow, except that an item naming no product carries no id. */
export type ChargePageShow = Omit<ChargeShow, 'products'> & {
  products: (Omit<ChargeShowProduct, 'id'> & { id?: number })[];
};

/** The ChargeShow body: every listed field present, the id of an item naming no product null. */
export const toChargeShow = (show: ChargePageShow): ChargeShow => ({
  ...show,
  products: show.products.map((product) => ({ ...product, id: product.id ?? null })),
});

/** The company offers the two-card split on its charges (merchant file `companies[].enable_two_cards`). */
async function companyOffersTwoCards(db: Kysely<DB>, charge: ChargeRow): Promise<boolean> {
  const company = await db
    .selectFrom('companies')
    .select('enable_two_cards')
    .where('account_id', '=', charge.account_id)
    .where('id', '=', charge.company_id)
    .executeTakeFirst();
  return company?.enable_two_cards ?? false;
}

/**
 * The charge's branding: its checkout page's, else its cart page's, else the company's defaults. The
 * default payment plan is the charge's own plan when it has one, else the page's. Two cards are offered when
 * the company offers them on its charges or the page enables them (the rule POST /charges/{id}/pay applies).
 */
export async function chargeBranding(db: Kysely<DB>, charge: ChargeRow): Promise<Branding> {
  const page =
    (charge.checkout_page_id
      ? await pageBranding(db, 'checkout_pages', charge.account_id, charge.checkout_page_id)
      : undefined) ??
    (charge.cart_page_id ? await pageBranding(db, 'cart_pages', charge.account_id, charge.cart_page_id) : undefined);
  const branding = page ?? (await companyBranding(db, charge.account_id, charge.company_id, charge.currency));
  const plan =
    charge.payment_plan_id === null ? undefined : await findPlan(db, charge.account_id, charge.payment_plan_id);
  const twoCards = branding.enable_two_cards || (await companyOffersTwoCards(db, charge));
  return { ...branding, enable_two_cards: twoCards, ...(plan ? { default_payment_plan: planRef(plan) } : {}) };
}

export async function showCharge(db: Kysely<DB>, charge: ChargeRow): Promise<ChargePageShow> {
  const [branding, products, invoices, files] = await Promise.all([
    chargeBranding(db, charge),
    findChargeProducts(db, charge.account_id, charge.id),
    findChargeInvoices(db, charge.account_id, charge.id),
    findChargeFiles(db, charge.account_id, charge.id),
  ]);
  const { enable_coupons: _coupons, integrations: _integrations, ...shared } = branding;
  return {
    id: charge.uid,
    ...shared,
    date: charge.date,
    due_date: charge.due_date!,
    retention: toMajor(charge.retention_cents),
    freight: toMajor(charge.freight_cents),
    observation: charge.observation,
    customer:
      charge.customer_id === null
        ? null
        : {
            email: charge.email!,
            name: charge.name!,
            foreign: charge.foreign!,
            identification: charge.identification,
            social_reason: charge.social_reason,
            address: addressOf(charge),
          },
    coupon: charge.coupon_code === null ? null : { code: charge.coupon_code, discount: toMajor(charge.discount_cents) },
    products: products.map((item) => ({
      ...(item.product_id === null ? {} : { id: item.product_id }),
      name: item.product_name,
      // A product's description as everywhere else (docs/catalog.md); an item that names no product has none.
      description: item.product_id === null ? null : productDescription(item),
      product_type: item.product_type,
      subscription: item.subscription,
      quantity: item.quantity,
      value: toMajor(item.unit_value_cents),
      image: item.image_url,
    })),
    invoices: invoices.map((invoice) => ({ type: invoice.type, url: invoice.url })),
    files,
  };
}
