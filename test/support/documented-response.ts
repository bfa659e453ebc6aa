/**
 * Checks a response against the app's own OpenAPI document: the operation is found from the request's method and
 * path, and the JSON body must match the schema documented for its status (Ajv, JSON Schema 2020-12 as OpenAPI 3.1
 * uses it). Integration tests call `documentedJson(app, res)` where they would call `res.json()`.
 */
import assert from 'node:assert/strict';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

type Document = {
  paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, unknown> }> }>>;
};
type Checker = { document: Document; ajv: Ajv2020; validators: Map<string, ValidateFunction> };

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const DOCUMENT_ID = 'urn:checkout:openapi';
const checkers = new WeakMap<FastifyInstance, Checker>();

function checkerOf(app: FastifyInstance): Checker {
  let checker = checkers.get(app);
  if (!checker) {
    const document = app.swagger() as unknown as Document;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ ...document, $id: DOCUMENT_ID });
    checker = { document, ajv, validators: new Map() };
    checkers.set(app, checker);
  }
  return checker;
}

const pointerEscape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** The document path (`/orders/{id}`) that a request path (`/api/v1/orders/12`) matches. */
function documentPathOf(document: Document, method: string, url: string): string | undefined {
  const path = new URL(url, 'http://x').pathname.replace(/^\/api\/v1/, '');
  const candidates = Object.keys(document.paths).filter((template) => document.paths[template]![method]);
  // Literal segments first: `/checkout_pages/{id}` must not take `/checkout_pages/{id}/payments`.
  return candidates.find((template) => {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    return pattern.test(path);
  });
}

/** The parsed JSON body, after asserting it matches the documented schema of its operation and status. */
export function documentedJson<T = any>(app: FastifyInstance, res: LightMyRequestResponse): T {
  const { document, ajv, validators } = checkerOf(app);
  const method = (res.raw.req.method ?? 'GET').toLowerCase();
  const url = res.raw.req.url ?? '/';
  const path = documentPathOf(document, method, url);
  assert.ok(path, `${method.toUpperCase()} ${url} is not an operation of the OpenAPI document`);
  const status = String(res.statusCode);
  const response = document.paths[path]![method]!.responses?.[status];
  assert.ok(response, `${method.toUpperCase()} ${path} does not document status ${status}`);
  const pointer = `${DOCUMENT_ID}#/paths/${pointerEscape(path)}/${method}/responses/${status}/content/application~1json/schema`;
  let validate = validators.get(pointer);
  if (!validate) {
    validate = ajv.compile({ $ref: pointer });
    validators.set(pointer, validate);
  }
  const body = res.json();
  assert.ok(
    validate(body),
    `${method.toUpperCase()} ${path} ${status} does not match the document: ${ajv.errorsText(validate.errors)}`,
  );
  return body as T;
}
