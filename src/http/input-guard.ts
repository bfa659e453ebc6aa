import type { FastifyRequest } from 'fastify';
import { containsCardNumber } from '../lib/card-numbers.ts';
import { AppError, validationFailed } from './errors.ts';

/** Deeper JSON is refused: nothing the API accepts nests this far, and deeper values defeat recursive checks. */
export const MAX_INPUT_DEPTH = 32;
const MAX_FIELD_LENGTH = 200;

/**
 * Input that no valid request contains and the database cannot store: the NUL character (PostgreSQL text
 * and jsonb refuse U+0000), or nesting deeper than MAX_INPUT_DEPTH. Returns the offending field, if any.
 */
export function findUnstorableInput(value: unknown, field: string, depth = 0): { field: string; message: string } | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? { field: clip(field), message: 'must not contain the NUL character (U+0000)' } : undefined;
  if (value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return undefined;
  if (depth >= MAX_INPUT_DEPTH) return { field: clip(field), message: `is nested more than ${MAX_INPUT_DEPTH} levels deep` };
  for (const [key, item] of Object.entries(value)) {
    if (key.includes('\u0000')) return { field: clip(field), message: 'has a key with the NUL character (U+0000)' };
    const problem = findUnstorableInput(item, `${field}/${key}`, depth + 1);
    if (problem) return problem;
  }
  return undefined;
}

function clip(field: string): string {
  return field.length > MAX_FIELD_LENGTH ? `${field.slice(0, MAX_FIELD_LENGTH)}…` : field;
}

/**
 * Runs before schema validation on every route: a raw card number is refused first (before anything is
 * validated, stored or logged), then unstorable input, so it answers 422 instead of a database error.
 */
export function guardRequestInput(request: FastifyRequest): void {
  if (containsCardNumber(request.body) || containsCardNumber(request.query)) {
    throw new AppError('card_number_refused', 'Raw card numbers are not accepted: tokenize the card with the gateway’s client library');
  }
  for (const [part, label, value] of [['body', 'request body', request.body], ['querystring', 'query string', request.query], ['params', 'path', request.params]] as const) {
    const problem = findUnstorableInput(value, part);
    if (problem) throw validationFailed(`The ${label} ${problem.message}`, [problem]);
  }
}
