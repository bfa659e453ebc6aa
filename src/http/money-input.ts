import { validationFailed } from './errors.ts';
import { hasAtMostTwoDecimals, toCents } from '../lib/money.ts';

/** A major-unit amount from a request body in cents; more than two decimals is a 422 naming the field. */
export function centsFromBody(value: number, field: string): number {
  if (!hasAtMostTwoDecimals(value))
    throw validationFailed(`${field} has more than two decimals`, [
      { field: `body/${field}`, message: 'must have at most two decimals' },
    ]);
  return toCents(value);
}

export function optionalCentsFromBody(value: number | undefined, field: string): number | undefined {
  return value === undefined ? undefined : centsFromBody(value, field);
}
