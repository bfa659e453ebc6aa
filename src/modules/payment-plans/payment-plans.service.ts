import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { businessRule } from '../../http/errors.ts';
import type { CompanyRef } from '../accounts/index.ts';
import { type InstallmentOption, installmentOptions } from '../pricing/index.ts';
import { resolvePricingContext, type PricingContext, type PricingQuery } from './payment-plans.context.ts';
import { databaseReads, type PricingReads } from './payment-plans.reads.ts';
import type { PlanRow, PlanSource } from './payment-plans.repo.ts';
import { contextTotal, type ContextTotal } from './payment-plans.totals.ts';

export type PaymentMethod = 'credit_card' | 'bank_slip' | 'pix';

export type PricedPlan = {
  id: number;
  name: string;
  paymentMethod: PaymentMethod;
  fineType: string;
  fineCents: number;
  fineTax: number;
  lateInterestCents: number;
  lateInterestTax: number;
  /** Selectable installment counts, ascending. */
  options: InstallmentOption[];
};

export type PaymentPlanOffer = ContextTotal & { context: PricingContext; plans: PricedPlan[] };

/**
 * The plans a context offers and what each installment count costs, all in cents. A total of zero has
 * nothing to charge (a payment is never of zero), so its plans offer no option.
 */
export async function pricePaymentPlans(
  db: Kysely<DB>,
  context: PricingContext,
  query: PricingQuery,
  now: Date,
  reads: PricingReads = databaseReads(db),
): Promise<PaymentPlanOffer> {
  const [total, rows] = await Promise.all([
    contextTotal(db, reads, context, query, now),
    reads.planRows(context.accountId, planSource(context)),
  ]);
  const plans = groupPlans(rows)
    .sort((a, b) => Number(b.id === context.preferredPlanId) - Number(a.id === context.preferredPlanId))
    .map(({ taxes, terms, ...plan }) => ({
      ...plan,
      options: total.baseCents > 0 ? installmentOptions(total.baseCents, terms, taxes) : [],
    }));
  return { ...total, context, plans };
}

/**
 * Which plans a context offers: a checkout page its linked plans; a cart or cart page the cart page's
 * plans; a charge every kept plan of its company (its own plan first); no context, every kept plan of
 * the company.
 */
function planSource(context: PricingContext): PlanSource {
  if (context.kind === 'checkout_page') return { kind: 'checkout_page', pageId: context.pageId };
  if (context.kind === 'cart' || context.kind === 'cart_page')
    return { kind: 'cart_page', cartPageId: context.cartPageId };
  return { kind: 'company', companyId: context.companyId };
}

type PlanWithTaxes = Omit<PricedPlan, 'options'> & {
  terms: { maxInstallments: number; minInstallmentCents: number };
  taxes: { installments: number; fixedCents: number; percentage: number }[];
};

function groupPlans(rows: PlanRow[]): PlanWithTaxes[] {
  const plans = new Map<number, PlanWithTaxes>();
  for (const row of rows) {
    let plan = plans.get(row.id);
    if (!plan) {
      plan = {
        id: row.id,
        name: row.name,
        paymentMethod: row.payment_method as PaymentMethod,
        fineType: row.fine_type,
        fineCents: row.fine_cents,
        fineTax: row.fine_tax,
        lateInterestCents: row.late_interest_cents,
        lateInterestTax: row.late_interest_tax,
        terms: { maxInstallments: row.max_installments, minInstallmentCents: row.min_installment_cents },
        taxes: [],
      };
      plans.set(row.id, plan);
    }
    if (row.installments !== null)
      plan.taxes.push({
        installments: row.installments,
        fixedCents: row.fixed_cents ?? 0,
        percentage: row.percentage ?? 0,
      });
  }
  return [...plans.values()];
}

/** What the buyer pays for one option, recomputed from the database: the only amount a pay flow may charge. */
export type PaymentPlanQuote = {
  accountId: string;
  companyId: number;
  context: PricingContext;
  planId: number;
  paymentMethod: PaymentMethod;
  installments: number;
  /** The context total before interest and fixed fee (coupon, fine and late interest included). */
  baseCents: number;
  /** installmentValueCents × installments: what the buyer is charged in all (the sum of `scheduleCents`). */
  totalCents: number;
  /** totalCents − baseCents: the interest, the fixed fee and the installment rounding together. */
  interestCents: number;
  fixedCents: number;
  percentage: number;
  /** Every installment, the `value` the option announced. */
  installmentValueCents: number;
  scheduleCents: number[];
  coupon?: ContextTotal['coupon'];
  overdue?: ContextTotal['overdue'];
};

/** A free cart, or a coupon that takes the whole total: refused before anything is stored or charged. */
const NOTHING_TO_PAY = 'The total to pay is zero: there is nothing to charge';

const OPTION_ID = /^([1-9][0-9]{0,14})-([1-9][0-9]?)$/;

export function parseOptionId(optionId: string): { planId: number; installments: number } {
  const match = OPTION_ID.exec(optionId);
  if (!match) throw businessRule('payment_plan_id must be `{plan_id}-{installments}`, as in the payment plan’s id');
  return { planId: Number(match[1]), installments: Number(match[2]) };
}

/**
 * Prices the option `optionId` (`{plan_id}-{installments}`) for a query, as `GET /payment_plans`
 * offers it; a zero total, a plan the context does not offer or a count it cannot select is a 422.
 * It checks no access: the caller asserts it against `quote.accountId`.
 */
export async function quoteOption(
  db: Kysely<DB>,
  query: PricingQuery,
  optionId: string,
  now: Date,
  requestCompany: () => Promise<CompanyRef | undefined> = async () => undefined,
): Promise<PaymentPlanQuote> {
  parseOptionId(optionId); // a malformed id fails before any query
  const context = await resolvePricingContext(db, query, requestCompany);
  return quoteOptionInContext(db, context, query, optionId, now);
}

/** `quoteOption` for a context already resolved (and whose access was already asserted). */
export async function quoteOptionInContext(
  db: Kysely<DB>,
  context: PricingContext,
  query: PricingQuery,
  optionId: string,
  now: Date,
  reads: PricingReads = databaseReads(db),
): Promise<PaymentPlanQuote> {
  const wanted = parseOptionId(optionId);
  const offer = await pricePaymentPlans(db, context, query, now, reads);
  if (offer.baseCents <= 0)
    throw businessRule(NOTHING_TO_PAY, [{ field: 'body/payment_plan_id', message: 'the total to pay is zero' }]);
  const plan = offer.plans.find((candidate) => candidate.id === wanted.planId);
  if (!plan) throw businessRule('payment_plan_id is not offered here');
  const option = plan.options.find((candidate) => candidate.installments === wanted.installments);
  if (!option)
    throw businessRule(
      `payment_plan_id: ${wanted.installments} installments are not available for this plan and total`,
    );
  return {
    accountId: context.accountId,
    companyId: context.companyId,
    context,
    planId: plan.id,
    paymentMethod: plan.paymentMethod,
    installments: option.installments,
    baseCents: option.baseCents,
    totalCents: option.totalCents,
    interestCents: option.totalCents - option.baseCents,
    fixedCents: option.fixedCents,
    percentage: option.percentage,
    installmentValueCents: option.installmentCents,
    scheduleCents: option.scheduleCents,
    ...(offer.coupon ? { coupon: offer.coupon } : {}),
    ...(offer.overdue ? { overdue: offer.overdue } : {}),
  };
}
