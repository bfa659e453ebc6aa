import qs from 'qs';

const LIMITS = { depth: 3, parameterLimit: 200, allowPrototypes: false, strictDepth: false } as const;
/** As many items as a query may hold parameters: a list stays a list, and its route's maxItems answers with the right message. */
const ARRAY_LIMIT = LIMITS.parameterLimit;
const HASH_OPTIONS = { ...LIMITS, parseArrays: false } as const;
const ARRAY_OPTIONS = { ...LIMITS, arrayLimit: ARRAY_LIMIT } as const;

/** Recently parsed query strings (a checkout's pages repeat the same few): at most this many, each at most MEMO_MAX_LENGTH long. */
const MEMO_ENTRIES = 500;
const MEMO_MAX_LENGTH = 1_024;
const memo = new Map<string, Record<string, unknown>>();

/**
 * Rails-style query strings with limits that keep a hostile query from building deep or huge structures.
 * Only empty brackets make arrays (`ids[]=a&ids[]=b`, `status[]=paid`); a bracketed number is a hash key
 * (`products[7]=2` is `{ products: { "7": "2" } }`), since the spec's product hashes are keyed by id.
 * qs alone would read `products[7]` as an array index and lose the id, so the two kinds are parsed apart.
 * Parsing costs tens of microseconds, so recent results are kept and handed out as fresh copies
 * (validation coerces the query in place).
 */
export function parseQueryString(query: string): Record<string, unknown> {
  if (query.length > MEMO_MAX_LENGTH) return parseUncached(query);
  let parsed = memo.get(query);
  if (!parsed) {
    parsed = parseUncached(query);
    if (memo.size >= MEMO_ENTRIES) memo.delete(memo.keys().next().value!);
    memo.set(query, parsed);
  }
  return copyParsed(parsed);
}

function parseUncached(query: string): Record<string, unknown> {
  const pairs = query.split('&').filter(Boolean).slice(0, LIMITS.parameterLimit);
  const arrayPairs: string[] = [];
  const hashPairs: string[] = [];
  for (const pair of pairs) (decodeKey(pair).endsWith('[]') ? arrayPairs : hashPairs).push(pair);
  const hashes = hashPairs.length ? qs.parse(hashPairs.join('&'), HASH_OPTIONS) : {};
  if (arrayPairs.length === 0) return hashes;
  return deepMerge(hashes, qs.parse(arrayPairs.join('&'), ARRAY_OPTIONS));
}

/** A deep copy of what qs builds: plain objects, arrays and strings. */
function copyParsed<T>(value: T): T {
  if (Array.isArray(value)) return value.map(copyParsed) as T;
  if (!isPlainObject(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) if (key !== '__proto__') copy[key] = copyParsed(value[key]);
  return copy as T;
}

function decodeKey(pair: string): string {
  const key = pair.split('=', 1)[0]!;
  try {
    return decodeURIComponent(key.replace(/\+/g, ' '));
  } catch {
    return key;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function deepMerge(target: Record<string, unknown>, source: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(source)) {
    const current = target[key];
    target[key] = isPlainObject(current) && isPlainObject(value) ? deepMerge(current, value) : value;
  }
  return target;
}
