/** Malformed (and, for the second phase, legal but hostile) requests for one operation of the document. */
import fc from 'fast-check';
import type { FuzzRequest, Operation, Parameter } from './openapi-operations.ts';
import { invalidValue, validValue, type Hints, type Schema } from './schema-arbitraries.ts';

/**
 * Real identifiers of the fixture, so requests also reach existing records: by operation path and
 * parameter name, and under `body` by field name (at any depth of a JSON body).
 */
export type KnownValues = Record<string, Record<string, unknown[]>> & { body?: Hints };

const BROKEN_JSON = [
  '{"a":',
  '{"a":1,,}',
  "{'a':1}",
  '{"a":NaN}',
  '{"a":Infinity}',
  '[1,2',
  '{"a":1}}',
  'nul',
  '{"a":"\\x41"}',
  '\u00ff\u00fe{',
  '{"a":1} trailing',
];
const POISON = ['{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"admin":true}}}'];
const WRONG_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/octet-stream',
];

const render = (value: unknown): string => (typeof value === 'string' ? value : (JSON.stringify(value) ?? 'undefined'));

/** Rails-style query text: arrays as `name[]=`, objects as `name[key]=`, everything else as `name=`. */
export function queryPairs(name: string, value: unknown): string[] {
  const key = encodeURIComponent(name);
  if (Array.isArray(value)) return value.map((item) => `${key}[]=${encodeURIComponent(render(item))}`);
  if (value !== null && typeof value === 'object')
    return Object.entries(value).map(([k, v]) => `${key}[${encodeURIComponent(k)}]=${encodeURIComponent(render(v))}`);
  return [`${key}=${encodeURIComponent(render(value))}`];
}

function pathValue(operation: Operation, parameter: Parameter, known: KnownValues): fc.Arbitrary<string> {
  const real = (known[operation.path]?.[parameter.name] ?? []).map(render);
  const generated = validValue(parameter.schema).map(render);
  const safe = generated.filter((text) => text !== '' && text !== '.' && text !== '..');
  return real.length ? fc.oneof(fc.constantFrom(...real), safe) : safe;
}

function validQuery(operation: Operation, known: KnownValues): fc.Arbitrary<string[]> {
  const parameters = operation.queryParams;
  if (!parameters.length) return fc.constant([]);
  const real = known[operation.path] ?? {};
  const chosen = parameters.map((p) =>
    fc
      .option(
        real[p.name]?.length ? fc.oneof(fc.constantFrom(...real[p.name]!), validValue(p.schema)) : validValue(p.schema),
        { nil: undefined },
      )
      .map((value) => (value === undefined ? [] : queryPairs(p.name, value))),
  );
  return fc.tuple(...chosen).map((groups) => groups.flat());
}

function malformedQuery(parameter: Parameter): fc.Arbitrary<string[]> {
  const name = encodeURIComponent(parameter.name);
  const shapes: string[][] = [
    [`${name}[a][b]=1`],
    [`${name}=a`, `${name}=b`],
    [`${name}[]=`],
    [`${name}[]=1`, `${name}[x]=2`],
    [`${name}[${'['.repeat(5)}=1`],
  ];
  const structural = fc.constantFrom(...shapes);
  const bad = invalidValue(parameter.schema);
  return bad
    ? fc.oneof(
        structural,
        bad.map((value) => queryPairs(parameter.name, value)),
      )
    : structural;
}

type Parts = { pathValues: Record<string, string>; query: string[] };

function validParts(operation: Operation, known: KnownValues): fc.Arbitrary<Parts> {
  const values = operation.pathParams.map((p) =>
    pathValue(operation, p, known).map((value) => [p.name, value] as const),
  );
  return fc.record({
    pathValues: fc.tuple(...values).map((entries) => Object.fromEntries(entries)),
    query: validQuery(operation, known),
  });
}

const jsonBody = (value: unknown) => {
  const raw = JSON.stringify(value) ?? 'null';
  return { raw, contentType: 'application/json', json: JSON.parse(raw) as unknown };
};

/** The body defects of a JSON route: a schema violation, broken JSON, poisoning, a wrong or empty media type. */
function badBodies(body: Schema): Array<fc.Arbitrary<Pick<FuzzRequest, 'body' | 'invalidBy'>>> {
  const valid = validValue(body);
  const violating = invalidValue(body);
  return [
    ...(violating ? [violating.map((value) => ({ body: jsonBody(value) }))] : []),
    fc
      .constantFrom(...BROKEN_JSON)
      .map((raw) => ({ body: { raw, contentType: 'application/json' }, invalidBy: 'malformed JSON' })),
    fc
      .constantFrom(...POISON)
      .map((raw) => ({ body: { raw, contentType: 'application/json' }, invalidBy: 'prototype poisoning' })),
    fc.tuple(valid, fc.constantFrom(...WRONG_TYPES)).map(([value, contentType]) => ({
      body: { raw: JSON.stringify(value) || 'x', contentType },
      invalidBy: 'media type',
    })),
    fc.constant({ body: { raw: '', contentType: 'application/json' }, invalidBy: 'empty JSON body' }),
  ];
}

