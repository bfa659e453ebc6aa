import { percentOf } from './rounding.ts';

/** A plan's interest and fixed fee for one installment count (`payment_plan_taxes`); a count without a row has neither. */
export type InstallmentTax = { installments: number; fixedCents: number; percentage: number };

/** What decides which installment counts a plan offers. */
export type InstallmentTerms = { maxInstallments: number; minInstallmentCents: number };

export type InstallmentOption = {
  installments: number;
  baseCents: number;
  /** The tax row applied (zeros without a row). */
  percentage: number;
  fixedCents: number;
  /** What every installment charges: the priced total divided by the count, rounded up to the cent. */
  installmentCents: number;
  /** installmentCents × installments: what the buyer pays in all, never below the base. */
  totalCents: number;
  /** One amount per installment, all equal to `installmentCents`. */
  scheduleCents: number[];
};

const NO_TAX = { fixedCents: 0, percentage: 0 };

/**
 * The base with a count's interest and fee, before it is split: `percentage` is the whole interest for
 * that count, applied once to the base (1.79 → the total grows by 1.79%), then the fixed fee is added.
 */
export function pricedTotal(
  baseCents: number,
  tax: Pick<InstallmentTax, 'fixedCents' | 'percentage'> = NO_TAX,
): number {
  assertCents(baseCents, 'baseCents');
  return baseCents + percentOf(baseCents, tax.percentage) + tax.fixedCents;
}

/**
 * The one installment rule: every installment is the priced total divided by the count, rounded up to the
 * cent, and the buyer pays that installment times the count. So the value announced times the count is
 * the total charged, exactly; the rounding adds at most count − 1 cents, which count as interest.
 */
export function installmentValue(pricedCents: number, installments: number): number {
  assertCents(pricedCents, 'pricedCents');
  if (!Number.isInteger(installments) || installments < 1)
    throw new RangeError('installments must be a positive integer');
  return Math.ceil(pricedCents / installments);
}

/** What `installments` payments of `baseCents` charge in all under the installment rule (one payment: the priced total). */
export function installmentTotal(
  baseCents: number,
  tax: Pick<InstallmentTax, 'fixedCents' | 'percentage'> = NO_TAX,
  installments = 1,
): number {
  return installmentValue(pricedTotal(baseCents, tax), installments) * installments;
}

/**
 * Every selectable installment count of a plan for `baseCents`, ascending. One payment is always
 * offered; n > 1 is offered while the priced total split n ways (rounded down) is at least the plan's
 * minimum and at least one cent, so the rounding never more than doubles a cent.
 */
export function installmentOptions(
  baseCents: number,
  terms: InstallmentTerms,
  taxes: readonly InstallmentTax[],
): InstallmentOption[] {
  const taxByCount = new Map(taxes.map((tax) => [tax.installments, tax]));
  const options: InstallmentOption[] = [];
  for (let n = 1; n <= Math.max(1, terms.maxInstallments); n++) {
    const tax = taxByCount.get(n) ?? NO_TAX;
    if (n === 1 || isSelectable(pricedTotal(baseCents, tax), n, terms.minInstallmentCents))
      options.push(installmentOption(baseCents, n, tax));
  }
  return options;
}

export function installmentOption(
  baseCents: number,
  installments: number,
  tax: Pick<InstallmentTax, 'fixedCents' | 'percentage'> | undefined,
): InstallmentOption {
  const { fixedCents, percentage } = tax ?? NO_TAX;
  const installmentCents = installmentValue(pricedTotal(baseCents, { fixedCents, percentage }), installments);
  return {
    installments,
    baseCents,
    percentage,
    fixedCents,
    installmentCents,
    totalCents: installmentCents * installments,
    scheduleCents: Array.from({ length: installments }, () => installmentCents),
  };
}

/** "Sem juros" means the buyer pays the base and not a cent more, whatever the plan's tax row says. */
export function isInterestFree(option: Pick<InstallmentOption, 'totalCents' | 'baseCents'>): boolean {
  return option.totalCents === option.baseCents;
}

function isSelectable(pricedCents: number, installments: number, minInstallmentCents: number): boolean {
  return Math.floor(pricedCents / installments) >= Math.max(1, minInstallmentCents);
}

function assertCents(value: number, name: string): void {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`${name} must be a non-negative integer number of cents`);
}
