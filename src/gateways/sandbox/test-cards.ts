/** The test cards every sandbox knows, identical on the three gateways (documented in docs/gateways.md). */

export type CardBehaviour =
  'approved' | 'declined' | 'insufficient_funds' | 'gateway_error' | 'gateway_timeout' | 'approved_late';

export const TEST_CARDS: Readonly<Record<string, CardBehaviour>> = {
  '4111111111111111': 'approved',
  '4000000000000002': 'declined',
  '4000000000009995': 'insufficient_funds',
  '4000000000000119': 'gateway_error',
  '4000000000000259': 'gateway_timeout',
  // Approved, but only after the hold: the caller has usually given up by then (a capture it never heard of).
  '4000000000000267': 'approved_late',
};

/** What a token, card hash or saved card stands for: never the full number. */
export type TestCard = {
  behaviour: CardBehaviour;
  brand: string;
  firstSix: string;
  lastFour: string;
  holderName: string;
  expMonth: number;
  expYear: number;
};

export type CardInput = { number: unknown; holderName: unknown; expMonth: unknown; expYear: unknown; cvv: unknown };

export type CardReading =
  { card: TestCard } | { field: 'number' | 'holder_name' | 'exp_month' | 'exp_year' | 'cvv'; message: string };

/** Checks card data as a tokenizer would: a known test card, a future expiry, any 3–4 digit CVV. */
export function readTestCard(input: CardInput, now: Date): CardReading {
  const number = digitsOf(input.number);
  if (number === null) return { field: 'number', message: 'The card number is invalid' };
  const behaviour = TEST_CARDS[number];
  if (behaviour === undefined) return { field: 'number', message: 'This sandbox accepts only its test card numbers' };
  const holderName = typeof input.holderName === 'string' ? input.holderName.trim() : '';
  if (holderName === '' || holderName.length > 64)
    return { field: 'holder_name', message: 'The holder name is required (at most 64 characters)' };
  const expMonth = integerOf(input.expMonth);
  if (expMonth === null || expMonth < 1 || expMonth > 12)
    return { field: 'exp_month', message: 'The expiry month is invalid' };
  const shortYear = integerOf(input.expYear);
  const expYear = shortYear !== null && shortYear < 100 ? 2000 + shortYear : shortYear;
  if (expYear === null || expYear > 2100) return { field: 'exp_year', message: 'The expiry year is invalid' };
  if (Date.UTC(expYear, expMonth, 1) <= now.getTime()) return { field: 'exp_year', message: 'The card is expired' };
  if (!/^\d{3,4}$/.test(String(input.cvv ?? ''))) return { field: 'cvv', message: 'The CVV must have 3 or 4 digits' };
  return {
    card: {
      behaviour,
      brand: brandOf(number),
      firstSix: number.slice(0, 6),
      lastFour: number.slice(-4),
      holderName,
      expMonth,
      expYear,
    },
  };
}

function digitsOf(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const digits = value.replace(/[\s-]/g, '');
  return /^\d{13,19}$/.test(digits) ? digits : null;
}

function integerOf(value: unknown): number | null {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'string' && /^\d{1,4}$/.test(value)) return Number(value);
  return null;
}

function brandOf(number: string): string {
  if (number.startsWith('4')) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(number)) return 'mastercard';
  if (/^3[47]/.test(number)) return 'amex';
  return 'unknown';
}
