/** Defensive readers for JSON that came from outside (gateway answers, webhook bodies). */

import { MAX_AMOUNT_CENTS } from '../http/amount-limits.ts';
import { FIRST_DATE, isInstantInRange, LAST_DATE } from '../http/date-range.ts';
import { WebhookPayloadError } from './errors.ts';
import type { GatewayName } from './port.ts';

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

/** A date from an ISO 8601 string or unix seconds; undefined when absent, unreadable or outside the service's range. */
export function dateAt(value: unknown, key: string): Date | undefined {
  if (!isObject(value)) return undefined;
  const found = value[key];
  const date =
    typeof found === 'number' ? new Date(found * 1000) : typeof found === 'string' ? new Date(found) : undefined;
  return date && isInstantInRange(date) ? date : undefined;
}

/** The longest event id a receiver stores: it is the dedup key, held in a btree index (the bank, invoicing and platform receivers cap it alike). */
export const MAX_EVENT_ID_LENGTH = 200;
export const MAX_EVENT_TYPE_LENGTH = 100;

/** Refuses an event whose id or type is longer than a receiver stores. */
export function assertStorableEventKey(gateway: GatewayName, eventId: string, type: string): void {
  if (eventId.length > MAX_EVENT_ID_LENGTH)
    throw new WebhookPayloadError(gateway, `the event id must be at most ${MAX_EVENT_ID_LENGTH} characters`);
  if (type.length > MAX_EVENT_TYPE_LENGTH)
    throw new WebhookPayloadError(gateway, `the event type must be at most ${MAX_EVENT_TYPE_LENGTH} characters`);
}

const absent = (value: unknown, key: string) => !isObject(value) || value[key] === undefined || value[key] === null;

/**
 * An amount in cents a webhook event reports, undefined when absent. A present one must be a positive
 * integer no larger than one order may amount to: any other value is refused at receipt, since the
 * database would refuse it in the worker on every retry.
 */
export function eventCentsAt(gateway: GatewayName, value: unknown, key: string): number | undefined {
  if (absent(value, key)) return undefined;
  const cents = integerAt(value, key);
  if (cents === undefined || cents <= 0 || cents > MAX_AMOUNT_CENTS)
    throw new WebhookPayloadError(
      gateway,
      `${key} must be a positive integer amount in cents of at most ${MAX_AMOUNT_CENTS}`,
    );
  return cents;
}

/** A time a webhook event reports, undefined when absent; a present one that is unreadable or outside the service's range is refused at receipt. */
export function eventDateAt(gateway: GatewayName, value: unknown, key: string): Date | undefined {
  if (absent(value, key)) return undefined;
  const date = dateAt(value, key);
  if (!date) throw new WebhookPayloadError(gateway, `${key} must be a time between ${FIRST_DATE} and ${LAST_DATE}`);
  return date;
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
