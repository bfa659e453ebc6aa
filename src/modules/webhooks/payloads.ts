import { WebhookPayloadError } from '../../gateways/errors.ts';
import { MAX_AMOUNT_CENTS } from '../../http/amount-limits.ts';
import { FIRST_DATE, isInstantInRange, LAST_DATE } from '../../http/date-range.ts';
import { AppError } from '../../http/errors.ts';
import { findUnstorableInput } from '../../http/input-guard.ts';

/** A body that is not the receiver's documented shape: 422, nothing stored. */
export const invalidPayload = (message: string) => new AppError('validation_failed', message);

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A gateway parser's refusal of the body shape becomes a 422. */
export function gatewayEvent<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof WebhookPayloadError) throw invalidPayload(error.message);
    throw error;
  }
}

export function requireString(value: unknown, field: string, max = 200): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > max)
    throw invalidPayload(`${field} must be a non-empty string of at most ${max} characters`);
  return value;
}

/**
 * An amount in cents: a positive integer no larger than one order may amount to (the database refuses a
 * zero or negative payment or refund). `allowZero` is for what may describe a zero-total order (an invoice).
 */
export function requireCents(value: unknown, field: string, { allowZero = false } = {}): number {
  const least = allowZero ? 0 : 1;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < least || value > MAX_AMOUNT_CENTS)
    throw invalidPayload(
      `${field} must be a ${allowZero ? 'non-negative' : 'positive'} integer amount in cents of at most ${MAX_AMOUNT_CENTS}`,
    );
  return value;
}

/** An ISO 8601 time within the range the service stores (a time outside it fails in the database). */
export function requireDate(value: unknown, field: string): Date {
  const date = typeof value === 'string' ? new Date(value) : undefined;
  if (!date || !isInstantInRange(date))
    throw invalidPayload(`${field} must be an ISO 8601 time between ${FIRST_DATE} and ${LAST_DATE}`);
  return date;
}

export function requireCompanyId(value: unknown, field: string): number {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^[1-9]\d{0,14}$/.test(text)) throw invalidPayload(`${field} must be a company id`);
  return Number(text);
}

/** The parsed JSON of a raw body; 400 when it is not JSON, 422 when it holds what cannot be stored. */
export function parseJson(raw: Buffer | string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString());
  } catch {
    throw new AppError('malformed_request', 'The request body is not valid JSON');
  }
  const problem = findUnstorableInput(parsed, 'body');
  if (problem) throw new AppError('validation_failed', `The request body ${problem.message}`, [problem]);
  return parsed;
}
