/** Defensive readers for JSON that came from outside (gateway answers, webhook bodies). */

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function objectAt(value: unknown, key: string): JsonObject | undefined {
  if (!isObject(value)) return undefined;
  const found = value[key];
  return isObject(found) ? found : undefined;
}

export function stringAt(value: unknown, key: string): string | undefined {
  if (!isObject(value)) return undefined;
  const found = value[key];
  if (typeof found === 'string') return found;
  return typeof found === 'number' && Number.isFinite(found) ? String(found) : undefined;
}

/** An integer field, also accepted as digits in a string (form-encoded bodies carry only text). */
export function integerAt(value: unknown, key: string): number | undefined {
  if (!isObject(value)) return undefined;
  const found = value[key];
  if (typeof found === 'number') return Number.isSafeInteger(found) ? found : undefined;
  if (typeof found === 'string' && /^-?\d{1,15}$/.test(found)) return Number(found);
  return undefined;
}

export function arrayAt(value: unknown, key: string): unknown[] {
  if (!isObject(value)) return [];
  const found = value[key];
  return Array.isArray(found) ? found : [];
}

/** A date from an ISO 8601 string or unix seconds; undefined when absent or unreadable. */
export function dateAt(value: unknown, key: string): Date | undefined {
  if (!isObject(value)) return undefined;
  const found = value[key];
  const date = typeof found === 'number' ? new Date(found * 1000) : typeof found === 'string' ? new Date(found) : undefined;
  return date && !Number.isNaN(date.getTime()) ? date : undefined;
}

/** A header value, whatever the case of its name and whether it came as one value or several. */
export function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    return Array.isArray(value) ? value.join(', ') : value;
  }
  return undefined;
}

export type WebhookHeaders = Record<string, string | string[] | undefined>;

/**
 * Our payment's uid as a gateway echoes it back in a charge's metadata (`payment_uid`, as the clients send it),
 * for an event about a charge whose gateway id we never learnt (the charge call timed out). Only a uuid counts.
 */
export function ourReference(metadata: unknown): { paymentUid?: string } {
  const uid = stringAt(metadata, 'payment_uid');
  return uid && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(uid) ? { paymentUid: uid } : {};
}
