import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { businessRule, validationFailed } from '../../http/errors.ts';
import { databaseReads, type PricingReads } from './payment-plans.reads.ts';
import { findCart, findCartPage, findCharge } from './payment-plans.repo.ts';
import type { CompanyRef } from '../accounts/index.ts';

/** The query of `GET /payment_plans`, also what pay flows pass to `quoteOption`. */
export type PricingQuery = {
  checkout_page_id?: string;
  charge_id?: string;
  cart_id?: string;
  cart_page_id?: string;
  /** Major units; replaces the context's total. */
  amount?: number;
  coupon?: string;
  /** Product id → quantity. */
  products?: Record<string, number>;
  /** Where a pay body named each product, so an error names that field rather than the query string's `products[id]`. */
  productField?: (productId: number, part: 'id' | 'quantity') => string;
};

type ContextBase = CompanyRef & { currency: string; couponsEnabled: boolean; preferredPlanId: number | null };

export type PricingContext =
  | (ContextBase & { kind: 'checkout_page'; pageId: string })
  | (ContextBase & { kind: 'charge'; dueDate: string; timeZone: string; owedCents: number; planId: number | null })
  | (ContextBase & {
      kind: 'cart';
      cartId: string;
      cartPageId: string;
      freightCents: number;
      totalOverrideCents: number | null;
    })
  | (ContextBase & { kind: 'cart_page'; cartPageId: string })
  | (ContextBase & { kind: 'company' });

export type ContextKind = PricingContext['kind'];

/** Rule 1 of the specification: when several contexts are sent, the first of this list wins. */
export function chosenContextKind(query: PricingQuery): ContextKind {
  if (query.checkout_page_id !== undefined) return 'checkout_page';
  if (query.charge_id !== undefined) return 'charge';
  if (query.cart_id !== undefined) return 'cart';
  if (query.cart_page_id !== undefined) return 'cart_page';
  return 'company';
}

export function hasProducts(query: PricingQuery): boolean {
  return query.products !== undefined && Object.keys(query.products).length > 0;
}

/** What the query must carry for its context, checked before anything is loaded. */
export function assertQueryShape(query: PricingQuery, kind: ContextKind): void {
  if ((kind === 'checkout_page' || kind === 'company') && !hasProducts(query)) {
    throw validationFailed('products is required (product id → quantity, as products[7]=2)');
  }
  if (kind === 'cart_page' && !hasProducts(query) && query.amount === undefined) {
    throw validationFailed('cart_page_id needs amount or products');
  }
}

/**
 * The one context of a query and who owns it. An unknown context id is a 422 (the route knows no
 * other client error besides 403). With no context, `requestCompany` names the company (per-company
 * host or the API key's primary company).
 */
export async function resolvePricingContext(
  db: Kysely<DB>,
  query: PricingQuery,
  requestCompany: () => Promise<CompanyRef | undefined>,
  reads: PricingReads = databaseReads(db),
): Promise<PricingContext> {
  const kind = chosenContextKind(query);
  assertQueryShape(query, kind);
  switch (kind) {
    case 'checkout_page': {
      const page = await reads.checkoutPage(query.checkout_page_id!);
      if (!page) throw businessRule('checkout_page_id does not name a checkout page');
      return checkoutPagePricingContext(page);
    }
    case 'charge': {
      const charge = await findCharge(db, query.charge_id!);
      if (!charge) throw businessRule('charge_id does not name a charge');
      return {
        kind,
        ...owner(charge),
        couponsEnabled: false,
        preferredPlanId: charge.payment_plan_id,
        dueDate: charge.due_date!,
        timeZone: charge.time_zone,
        // A charge partly paid elsewhere is priced on what remains of it.
        owedCents: Math.max(0, charge.total_cents - (charge.settled_principal_cents ?? 0)),
        planId: charge.payment_plan_id,
      };
    }
    case 'cart': {
      const cart = await findCart(db, query.cart_id!);
      if (!cart) throw businessRule('cart_id does not name a cart');
      return {
        kind,
        cartId: cart.id,
        cartPageId: cart.cart_page_id,
        ...owner(cart),
        couponsEnabled: cart.enable_coupons,
        preferredPlanId: cart.default_payment_plan_id,
        freightCents: cart.freight_cents,
        totalOverrideCents: cart.total_override_cents,
      };
    }
    case 'cart_page': {
      const cartPage = await findCartPage(db, query.cart_page_id!);
      if (!cartPage) throw businessRule('cart_page_id does not name a cart page');
      return {
        kind,
        cartPageId: cartPage.id,
        ...owner(cartPage),
        couponsEnabled: cartPage.enable_coupons,
        preferredPlanId: cartPage.default_payment_plan_id,
      };
    }
    case 'company': {
      const company = await requestCompany();
      if (!company)
        throw businessRule(
          'Send a context (checkout_page_id, charge_id, cart_id or cart_page_id), an API key, or use the company’s own host',
        );
      return { kind, ...company, currency: 'BRL', couponsEnabled: true, preferredPlanId: null };
    }
  }
}

/** The pricing context of a checkout page row already read (the pay flow reads the page itself). */
export function checkoutPagePricingContext(page: {
  id: string;
  account_id: string;
  company_id: number;
  currency: string;
  enable_coupons: boolean;
  default_payment_plan_id: number | null;
}): PricingContext {
  return {
    kind: 'checkout_page',
    pageId: page.id,
    ...owner(page),
    couponsEnabled: page.enable_coupons,
    preferredPlanId: page.default_payment_plan_id,
  };
}

function owner(row: { account_id: string; company_id: number; currency: string }) {
  return { accountId: row.account_id, companyId: row.company_id, currency: row.currency.trim() };
}
