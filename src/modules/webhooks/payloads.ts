import { AppError } from '../../http/errors.ts';
import { findUnstorableInput } from '../../http/input-guard.ts';

/** A body that is not the receiver's documented shape: 422, nothing stored. */
export const invalidPayload = (message: string) => new AppError('validation_failed', message);

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function requireString(value: unknown, field: string, max = 200): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > max) throw invalidPayload(`${field} must be a non-empty string`);
  return value;
}

export function requireCents(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw invalidPayload(`${field} must be a non-negative integer amount in cents`);
  return value;
}

export function requireDate(value: unknown, field: string): Date {
  const date = typeof value === 'string' ? new Date(value) : undefined;
  if (!date || Number.isNaN(date.getTime())) throw invalidPayload(`${field} must be an ISO 8601 time`);
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
