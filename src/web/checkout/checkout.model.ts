import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { GatewayName, PayMethod } from '../../gateways/port.ts';
import { gatewayFor, isGatewayName } from '../../gateways/registry.ts';
import { toCents } from '../../lib/money.ts';
import { findCart, findCartItems, pageBranding } from '../../modules/carts/index.ts';
import { showCheckoutPage } from '../../modules/catalog/index.ts';
import { findCharge, showCharge } from '../../modules/charges/index.ts';
import { assertChargePayable, payerIdentityMethods, purchasedOrderOfCart } from '../../modules/payments/index.ts';
import {
  contextTotal,
  databaseReads,
  type PricingQuery,
  resolvePricingContext,
} from '../../modules/payment-plans/index.ts';
import { chargeNotes } from './charge-notes.ts';
import type { SummaryLine } from './order-summary.ts';
import { findCartPageSettings, findCompanyTimeZone, findHostedCheckoutPage } from './checkout.repo.ts';

export type CheckoutKind = 'page' | 'cart' | 'charge';

export type HostedProduct = {
  id?: number;
  name: string;
  description?: string;
  image?: string;
  valueCents: number;
  quantity: number;
  allowQuantity: boolean;
  maxQuantity?: number;
  recommended: boolean;
};

export type MenuLink = { label: string; url: string };

/** Why a cart or charge can no longer be paid: the page then shows this instead of the form. */
export type Closed = 'charge_paid' | 'charge_cancelled' | 'cart_bought';

