import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import { businessRule, notFound } from '../../../http/errors.ts';
import { PURCHASED_STATUSES } from '../../orders/index.ts';
import {
  checkoutPagePricingContext,
  type PricingContext,
  type PricingQuery,
  type PricingReads,
  readsWithPageRows,
} from '../../payment-plans/index.ts';
import type { CustomerInput } from './pay-customer.ts';
import type { OrderLine } from './pay-order.ts';
import {
  findPayCart,
  findPayCharge,
  findPayPage,
  firstCardGateway,
  listCartLines,
  purchasedOrderOfCart,
  type CompanyGatewayRow,
  type PayCompany,
} from '../payments.repo.ts';

/** Everything a pay flow needs to know about where the payment comes from, whichever entry point. */
export type PayContext = {
  entry: 'checkout_page' | 'cart' | 'charge';
  accountId: string;
  companyId: number;
  query: PricingQuery;
  /** The pricing context when the entry point already read it (a checkout page), so the quote need not read it again. */
  pricingContext?: PricingContext;
  /** The reads the quote uses, when the entry point already read some of them (a checkout page's products). */
  pricingReads?: PricingReads;
  defaultGateway: string;
  enableTwoCards: boolean;
  requireScheduling: boolean;
  /** A checkout page that asks the payer's name and CPF/CNPJ for every method (`asks_payer_identity`). */
  asksPayerIdentity?: boolean;
  upsellProductId: number | null;
  redirectUrl: string | null;
  /** A charge pays its existing order; the other entry points create one. */
  existingOrder?: { id: number; uid: string; customerId: number | null };
  lines: OrderLine[];
  freightCents: number;
  orderLinks: { checkoutPageId?: string; cartPageId?: string; cartId?: string };
  customer: CustomerInput;
  /** The company's accounts at gateways the entry point read with its own row (a checkout page's gateway; null: none enabled). */
  gatewayAccounts?: Partial<Record<string, CompanyGatewayRow | null>>;
  /** The company's row when the entry point read it with its own (a checkout page), so the flow need not read it again. */
  company?: PayCompany;
};

/** POST /payments: the page's products the body names (or its main product), priced from the database. */
export async function checkoutPageContext(
  db: Kysely<DB>,
  pageId: string,
  body: { products?: { id: number; quantity: number }[]; main_product_id?: number; coupon?: string },
  customer: CustomerInput,
) {
  const requested = body.products?.length
    ? body.products.map((item) => ({ productId: item.id, quantity: item.quantity }))
    : body.main_product_id
      ? [{ productId: body.main_product_id, quantity: 1 }]
      : [];
  const quantities = new Map<number, number>();
  for (const line of requested) quantities.set(line.productId, (quantities.get(line.productId) ?? 0) + line.quantity);
  // The page, the products named, its plans and its gateway account: one read.
  const page = await findPayPage(db, pageId, [...quantities.keys()]);
  if (!page) throw notFound('Checkout page');
  if (requested.length === 0)
    throw businessRule('products (or main_product_id) is required', [
      { field: 'body/products', message: 'is required' },
    ]);
  const pageProducts = page.products;
  const products = new Map(pageProducts.map((row) => [row.id, row]));
  const lines: OrderLine[] = [];
  for (const [productId, quantity] of quantities) {
    const product = products.get(productId);
    if (!product) continue; // the quote refuses products that are not (live) on the page
    lines.push({
      productId,
      name: product.name,
      unitName: product.unit_name,
      quantity,
      unitCents: product.value_cents,
      totalCents: product.value_cents * quantity,
      subscription: product.subscription,
      interval: product.interval,
      intervalCount: product.interval_count,
    });
  }
  const context: PayContext = {
    entry: 'checkout_page',
    accountId: page.account_id,
    companyId: page.company_id,
    query: {
      checkout_page_id: page.id,
      products: Object.fromEntries([...quantities].map(([id, quantity]) => [String(id), quantity])),
      ...(body.coupon !== undefined ? { coupon: body.coupon } : {}),
    },
    pricingContext: checkoutPagePricingContext(page),
    pricingReads: readsWithPageRows(db, { accountId: page.account_id, pageId: page.id }, pageProducts, page.plans),
    gatewayAccounts: { [page.gateway]: page.page_gateway },
    defaultGateway: page.gateway,
    enableTwoCards: page.enable_two_cards,
    requireScheduling: page.require_scheduling,
    asksPayerIdentity: page.asks_payer_identity,
    upsellProductId: page.upsell_product_id,
    redirectUrl: page.redirect_url,
    lines,
    freightCents: 0,
    orderLinks: { checkoutPageId: page.id },
    customer,
    company: {
      id: page.company_id,
      name: page.company_name,
      time_zone: page.time_zone,
      pix_expiration_minutes: page.pix_expiration_minutes,
      boleto_due_days: page.boleto_due_days,
    },
  };
  return context;
}