const idempotencyKey = fc.option(fc.stringMatching(/^[!-~]{1,40}$/), { nil: undefined });

/** Requests the document says are invalid (the oracle confirms each one before it counts). */
export function malformedRequest(
  operation: Operation,
  known: KnownValues,
  headers: Record<string, string>,
): fc.Arbitrary<FuzzRequest> {
  if (operation.receiver) return unauthenticatedDelivery(operation, known);
  const defects: Array<fc.Arbitrary<Partial<FuzzRequest> & { queryExtra?: string[] }>> = [];
  for (const p of operation.pathParams) {
    const bad = invalidValue(p.schema);
    if (bad)
      defects.push(
        bad
          .map(render)
          .filter((text) => text !== '' && text !== '.' && text !== '..')
          .map((text) => ({ pathValues: { [p.name]: text } })),
      );
  }
  for (const p of operation.queryParams) defects.push(malformedQuery(p).map((pairs) => ({ queryExtra: pairs })));
  if (operation.body && operation.method !== 'GET') defects.push(...badBodies(operation.body));
  const validBody =
    operation.body && operation.method !== 'GET' ? validValue(operation.body).map(jsonBody) : fc.constant(undefined);
  return fc
    .tuple(validParts(operation, known), validBody, fc.oneof(...defects), idempotencyKey)
    .map(([parts, body, defect, key]) => ({
      operation,
      pathValues: { ...parts.pathValues, ...defect.pathValues },
      query: [
        ...parts.query.filter(
          (pair) => !defect.queryExtra?.some((extra) => extra.split(/[[=]/)[0] === pair.split(/[[=]/)[0]),
        ),
        ...(defect.queryExtra ?? []),
      ].join('&'),
      headers: { ...headers, ...(key && operation.method === 'POST' ? { 'idempotency-key': key } : {}) },
      ...(defect.body !== undefined ? { body: defect.body } : body ? { body } : {}),
      ...(defect.invalidBy ? { invalidBy: defect.invalidBy } : {}),
    }));
}

/** Receivers: no credentials or signature (platform: no event id), with any body at all. */
function unauthenticatedDelivery(operation: Operation, known: KnownValues): fc.Arbitrary<FuzzRequest> {
  const platform = operation.path === '/webhooks/platform';
  const anyJson = fc
    .jsonValue({ maxDepth: 3 })
    .filter(
      (value) =>
        !platform ||
        typeof value !== 'object' ||
        value === null ||
        Array.isArray(value) ||
        typeof (value as { id?: unknown }).id !== 'string',
    );
  const bodies = fc.oneof(
    anyJson.map((value) => jsonBody(value)),
    fc.constantFrom(...BROKEN_JSON).map((raw) => ({ raw, contentType: 'application/json' })),
    fc
      .tuple(fc.string({ maxLength: 40 }), fc.constantFrom(...WRONG_TYPES))
      .map(([raw, contentType]) => ({ raw, contentType })),
  );
  const companies = (known[operation.path]?.company_id ?? [1]).map(render);
  const company = fc.oneof(
    fc.constantFrom(...companies),
    fc.string({ minLength: 1, maxLength: 12 }).filter((text) => text !== '.' && text !== '..'),
  );
  const forged: Array<Record<string, string>> = [
    {},
    { authorization: 'Basic Og==' },
    { 'gateway-b-signature': 't=1,v1=00' },
  ];
  return fc.tuple(bodies, company, fc.constantFrom(...forged)).map(([body, companyId, headers]): FuzzRequest => ({
    operation,
    pathValues: operation.pathParams.length ? { company_id: companyId } : {},
    query: '',
    headers,
    body,
    invalidBy: platform ? 'a platform event without an id' : 'no valid credentials or signature',
  }));
}

/** Requests the document accepts, with hostile content in every field (second phase: no 5xx, no leaks). */
export function legalRequest(
  operation: Operation,
  known: KnownValues,
  headers: Record<string, string>,
): fc.Arbitrary<FuzzRequest> {
  const body =
    operation.body && operation.method !== 'GET'
      ? validValue(operation.body, 0, known.body).map(jsonBody)
      : fc.constant(undefined);
  return fc.tuple(validParts(operation, known), body).map(([parts, json]) => ({
    operation,
    pathValues: parts.pathValues,
    query: parts.query.join('&'),
    headers,
    ...(json ? { body: json } : {}),
  }));
}

export function requestUrl(base: string, request: FuzzRequest): string {
  const path = request.operation.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(request.pathValues[name] ?? ''),
  );
  return `${base}/api/v1${path}${request.query ? `?${request.query}` : ''}`;
}