/** Everything a hosted checkout, cart or charge page shows and what its script needs to pay. */
export type HostedCheckout = {
  kind: CheckoutKind;
  id: string;
  companyId: number;
  companySlug?: string;
  timeZone: string;
  title: string;
  mainColor: string;
  logo?: string;
  menus: MenuLink[];
  gateway: string;
  publicKey: string;
  enableCoupons: boolean;
  enableTwoCards: boolean;
  requireScheduling: boolean;
  customerDataAt: 'start' | 'end';
  /** Whether the page asks for the buyer's e-mail and phone (a charge already has its customer). */
  asksCustomer: boolean;
  /** Whether the page asks for a delivery address (`customer_address`): a checkout page selling a physical product. */
  asksAddress: boolean;
  prefill: { email?: string; phone?: string };
  /** The methods that ask for the payer's name and CPF/CNPJ (`payerIdentityMethods`: a boleto always). */
  asksIdentity: PayMethod[];
  /** What of the payer's identity the buyer is not asked again (a cart's or a charge's customer already has it). */
  identityKnown: { name: boolean; identification: boolean };
  indexOnSearchEngines: boolean;
  customCode: string;
  upsell?: { id: number; name: string };
  redirectUrl?: string;
  products: HostedProduct[];
  /** The order summary's lines between the items and the total (subtotal, discount, freight, fine…). */
  lines: SummaryLine[];
  notes: string[];
  closed?: Closed;
  /** The quote's total before interest when loading the page already computed it (a charge's notes do). */
  quotedBaseCents?: number;
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX_COLOR = /^#[0-9a-f]{3}([0-9a-f]{3})?$/i;

export const isUuid = (text: string) => UUID.test(text);

/** Only `{label|name|title, url}` items with an http(s) URL become links; anything else is dropped. */
export function menuLinks(menus: unknown[]): MenuLink[] {
  return menus.flatMap((item) => {
    if (typeof item !== 'object' || item === null) return [];
    const record = item as Record<string, unknown>;
    const label = [record.label, record.name, record.title].find((value) => typeof value === 'string');
    const url = record.url ?? record.link ?? record.href;
    return typeof label === 'string' && typeof url === 'string' && /^https?:\/\//i.test(url) ? [{ label, url }] : [];
  });
}

/** The methods a page on `gateway` asks the payer's identity for, by the rule the pay endpoints apply. */
const identityMethods = (gateway: string, pageAsks = false) =>
  payerIdentityMethods(isGatewayName(gateway) ? gatewayFor(gateway) : undefined, pageAsks);

export const safeColor = (color: string) => (HEX_COLOR.test(color) ? color : '#1a73e8');

export async function loadCheckoutPage(db: Kysely<DB>, id: string): Promise<HostedCheckout | undefined> {
  if (!isUuid(id)) return undefined;
  const row = await findHostedCheckoutPage(db, id.toLowerCase());
  if (!row) return undefined;
  const page = await showCheckoutPage(db, row.account_id, row.id).catch(() => undefined);
  if (!page) return undefined;
  return {
    kind: 'page',
    id: page.id,
    companyId: page.company_id,
    companySlug: row.company_slug,
    timeZone: row.time_zone,
    title: page.page_title,
    mainColor: safeColor(page.main_color),
    ...(page.logo ? { logo: page.logo } : {}),
    menus: menuLinks(page.menus),
    gateway: page.gateway,
    publicKey: page.public_key,
    enableCoupons: page.enable_coupons,
    enableTwoCards: page.enable_two_cards,
    requireScheduling: page.require_scheduling,
    customerDataAt: page.customer_data_at === 'end' ? 'end' : 'start',
    asksCustomer: true,
    asksAddress: page.products.some((product) => product.product_type === 'physical'),
    prefill: {},
    asksIdentity: identityMethods(page.gateway, row.asks_payer_identity),
    identityKnown: { name: false, identification: false },
    indexOnSearchEngines: page.index_on_search_engines,
    customCode: page.custom_code,
    ...(page.upsell_product ? { upsell: page.upsell_product } : {}),
    ...(row.redirect_url ? { redirectUrl: row.redirect_url } : {}),
    products: page.products.map((product) => ({
      id: product.id,
      name: product.name,
      ...(product.description ? { description: product.description } : {}),
      ...(product.image ? { image: product.image } : {}),
      valueCents: toCents(product.value),
      quantity: 1,
      allowQuantity: product.allow_quantity,
      ...(product.max_quantity ? { maxQuantity: product.max_quantity } : {}),
      recommended: product.recommended,
    })),
    // The bundle keeps the subtotal to the quantities chosen.
    lines: [
      { kind: 'subtotal', label: 'Subtotal', cents: page.products.reduce((sum, p) => sum + toCents(p.value), 0) },
    ],
    notes: [],
  };
}

export async function loadCart(db: Kysely<DB>, uid: string): Promise<HostedCheckout | undefined> {
  if (!isUuid(uid)) return undefined;
  const cart = await findCart(db, uid.toLowerCase());
  if (!cart) return undefined;
  const [branding, items, settings] = await Promise.all([
    pageBranding(db, 'cart_pages', cart.account_id, cart.cart_page_id),
    findCartItems(db, cart.account_id, cart.id),
    findCartPageSettings(db, cart.account_id, cart.cart_page_id),
  ]);
  if (!branding || !settings) return undefined;
  // The rule POST /carts/{id}/pay applies: once an order of the cart is paid, the cart is bought.
  const bought = (await purchasedOrderOfCart(db, cart.account_id, cart.id)) !== undefined;
  const customer = (cart.customer ?? {}) as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const email = text(customer.email);
  const phone = text(customer.phone)?.replace(/\D/g, '');
  return {
    kind: 'cart',
    id: cart.id,
    companyId: cart.company_id,
    timeZone: settings.time_zone,
    title: branding.page_title,
    mainColor: safeColor(branding.main_color),
    ...(branding.logo ? { logo: branding.logo } : {}),
    menus: menuLinks(branding.menus),
    gateway: branding.gateway,
    publicKey: branding.public_key,
    enableCoupons: branding.enable_coupons,
    enableTwoCards: branding.enable_two_cards,
    requireScheduling: settings.require_scheduling,
    customerDataAt: 'start',
    asksCustomer: true,
    asksAddress: false,
    prefill: { ...(email ? { email } : {}), ...(phone ? { phone } : {}) },
    asksIdentity: identityMethods(branding.gateway),
    identityKnown: {
      name: text(customer.name) !== undefined,
      identification: text(customer.identification) !== undefined,
    },
    indexOnSearchEngines: false,
    customCode: branding.custom_code,
    ...(settings.redirect_url ? { redirectUrl: settings.redirect_url } : {}),
    products: items.map((item) => ({
      ...(item.product_id !== null ? { id: item.product_id } : {}),
      name: item.name,
      ...(item.image_url ? { image: item.image_url } : {}),
      valueCents: item.unit_value_cents,
      quantity: item.quantity,
      allowQuantity: false,
      recommended: false,
    })),
    lines: [
      {
        kind: 'subtotal',
        label: 'Subtotal',
        // What the cart's pricing takes as its items: their totals, or the cart's override.
        cents: cart.total_override_cents ?? items.reduce((sum, item) => sum + item.total_cents, 0),
      },
      ...(cart.freight_cents > 0 ? [{ kind: 'freight' as const, label: 'Frete', cents: cart.freight_cents }] : []),
    ],
    notes: [],
    ...(bought ? { closed: 'cart_bought' as const } : {}),
  };
}

/** POST /charges/{id}/pay's own rule (assertChargePayable) decides whether the charge page still takes a payment. */
function chargeClosed(status: string): Closed | undefined {
  try {
    assertChargePayable(status);
    return undefined;
  } catch {
    return status === 'cancelled' ? 'charge_cancelled' : 'charge_paid';
  }
}

export async function loadCharge(db: Kysely<DB>, uid: string, now: Date): Promise<HostedCheckout | undefined> {
  if (!isUuid(uid)) return undefined;
  const charge = await findCharge(db, uid.toLowerCase());
  if (!charge) return undefined;
  const [show, company] = await Promise.all([
    showCharge(db, charge),
    findCompanyTimeZone(db, charge.account_id, charge.company_id),
  ]);
  const closed = chargeClosed(charge.status);
  const priced = closed ? { notes: [], lines: [] } : await chargeNotes(db, charge, now);
  return {
    kind: 'charge',
    id: show.id,
    companyId: charge.company_id,
    timeZone: company?.time_zone ?? 'America/Sao_Paulo',
    title: show.page_title,
    mainColor: safeColor(show.main_color),
    ...(show.logo ? { logo: show.logo } : {}),
    menus: menuLinks(show.menus),
    gateway: show.gateway as GatewayName,
    publicKey: show.public_key,
    enableCoupons: false,
    enableTwoCards: show.enable_two_cards,
    requireScheduling: false,
    customerDataAt: 'start',
    asksCustomer: false,
    asksAddress: false,
    prefill: {},
    asksIdentity: identityMethods(show.gateway),
    identityKnown: {
      name: Boolean(charge.name) && charge.name !== charge.email,
      identification: Boolean(charge.identification),
    },
    indexOnSearchEngines: false,
    customCode: show.custom_code,
    products: show.products.map((product) => ({
      ...(product.id !== undefined ? { id: product.id } : {}),
      name: product.name,
      ...(product.description ? { description: product.description } : {}),
      ...(product.image ? { image: product.image } : {}),
      valueCents: toCents(product.value),
      quantity: product.quantity,
      allowQuantity: false,
      recommended: false,
    })),
    notes: [
      `Vencimento: ${show.due_date.split('-').reverse().join('/')}`,
      ...(show.observation ? [show.observation] : []),
      ...priced.notes,
    ],
    lines: priced.lines,
    ...(closed ? { closed } : {}),
    ...(priced.baseCents !== undefined ? { quotedBaseCents: priced.baseCents } : {}),
  };
}

/**
 * The total before interest that GET /payment_plans quotes for the page as first shown (freight, discount,
 * fine and late interest included), so the server-rendered total matches what the script shows later.
 */
export async function quotedBaseCents(
  db: Kysely<DB>,
  checkout: HostedCheckout,
  now: Date,
): Promise<number | undefined> {
  if (checkout.quotedBaseCents !== undefined) return checkout.quotedBaseCents;
  const query: PricingQuery =
    checkout.kind === 'page'
      ? {
          checkout_page_id: checkout.id,
          products: Object.fromEntries(
            checkout.products.flatMap((product) =>
              product.id === undefined ? [] : [[String(product.id), product.quantity]],
            ),
          ),
        }
      : checkout.kind === 'cart'
        ? { cart_id: checkout.id }
        : { charge_id: checkout.id };
  try {
    const reads = databaseReads(db);
    const context = await resolvePricingContext(db, query, async () => undefined, reads);
    return (await contextTotal(db, reads, context, query, now)).baseCents;
  } catch {
    return undefined; // the plans answer the same error; the page then shows the items' sum
  }
}