/** POST /carts/{id}/pay: the cart's items, freight and override; the cart's customer fills what the body lacks. */
export async function cartContext(
  db: Kysely<DB>,
  cartId: string,
  coupon: string | undefined,
  customer: CustomerInput,
): Promise<PayContext> {
  const cart = await findPayCart(db, cartId);
  if (!cart) throw notFound('Cart');
  await assertCartUnpaid(db, cart.account_id, cart.id);
  const items = await listCartLines(db, cart.account_id, cart.id);
  return {
    entry: 'cart',
    accountId: cart.account_id,
    companyId: cart.company_id,
    query: { cart_id: cart.id, ...(coupon !== undefined ? { coupon } : {}) },
    defaultGateway: cart.gateway,
    enableTwoCards: cart.enable_two_cards,
    requireScheduling: cart.require_scheduling,
    upsellProductId: null,
    redirectUrl: cart.redirect_url,
    lines: items.map((item) => ({
      productId: item.product_id,
      name: item.name,
      unitName: item.unit_name ?? 'unit',
      quantity: item.quantity,
      unitCents: item.unit_value_cents,
      totalCents: item.total_cents,
      subscription: item.subscription ?? false,
      interval: item.interval ?? null,
      intervalCount: item.interval_count ?? null,
    })),
    freightCents: cart.freight_cents,
    orderLinks: { cartId: cart.id, cartPageId: cart.cart_page_id },
    customer: { ...customer, prefill: (cart.customer ?? {}) as Record<string, unknown> },
  };
}

const UNPAYABLE = new Set<string>([...PURCHASED_STATUSES, 'cancelled']);

/**
 * A cart is one purchase: once an order of it was paid, paying the cart again would buy it twice. `lock` first
 * locks the cart row (the claim of a pay attempt decides under it).
 */
export async function assertCartUnpaid(
  db: Kysely<DB>,
  accountId: string,
  cartId: string,
  options: { lock?: boolean } = {},
): Promise<void> {
  const purchased = await purchasedOrderOfCart(db, accountId, cartId, options);
  if (purchased)
    throw businessRule(
      `This cart was already paid (its order is ${purchased.replace('_', ' ')}) and cannot be paid again`,
    );
}

/** POST /charges/{id}/pay: the charge's own order, payable while it is not paid, cancelled or refunded. */
export async function chargeContext(
  db: Kysely<DB>,
  uid: string,
  identity: Pick<CustomerInput, 'name' | 'identification'> = {},
): Promise<PayContext & { orderStatus: string }> {
  const charge = await findPayCharge(db, uid);
  if (!charge) throw notFound('Charge');
  const defaultGateway =
    charge.page_gateway ??
    charge.cart_page_gateway ??
    (await firstCardGateway(db, charge.account_id, charge.company_id)) ??
    'gateway_a';
  return {
    entry: 'charge',
    accountId: charge.account_id,
    companyId: charge.company_id,
    query: { charge_id: charge.uid },
    defaultGateway,
    enableTwoCards: charge.enable_two_cards,
    requireScheduling: false,
    upsellProductId: null,
    redirectUrl: null,
    existingOrder: { id: charge.id, uid: charge.uid, customerId: charge.customer_id },
    lines: [],
    freightCents: 0,
    orderLinks: {},
    customer: charge.customer_id === null ? {} : { customerId: charge.customer_id, ...identity },
    orderStatus: charge.status,
  };
}

export function assertChargePayable(status: string): void {
  if (UNPAYABLE.has(status)) throw businessRule(`This charge is ${status} and cannot be paid again`);
}
