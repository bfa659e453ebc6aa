/**
 * The operations of the served OpenAPI document, an oracle that says whether a request is valid by the
 * documented rules alone, and the checks every answer must pass. The oracle is independent of the app:
 * its own Ajv, configured as the README documents (query and path text coerced, JSON bodies not).
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { ERROR_CODES } from '../../../src/http/errors.ts';
import { parseQueryString } from '../../../src/http/query.ts';
import type { Schema } from './schema-arbitraries.ts';

export type Parameter = { name: string; in: 'path' | 'query'; required: boolean; schema: Schema };
export type Operation = {
  key: string;
  method: string;
  path: string;
  pathParams: Parameter[];
  queryParams: Parameter[];
  body?: Schema;
  receiver: boolean;
};

type OpenApiDocument = {
  paths: Record<
    string,
    Record<
      string,
      { parameters?: Array<Parameter & { in: string }>; requestBody?: { content: Record<string, { schema: Schema }> } }
    >
  >;
};

export function readOperations(document: OpenApiDocument): Operation[] {
  // The dashboard's operations authenticate by a session cookie and a CSRF token, not the API key this fuzzing
  // sends: test/dashboard covers their refusals.
  const apiPaths = Object.entries(document.paths).filter(([path]) => !path.startsWith('/dashboard/'));
  return apiPaths.flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => {
      const parameters = (operation.parameters ?? []) as Parameter[];
      return {
        key: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        pathParams: parameters.filter((p) => p.in === 'path'),
        queryParams: parameters.filter((p) => p.in === 'query'),
        ...(operation.requestBody?.content['application/json']
          ? { body: operation.requestBody.content['application/json'].schema }
          : {}),
        receiver: path.startsWith('/webhooks'),
      };
    }),
  );
}

/** What a generated request is made of; `invalidBy` names a defect that is invalid by construction. */
export type FuzzRequest = {
  operation: Operation;
  pathValues: Record<string, string>;
  query: string;
  headers: Record<string, string>;
  body?: { raw: string; contentType?: string; json?: unknown };
  invalidBy?: string;
};

function ajv(coerce: boolean): Ajv {
  const instance = new Ajv({
    allErrors: true,
    strict: false,
    useDefaults: true,
    coerceTypes: coerce ? 'array' : false,
  });
  (addFormats as unknown as (ajv: Ajv) => void)(instance);
  return instance;
}
const textAjv = ajv(true);
const bodyAjv = ajv(false);

const objectOf = (parameters: Parameter[]): Schema =>
  ({
    type: 'object',
    properties: Object.fromEntries(parameters.map((p) => [p.name, p.schema])),
    required: parameters.filter((p) => p.required).map((p) => p.name),
  }) as Schema;

/** Routes whose handler documents an empty body as `{}` (every refund field is optional). */
const EMPTY_BODY_IS_EMPTY_OBJECT = new Set(['POST /payments/{id}/refund']);

export class Oracle {
  readonly #path: ValidateFunction;
  readonly #query: ValidateFunction;
  readonly #body: ValidateFunction | undefined;

  constructor(readonly operation: Operation) {
    this.#path = textAjv.compile(objectOf(operation.pathParams));
    this.#query = textAjv.compile(objectOf(operation.queryParams));
    this.#body = operation.body ? bodyAjv.compile(operation.body) : undefined;
  }

  /** Why the request is invalid by the document, or undefined when the document accepts it. */
  whyInvalid(request: FuzzRequest): string | undefined {
    if (request.invalidBy) return request.invalidBy;
    if (this.operation.receiver) return undefined;
    if (!this.#path(structuredClone(request.pathValues))) return 'path';
    if (!this.#query(parseQueryString(request.query))) return 'query';
    if (!this.#body || this.operation.method === 'GET') return undefined;
    const empty = EMPTY_BODY_IS_EMPTY_OBJECT.has(this.operation.key) ? {} : undefined;
    const value = request.body ? structuredClone(request.body.json) : empty;
    return this.#body(value) ? undefined : 'body';
  }
}

/** Text that reveals internals: stack frames, source paths, SQL or driver messages. */
const LEAKS = [
  /\n\s+at\s/,
  /node_modules/,
  /\/work\/|\/home\/|\/usr\//,
  /\.(ts|js|mjs):\d+/,
  /\b(select|insert into|update|delete from)\b[\s\S]*\b(from|values|set|where)\b/i,
  /syntax error at or near|relation "|violates .* constraint|duplicate key value|invalid input syntax|invalid byte sequence/i,
  /kysely|PGlite|pg-protocol|ECONNREFUSED/i,
];

const CODES = new Set(Object.keys(ERROR_CODES));

/** Routes whose error body the specification fixes (`{ error }` or `{ errors }`, and a 403 without a body). */
const FIXED_FORMATS: Record<string, 'error' | 'errors'> = {
  'GET /coupons/{code}/validate': 'error',
  'GET /payment_plans': 'errors',
  'GET /checkout_pages/{id}/card_hash_key': 'errors',
  'GET /carts/{id}/card_hash_key': 'errors',
  'GET /charges/{id}/card_hash_key': 'errors',
};

function isStandardBody(body: Record<string, unknown>): boolean {
  const keys = Object.keys(body).sort().join(',');
  return (
    (keys === 'code,message,request_id' || keys === 'code,details,message,request_id') &&
    CODES.has(body.code as string) &&
    typeof body.message === 'string' &&
    typeof body.request_id === 'string' &&
    (body.details === undefined || Array.isArray(body.details))
  );
}

function isFixedBody(body: Record<string, unknown>, format: 'error' | 'errors'): boolean {
  if (format === 'error') return Object.keys(body).join() === 'error' && typeof body.error === 'string';
  return (
    Object.keys(body).join() === 'errors' &&
    Array.isArray(body.errors) &&
    body.errors.every((item) => typeof item === 'string')
  );
}

/**
 * Problems of one answer: a 5xx, a 2xx to an invalid request, a leak, or an error body outside the
 * documented formats (routing errors, raised before the route is known, use the standard body everywhere).
 */
export function answerProblems(
  operation: Operation,
  status: number,
  body: string,
  invalid: string | undefined,
): string[] {
  const problems: string[] = [];
  if (status >= 500) problems.push(`answered ${status}`);
  if (invalid && status < 400) problems.push(`answered ${status} to a request invalid by its ${invalid}`);
  if (status < 400) return problems;
  for (const leak of LEAKS) if (leak.test(body)) problems.push(`error body matches ${leak}`);
  const fixed = FIXED_FORMATS[operation.key];
  if (body.length === 0) {
    if (!(fixed && status === 403)) problems.push('an error without a body');
    return problems;
  }
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    if (!isStandardBody(parsed) && !(fixed && isFixedBody(parsed, fixed)))
      problems.push('error body outside the documented formats');
  } catch {
    problems.push('error body is not JSON');
  }
  return problems;
}
