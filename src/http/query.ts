import qs from 'qs';

const LIMITS = { depth: 3, parameterLimit: 200, allowPrototypes: false, strictDepth: false } as const;
const ARRAY_LIMIT = 100;

/**
 * Rails-style query strings with limits that keep a hostile query from building deep or huge structures.
 * Only empty brackets make arrays (`ids[]=a&ids[]=b`, `status[]=paid`); a bracketed number is a hash key
 * (`products[7]=2` is `{ products: { "7": "2" } }`), since the spec's product hashes are keyed by id.
 * qs alone would read `products[7]` as an array index and lose the id, so the two kinds are parsed apart.
 */
export function parseQueryString(query: string): Record<string, unknown> {
  const pairs = query.split('&').filter(Boolean).slice(0, LIMITS.parameterLimit);
  const arrayPairs: string[] = [];
  const hashPairs: string[] = [];
  for (const pair of pairs) (decodeKey(pair).endsWith('[]') ? arrayPairs : hashPairs).push(pair);
  const hashes = qs.parse(hashPairs.join('&'), { ...LIMITS, parseArrays: false });
  const arrays = qs.parse(arrayPairs.join('&'), { ...LIMITS, arrayLimit: ARRAY_LIMIT });
  return deepMerge(hashes, arrays);
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
