import { isValidCnpj } from '../brazil/documents.ts';
import { passesLuhn } from './luhn.ts';

// A maximal run of digits, optionally grouped by single spaces or dashes as people type card numbers,
// standing on its own: digits inside an alphanumeric word (a gateway token, a base64 string) are not a PAN.
const DIGIT_RUN = /(?<![0-9A-Za-z_])[0-9](?:[ -]?[0-9]){12,22}(?![0-9A-Za-z_])/g;
const MAX_DEPTH = 32;

/**
 * True when a primary account number (13–19 digits passing Luhn, issued under a card brand prefix 2–6)
 * appears anywhere in the value. The brand prefix keeps millisecond timestamps (leading 1) out;
 * a 14-digit run with valid CNPJ check digits is a company document, not a card.
 */
export function containsCardNumber(value: unknown, depth = 0): boolean {
  if (depth > MAX_DEPTH) return false;
  if (typeof value === 'string') return stringContainsCardNumber(value);
  if (typeof value === 'number') return Number.isInteger(value) && stringContainsCardNumber(value.toFixed(0));
  if (typeof value === 'bigint') return stringContainsCardNumber(value.toString());
  if (Array.isArray(value)) return value.some((item) => containsCardNumber(item, depth + 1));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).some(
      ([key, item]) => stringContainsCardNumber(key) || containsCardNumber(item, depth + 1),
    );
  }
  return false;
}

function stringContainsCardNumber(text: string): boolean {
  if (text.length < 13) return false;
  for (const match of text.matchAll(DIGIT_RUN)) if (isCardNumber(match[0])) return true;
  return false;
}

function isCardNumber(run: string): boolean {
  const digits = run.replace(/[ -]/g, '');
  if (digits.length < 13 || digits.length > 19) return false;
  if (digits[0]! < '2' || digits[0]! > '6') return false;
  if (digits.length === 14 && isValidCnpj(digits)) return false;
  return passesLuhn(digits);
}

/** The text with every card number replaced, for log lines that must quote a URL. */
export function redactCardNumbers(text: string): string {
  return text.length < 13 ? text : text.replace(DIGIT_RUN, (run) => (isCardNumber(run) ? '[Redacted]' : run));
}
