import { BOLETO_MAX_AMOUNT_CENTS } from '../brazil/boleto.ts';
import { toMajor } from '../lib/money.ts';
import { businessRule } from './errors.ts';

/**
 * The most one order or cart may add up to, and the most any of its amounts (a line, the items, the
 * discount, freight, the total) may be: 9 999 999 999 cents (99,999,999.99). It is what a boleto's ten-digit
 * amount field carries, so every order can be paid by every method; it equals the `Money` schema's
 * maximum for a single amount; and it is far below 2^53, so sums stay exact and the int8 columns they
 * are stored in can always be read back.
 */
export const MAX_AMOUNT_CENTS = BOLETO_MAX_AMOUNT_CENTS;

export type NamedAmount = { field: string; cents: number };

/**
 * Refuses (422 business_rule_violation) when any amount is above MAX_AMOUNT_CENTS, naming each such
 * field. Call it before anything is written, so a refused request stores nothing.
 */
export function assertWithinAmountLimit(what: string, amounts: readonly NamedAmount[]): void {
  // `!(x <= max)` also refuses NaN.
  const over = amounts.filter((amount) => !(amount.cents <= MAX_AMOUNT_CENTS));
  if (over.length === 0) return;
  const limit = toMajor(MAX_AMOUNT_CENTS).toFixed(2);
  const fields = [...new Set(over.map((amount) => amount.field))];
  throw businessRule(
    `${what} exceeds ${limit}, the most one order may amount to`,
    fields.map((field) => ({ field, message: `must not add up to more than ${limit}` })),
  );
}

/** Whether one payment can carry `cents` (interest and fees included): a boleto's ten-digit amount, like any amount of an order. */
export function fitsOnePayment(cents: number): boolean {
  return cents <= MAX_AMOUNT_CENTS;
}

/** Refuses (422, naming `field`) a payment above what one payment can carry, before anything is stored. */
export function assertFitsOnePayment(cents: number, field: string): void {
  if (fitsOnePayment(cents)) return;
  const limit = toMajor(MAX_AMOUNT_CENTS).toFixed(2);
  throw businessRule(
    `${field.replace(/^body\//, '')}: with this plan's interest and fees the amount to pay exceeds ${limit}, the most one payment may carry`,
    [{ field, message: 'the amount to pay is above the limit' }],
  );
}
