/**
 * Text normalisation for Pix BR Code fields.
 *
 * The BR Code uses the EMV "ans" character set (printable ASCII), so accents are removed by
 * Unicode decomposition (NFD) followed by dropping the combining marks: "São Paulo" → "Sao Paulo",
 * "Açaí" → "Acai". Runs of whitespace become one space and the ends are trimmed. A character that
 * is still outside printable ASCII afterwards (e.g. "ß", "Ø", an emoji) is rejected rather than
 * silently dropped, because the payer would see a different name.
 *
 * Merchant city is also upper-cased (the manual's examples and bank apps show cities that way).
 * Merchant name keeps its case: the BCB example itself carries "Fulano de Tal", and upper-casing
 * it would change the payload. Name and city are cut to 25 and 15 characters, the limits of
 * fields 59 and 60: they are display text, and a long legal name must not block a payment.
 */

export const MERCHANT_NAME_MAX_LENGTH = 25;
export const MERCHANT_CITY_MAX_LENGTH = 15;

const COMBINING_MARKS = /\p{M}/gu;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Accent-free, single-spaced, trimmed text; throws if a character has no ASCII form. */
export function toBrCodeText(value: string, fieldName: string): string {
  const text = value.normalize('NFD').replace(COMBINING_MARKS, '').replace(/\s+/g, ' ').trim();
  if (!PRINTABLE_ASCII.test(text)) {
    throw new RangeError(
      `${fieldName} has characters with no ASCII form after removing accents: ${JSON.stringify(value)}`,
    );
  }
  return text;
}

function cutTo(text: string, maxLength: number): string {
  return text.slice(0, maxLength).trimEnd();
}

function requireNonEmpty(text: string, fieldName: string): string {
  if (text === '') throw new RangeError(`${fieldName} must not be empty`);
  return text;
}

/** Field 59: accents removed, case kept, at most 25 characters. */
export function normaliseMerchantName(name: string): string {
  return requireNonEmpty(cutTo(toBrCodeText(name, 'merchantName'), MERCHANT_NAME_MAX_LENGTH), 'merchantName');
}

/** Field 60: accents removed, upper-cased, at most 15 characters. */
export function normaliseMerchantCity(city: string): string {
  return requireNonEmpty(
    cutTo(toBrCodeText(city, 'merchantCity').toUpperCase(), MERCHANT_CITY_MAX_LENGTH),
    'merchantCity',
  );
}
