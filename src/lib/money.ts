/** Money is integer cents inside the service; the API speaks major units. These are the only conversions. */

export function toCents(major: number): number {
  const cents = Math.round(major * 100);
  if (!Number.isFinite(major) || Math.abs(major * 100 - cents) > 1e-6)
    throw new RangeError(`amount ${major} has more than two decimals`);
  if (!Number.isSafeInteger(cents)) throw new RangeError(`amount ${major} is out of range`);
  return cents;
}

export function toMajor(cents: number): number {
  return cents / 100;
}

export function hasAtMostTwoDecimals(major: number): boolean {
  return Number.isFinite(major) && Math.abs(major * 100 - Math.round(major * 100)) <= 1e-6;
}

/** The sum of integer cents, e.g. `sumOf(payments, (payment) => payment.amount_cents)`. */
export function sumOf<T>(items: readonly T[], cents: (item: T) => number): number {
  return items.reduce((total, item) => total + cents(item), 0);
}
