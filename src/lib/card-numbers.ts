import { isValidCnpj } from '../brazil/documents.ts';
import { passesLuhn } from './luhn.ts';

/**
 * Digit groups joined by single spaces or dashes, starting where no letter, digit or underscore precedes:
 * digits inside an alphanumeric word (a gateway token, `ck_…`, `evt_…`, a base64 string) are not a PAN.
 * The last group is dropped later when a word character follows it.
 */
const DIGIT_GROUPS = /(?<![0-9A-Za-z_])[0-9]+(?:[ -][0-9]+)*/g;
const GROUP_SEPARATOR = /[ -]/;
const WORD_CHARACTER = /[0-9A-Za-z_]/;
/** Our own ids (pages, carts, charges, payments, requests) are v4 UUIDs; their digit groups are never a card. */
const UUID = /[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}/g;
const MAX_DEPTH = 32;

/**
 * How card numbers are written when grouped: in fours whatever the length (the last group shorter: 13 to 19
 * digits, as printed on Visa, Mastercard, Elo, Hipercard, Discover, JCB and as card forms format them), 4-6-5
 * (15-digit Amex), 4-6-4 (14-digit Diners) and 4-4-5 (13-digit Visa). A grouped run in any other shape (a
 * UUID's 8-4-4, a date, a phone number) is not a card number. An ungrouped run of 13 to 19 digits may be.
 */
const CARD_GROUPINGS = new Set([
  '4-4-4-1',
  '4-4-4-2',
  '4-4-4-3',
  '4-4-4-4',
  '4-4-4-4-1',
  '4-4-4-4-2',
  '4-4-4-4-3',
  '4-6-5',
  '4-6-4',
  '4-4-5',
]);
const MAX_GROUPS = 5;

/**
 * True when a primary account number (13–19 digits passing Luhn, issued under a card brand prefix 2–6)
 * appears anywhere in the value, ungrouped or in a card's grouping. The brand prefix keeps millisecond
 * timestamps (leading 1) out; a 14-digit run with valid CNPJ check digits is a company document, not a card.
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
  return text.length >= 13 && cardNumberSpans(text).length > 0;
}

/** The text with every card number replaced, for log lines that must quote a URL. */
export function redactCardNumbers(text: string): string {
  if (text.length < 13) return text;
  const spans = cardNumberSpans(text);
  if (!spans.length) return text;
  let result = '';
  let from = 0;
  for (const [start, end] of spans) {
    if (start < from) {
      from = Math.max(from, end);
      continue;
    }
    result += `${text.slice(from, start)}[Redacted]`;
    from = end;
  }
  return result + text.slice(from);
}

/** [start, end) of each card number in the text, in order. */
function cardNumberSpans(original: string): Array<[number, number]> {
  // A UUID is blanked out with underscores (same length, so positions hold): its digits become part of a word.
  const text = original.includes('-') ? original.replace(UUID, (uuid) => '_'.repeat(uuid.length)) : original;
  const spans: Array<[number, number]> = [];
  for (const match of text.matchAll(DIGIT_GROUPS)) {
    const groups = digitGroups(match[0], match.index);
    if (WORD_CHARACTER.test(text[match.index + match[0].length] ?? '')) groups.pop();
    for (let first = 0; first < groups.length; first++) {
      for (let last = first; last < Math.min(groups.length, first + MAX_GROUPS); last++) {
        const window = groups.slice(first, last + 1);
        if (isCardNumber(window)) spans.push([window[0]!.start, window.at(-1)!.end]);
      }
    }
  }
  return spans.sort((a, b) => a[0] - b[0]);
}

type DigitGroup = { digits: string; start: number; end: number };

function digitGroups(run: string, offset: number): DigitGroup[] {
  const groups: DigitGroup[] = [];
  let start = 0;
  for (const digits of run.split(GROUP_SEPARATOR)) {
    groups.push({ digits, start: offset + start, end: offset + start + digits.length });
    start += digits.length + 1;
  }
  return groups;
}

function isCardNumber(groups: DigitGroup[]): boolean {
  const digits = groups.map((group) => group.digits).join('');
  if (digits.length < 13 || digits.length > 19) return false;
  if (groups.length > 1 && !CARD_GROUPINGS.has(groups.map((group) => group.digits.length).join('-'))) return false;
  if (digits[0]! < '2' || digits[0]! > '6') return false;
  if (digits.length === 14 && isValidCnpj(digits)) return false;
  return passesLuhn(digits);
}
