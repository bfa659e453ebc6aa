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
  /** base + interest + fixed fee: what the buyer pays in all. */
  totalCents: number;
  /** One amount per installment; they sum to `totalCents` exactly, the first is the largest (by one cent at most). */
  scheduleCents: number[];
};

const NO_TAX = { fixedCents: 0, percentage: 0 };

/**
 * The total for `installments` payments of `baseCents`: `percentage` is the whole interest for that
 * count, applied once to the base (1.79 → the total grows by 1.79%), then the fixed fee is added.
 */
export function installmentTotal(
  baseCents: number,
  tax: Pick<InstallmentTax, 'fixedCents' | 'percentage'> = NO_TAX,
): number {
  assertCents(baseCents, 'baseCents');
  return baseCents + percentOf(baseCents, tax.percentage) + tax.fixedCents;
}

/**
 * Splits `totalCents` into `count` installments that sum to it exactly and differ by at most one
 * cent: each is floor(total / count), and the first (total mod count) carry one extra cent. So the
 * first installment, the one announced, is ceil(total / count), and never grows with the count.
 */
export function splitInstallments(totalCents: number, count: number): number[] {
  assertCents(totalCents, 'totalCents');
  if (!Number.isInteger(count) || count < 1) throw new RangeError('count must be a positive integer');
  const regular = Math.floor(totalCents / count);
  const withExtraCent = totalCents - regular * count;
  return Array.from({ length: count }, (_, index) => (index < withExtraCent ? regular + 1 : regular));
}

/**
 * Every selectable installment count of a plan for `baseCents`, ascending. One payment is always
 * offered; n > 1 is offered while each installment (the smallest, floor(total_n / n)) is at least
 * the plan's minimum and at least one cent.
 */
export function installmentOptions(
  baseCents: number,
  terms: InstallmentTerms,
  taxes: readonly InstallmentTax[],
): InstallmentOption[] {
  const taxByCount = new Map(taxes.map((tax) => [tax.installments, tax]));
  const options: InstallmentOption[] = [];
  for (let n = 1; n <= Math.max(1, terms.maxInstallments); n++) {
    const option = installmentOption(baseCents, n, taxByCount.get(n));
    if (n === 1 || isSelectable(option, terms.minInstallmentCents)) options.push(option);
  }
  return options;
}

export function installmentOption(
  baseCents: number,
  installments: number,
  tax: InstallmentTax | undefined,
): InstallmentOption {
  const { fixedCents, percentage } = tax ?? NO_TAX;
  const totalCents = installmentTotal(baseCents, { fixedCents, percentage });
  return {
    installments,
    baseCents,
    percentage,
    fixedCents,
    totalCents,
    scheduleCents: splitInstallments(totalCents, installments),
  };
}

function isSelectable(option: InstallmentOption, minInstallmentCents: number): boolean {
  const smallest = Math.floor(option.totalCents / option.installments);
  return smallest >= Math.max(1, minInstallmentCents);
}

function assertCents(value: number, name: string): void {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`${name} must be a non-negative integer number of cents`);
}
