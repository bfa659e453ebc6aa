import { Type, type TSchema } from 'typebox';
import { ERROR_CODES } from './errors.ts';

export const ErrorBodySchema = Type.Object(
  {
    code: Type.Union(Object.keys(ERROR_CODES).map((code) => Type.Literal(code))),
    message: Type.String(),
    request_id: Type.String(),
    details: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
  },
  { $id: 'ErrorBody', description: 'The error body of every endpoint whose error body the specification does not fix' },
);

/** The query of a route that takes none: any parameter is a 422, as on every other route (a typo is not ignored). */
export const NoQuery = Type.Object({}, { additionalProperties: false });

/** A URL a browser opens as a page or an image: http or https only (no `javascript:`, `data:` or `file:`). */
export const HttpUrl = (options: object = {}) =>
  Type.String({ format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^/?#]', maxLength: 2000, ...options });

/**
 * A free key-value object whose keys are at most 100 characters. The limit is `propertyNames`: a key schema given to
 * Type.Record becomes a `patternProperties` pattern and its maxLength is dropped.
 */
export const KeyValue = <T extends TSchema>(value: T, options: object = {}) =>
  Type.Record(Type.String(), value, { propertyNames: { maxLength: 100 }, ...options });

export const Uuid = (options: object = {}) => Type.String({ format: 'uuid', ...options });
export const IntegerId = (options: object = {}) => Type.Integer({ minimum: 1, maximum: 2_147_483_647, ...options });
/**
 * At least one character a reader can see: a name of only spaces, line breaks, control or format characters
 * (zero-width spaces) or combining marks would show as nothing on a page, a receipt or an invoice.
 */
export const VISIBLE_CHARACTER = '[^\\s\\p{Cc}\\p{Cf}\\p{Z}\\p{M}]';
export const VisibleText = (options: object = {}) =>
  Type.String({ minLength: 1, pattern: VISIBLE_CHARACTER, ...options });

/** Amounts in the currency's major unit, as the API speaks them; at most two decimals, checked at conversion. */
export const Money = (options: object = {}) => Type.Number({ minimum: 0, maximum: 99_999_999.99, ...options });

/**
 * A response field the specification lists: always present, `null` when it has no value (a client written from the
 * specification finds every key). The description goes on the union so the document shows it.
 */
export const Nullable = <T extends TSchema>(schema: T, description?: string) =>
  Type.Union([schema, Type.Null()], description ? { description } : {});

/** Standard error responses documented for a route. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((status) => [status, Type.Ref('ErrorBody')]));
}
