import type { FastifySchema, RouteOptions } from 'fastify';
import { Type } from 'typebox';
import { errorResponses } from './schemas.ts';
import { OPEN_ACCESS_RULE, OPERATIONS, PUBLIC_ACCESS_RULE, WEBHOOK_ACCESS_RULE } from './openapi-operations.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type SchemaObject = Record<string, unknown>;

/** `/api/v1/orders/:id` → `/orders/{id}`: the document's paths are relative to the server URL, which ends in /api/v1. */
export function documentPath(url: string): string {
  return url.replace(/^\/api\/v1/, '').replace(/:([A-Za-z_]\w*)/g, '{$1}') || '/';
}

function accessRule(access: string | undefined, path: string): string | undefined {
  if (access === 'public') return PUBLIC_ACCESS_RULE;
  if (access === 'open') return path.startsWith('/webhooks') ? WEBHOOK_ACCESS_RULE : OPEN_ACCESS_RULE;
  return undefined;
}

/**
 * Names and summarises an operation and states its access: `key` operations require the bearer key; public and
 * open ones declare `security: []` and say in their description which rule applies instead.
 */
export function describeOperation(
  schema: FastifySchema | undefined,
  route: Pick<RouteOptions, 'method' | 'config'>,
  path: string,
): SchemaObject {
  const method = (Array.isArray(route.method) ? route.method[0] : route.method) as string;
  const names = OPERATIONS[`${method.toUpperCase()} ${path}`];
  const access = (route.config as { access?: string } | undefined)?.access ?? 'open';
  const rule = accessRule(access, path);
  const description = (schema as { description?: string } | undefined)?.description;
  return {
    ...schema,
    ...names,
    ...(path.startsWith('/webhooks') ? { tags: ['Webhook receivers'], response: receiverResponses(path) } : {}),
    security: access === 'key' ? [{ apiKey: [] }] : [],
    ...(rule ? { description: description ? `${description}\n\n${rule}` : rule } : {}),
  };
}

const ReceiptSchema = Type.Object(
  {
    status: Type.String({
      description: '`received` (stored; the worker applies it), `duplicate`, or the topic outcome',
    }),
  },
  { description: 'the event is stored' },
);

/** The receivers parse and authenticate their raw bodies themselves; the document states what they answer. */
function receiverResponses(path: string): Record<number, unknown> {
  return path === '/webhooks/topic'
    ? { 200: ReceiptSchema, ...errorResponses(400, 403, 422, 503) }
    : { 200: ReceiptSchema, ...errorResponses(400, 401, 422) };
}

const FORMAT_BOUNDS = ['formatMinimum', 'formatMaximum'] as const;

/**
 * A schema as OpenAPI knows it. `formatMinimum`/`formatMaximum` are ajv-formats keywords, not OpenAPI: they
 * become a sentence of the description. A `minimum` beside a stricter `exclusiveMinimum` says nothing more and is
 * dropped. The validating schemas are not touched: this works on a copy.
 */
function publishableSchemaNode(node: SchemaObject): SchemaObject {
  const out: SchemaObject = { ...node };
  const low = out.formatMinimum;
  const high = out.formatMaximum;
  if (low !== undefined || high !== undefined) {
    for (const keyword of FORMAT_BOUNDS) delete out[keyword];
    const range =
      low !== undefined && high !== undefined
        ? `from ${String(low)} to ${String(high)}`
        : low !== undefined
          ? `from ${String(low)}`
          : `up to ${String(high)}`;
    out.description = typeof out.description === 'string' ? `${out.description}; ${range}` : range;
  }
  if (
    typeof out.minimum === 'number' &&
    typeof out.exclusiveMinimum === 'number' &&
    out.exclusiveMinimum >= out.minimum
  )
    delete out.minimum;
  if (
    typeof out.maximum === 'number' &&
    typeof out.exclusiveMaximum === 'number' &&
    out.exclusiveMaximum <= out.maximum
  )
    delete out.maximum;
  return out;
}

/** A deep copy of the document with every schema made publishable (see publishableSchemaNode). */
export function publishableDocument<T>(document: T): T {
  const visit = (value: Json): Json => {
    if (Array.isArray(value)) return value.map(visit);
    if (value === null || typeof value !== 'object') return value;
    const copy: { [key: string]: Json } = {};
    for (const [key, child] of Object.entries(value)) copy[key] = visit(child);
    return (
      'formatMinimum' in copy || 'formatMaximum' in copy || 'exclusiveMinimum' in copy || 'exclusiveMaximum' in copy
        ? publishableSchemaNode(copy)
        : copy
    ) as Json;
  };
  return visit(document as Json) as T;
}
