import type { FastifyRequest } from 'fastify';
import { containsCardNumber } from '../lib/card-numbers.ts';
import { AppError, validationFailed } from './errors.ts';

/** Deeper JSON is refused: nothing the API accepts nests this far, and deeper values defeat recursive checks. */
export const MAX_INPUT_DEPTH = 32;
const MAX_FIELD_LENGTH = 200;

/** An unpaired UTF-16 surrogate: JSON can escape one ("\ud800"), but it encodes no character, so text and jsonb refuse it. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Why a string cannot be stored, if it cannot; shared with the merchant file's checks. */
export function unstorableText(text: string): string | undefined {
  if (text.includes('\u0000')) return 'the NUL character (U+0000)';
  if (LONE_SURROGATE.test(text)) return 'an unpaired UTF-16 surrogate (U+D800 to U+DFFF)';
  return undefined;
}

/**
 * Input that no valid request contains and the database cannot store: the NUL character (PostgreSQL text
 * and jsonb refuse U+0000), an unpaired surrogate (not valid Unicode, refused the same way), or nesting
 * deeper than MAX_INPUT_DEPTH. Returns the offending field, if any.
 */
export function findUnstorableInput(
  value: unknown,
  field: string,
  depth = 0,
): { field: string; message: string } | undefined {
  if (typeof value === 'string') {
    const problem = unstorableText(value);
    return problem ? { field: clip(field), message: `must not contain ${problem}` } : undefined;
  }
  if (value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return undefined;
  if (depth >= MAX_INPUT_DEPTH)
    return { field: clip(field), message: `is nested more than ${MAX_INPUT_DEPTH} levels deep` };
  for (const [key, item] of Object.entries(value)) {
    const keyProblem = unstorableText(key);
    // The key itself is not echoed: it is the unstorable text.
    if (keyProblem) return { field: clip(field), message: `has a key with ${keyProblem}` };
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
    throw new AppError(
      'card_number_refused',
      'Raw card numbers are not accepted: tokenize the card with the gateway’s client library',
    );
  }
  for (const [part, label, value] of [
    ['body', 'request body', request.body],
    ['querystring', 'query string', request.query],
    ['params', 'path', request.params],
  ] as const) {
    const problem = findUnstorableInput(value, part);
    if (problem) throw validationFailed(`The ${label} ${problem.message}`, [problem]);
  }
}
