/**
 * fast-check arbitraries from the JSON Schemas of the OpenAPI document: values a schema accepts (filled
 * with hostile but legal content) and values that break it (wrong type, out of range, too long, bad
 * format, missing or unknown fields). Which request is invalid is finally decided by the oracle
 * (openapi-operations.ts), so a generator here may err on either side without making the test lie.
 */
import fc from 'fast-check';

export type Schema = {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  anyOf?: Schema[];
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  maxItems?: number;
  maxProperties?: number;
};

/** Strings that have broken services before: quotes, SQL, markup, bidi controls, astral and combining characters. */
export const HOSTILE_STRINGS = [
  "' OR '1'='1",
  '"; DROP TABLE orders; --',
  '<script>alert(1)</script>',
  '{{7*7}}${7*7}',
  '../../../../etc/passwd',
  '\u202egnp.exe',
  '𝕳𝖊𝖑𝖑𝖔 🎉👩‍👩‍👧',
  'Ã¡Ã©Ã\u00ad',
  'e\u0301\u0301\u0301',
  '\uFEFF\u200B',
  '%00%27',
  '\\u0000',
  ' ',
];

const hostileText = (maxLength: number) =>
  fc.oneof(
    fc.constantFrom(...HOSTILE_STRINGS).filter((text) => [...text].length <= maxLength),
    fc.string({ unit: 'grapheme', maxLength: Math.min(maxLength, 24) }),
    fc.string({ unit: 'binary', maxLength: Math.min(maxLength, 24) }).filter((text) => !text.includes('\u0000')),
    fc.constant('x'.repeat(maxLength)),
  );

function typesOf(schema: Schema): string[] {
  if (schema.anyOf) return [...new Set(schema.anyOf.flatMap(typesOf))];
  return schema.type ? [schema.type] : [];
}

/** Real values for fields by name (ids of the fixture), mixed into generated objects so requests reach existing records. */
export type Hints = Record<string, unknown[]>;

/** A value the schema accepts. Numbers stay within bounds; strings within length, format and pattern. */
export function validValue(schema: Schema, depth = 0, hints: Hints = {}): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((branch) => validValue(branch, depth, hints)));
  switch (schema.type) {
    case 'string':
      return validString(schema);
    case 'integer': {
      const min = Math.max(schema.minimum ?? -1_000_000, (schema.exclusiveMinimum ?? -Infinity) + 1);
      const max = Math.min(schema.maximum ?? 1_000_000_000, Number.MAX_SAFE_INTEGER);
      return fc.oneof(fc.constantFrom(min, max), fc.integer({ min, max }));
    }
    case 'number': {
      const min = schema.minimum ?? schema.exclusiveMinimum ?? -1e6;
      const max = schema.maximum ?? 1e9;
      const cents = fc.integer({ min: Math.ceil(min * 100), max: Math.floor(max * 100) }).map((value) => value / 100);
      return fc
        .oneof(fc.constant(max), cents)
        .filter((value) => schema.exclusiveMinimum === undefined || value > schema.exclusiveMinimum);
    }
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(validValue(schema.items ?? {}, depth + 1, hints), {
        maxLength: Math.min(schema.maxItems ?? 3, 3),
      });
    case 'object':
      return validObject(schema, depth, hints);
    default:
      return fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean());
  }
}

function validString(schema: Schema): fc.Arbitrary<string> {
  const maxLength = schema.maxLength ?? 64;
  const minLength = schema.minLength ?? 0;
  const fits = (text: string) => [...text].length >= minLength && [...text].length <= maxLength;
  switch (schema.format) {
    case 'uuid':
      return fc.uuid();
    case 'email':
      return fc.emailAddress().filter((email) => email.length <= Math.min(maxLength, 80));
    case 'date':
      return fc
        .date({ min: new Date('1990-01-01'), max: new Date('2090-01-01'), noInvalidDate: true })
        .map((date) => date.toISOString().slice(0, 10));
    case 'date-time':
      return fc
        .date({ min: new Date('1990-01-01'), max: new Date('2090-01-01'), noInvalidDate: true })
        .map((date) => date.toISOString());
    case 'uri':
      return fc.webUrl().filter((url) => url.length <= maxLength);
  }
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern, 'u')).filter(fits);
  return hostileText(maxLength).filter(fits);
}

function validObject(schema: Schema, depth: number, hints: Hints = {}): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const model = Object.fromEntries(
    Object.entries(properties).map(([name, property]) => {
      const generated = validValue(property, depth + 1, hints);
      return [name, hints[name]?.length ? fc.oneof(fc.constantFrom(...hints[name]!), generated) : generated];
    }),
  );
  const required = (schema.required ?? []).filter((name) => name in properties);
  let known: fc.Arbitrary<Record<string, unknown>> = fc.record(model, { requiredKeys: required });
  // Every optional field at once rarely passes the business rules: also try only the required and hinted ones, hinted values only.
  const hinted = Object.keys(properties).filter((name) => hints[name]?.length);
  if (hinted.length) {
    const lean = Object.fromEntries(
      [...new Set([...required, ...hinted])].map((name) => [
        name,
        hints[name]?.length ? fc.constantFrom(...hints[name]!) : model[name]!,
      ]),
    );
    known = fc.oneof(known, fc.record(lean, { requiredKeys: required }));
  }
  const extra = schema.additionalProperties;
  if (!extra || extra === true || depth > 2) return known;
  const free = fc.dictionary(
    fc.string({ minLength: 1, maxLength: 12 }).filter((key) => !(key in properties) && key !== '__proto__'),
    validValue(extra, depth + 1),
    {
      maxKeys: Math.min(schema.maxProperties ?? 3, 3),
    },
  );
  return fc.tuple(known, free).map(([fields, more]) => ({ ...more, ...fields }));
}

const ANY_WRONG_TYPE: Record<string, fc.Arbitrary<unknown>> = {
  string: fc.oneof(fc.string({ maxLength: 6 }), fc.constant('12'), fc.constant('true')),
  number: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }), fc.constant(-0)),
  integer: fc.integer({ min: 1, max: 1000 }),
  boolean: fc.boolean(),
  null: fc.constant(null),
  array: fc.array(fc.integer(), { maxLength: 2 }),
  object: fc.constant({ nested: { deeper: [1, 'two'] } }),
};

/** A value the schema refuses on its own, or undefined when nothing is refused (an unconstrained schema). */
export function invalidValue(schema: Schema): fc.Arbitrary<unknown> | undefined {
  const accepted = typesOf(schema);
  const wrongTypes = Object.entries(ANY_WRONG_TYPE)
    .filter(
      ([type]) =>
        accepted.length > 0 && !accepted.includes(type) && !(type === 'integer' && accepted.includes('number')),
    )
    .map(([, arbitrary]) => arbitrary);
  const broken: Array<fc.Arbitrary<unknown>> = [...wrongTypes];
  if (schema.enum || schema.anyOf?.every((branch) => branch.enum))
    broken.push(fc.constantFrom('nope', 'PAID', '', ' paid'));
  if (schema.maxLength !== undefined)
    broken.push(
      fc.integer({ min: schema.maxLength + 1, max: schema.maxLength + 200 }).map((length) => 'é'.repeat(length)),
    );
  if (schema.minLength) broken.push(fc.constant(''));
  if (schema.format)
    broken.push(
      fc.constantFrom('not-valid', '00000000-0000-0000-0000-00000000000g', '2024-13-45', 'a@', 'http//x', '1e3'),
    );
  if (schema.pattern)
    broken.push(fc.string({ maxLength: 20 }).filter((text) => !new RegExp(schema.pattern!, 'u').test(text)));
  if (schema.type === 'integer') broken.push(fc.constantFrom(1.5, -0.25, 2 ** 53, 1e300));
  if (schema.minimum !== undefined) broken.push(fc.constantFrom(schema.minimum - 1, schema.minimum - 0.01, -1e300));
  if (schema.exclusiveMinimum !== undefined) broken.push(fc.constant(schema.exclusiveMinimum));
  if (schema.maximum !== undefined)
    broken.push(fc.constantFrom(schema.maximum + 1, 1e308, Number.MAX_SAFE_INTEGER * 10));
  if (schema.type === 'array') {
    if (schema.maxItems !== undefined)
      broken.push(fc.constant(Array.from({ length: schema.maxItems + 1 }, () => placeholder(schema.items))));
    const item = schema.items && invalidValue(schema.items);
    if (item) broken.push(item.map((value) => [value]));
  }
  if (schema.type === 'object') broken.push(...objectBreakers(schema));
  return broken.length ? fc.oneof(...broken) : undefined;
}

function objectBreakers(schema: Schema): Array<fc.Arbitrary<unknown>> {
  const breakers: Array<fc.Arbitrary<unknown>> = [];
  const base = validObject(schema, 1);
  for (const name of schema.required ?? [])
    breakers.push(base.map((value) => Object.fromEntries(Object.entries(value).filter(([key]) => key !== name))));
  if (schema.additionalProperties === false)
    breakers.push(base.map((value) => ({ ...value, unexpected_field: 'surprise' })));
  if (schema.maxProperties !== undefined) {
    breakers.push(
      fc.constant(Object.fromEntries(Array.from({ length: schema.maxProperties + 1 }, (_, i) => [`k${i}`, 'v']))),
    );
  }
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const bad = invalidValue(property);
    if (bad) breakers.push(fc.tuple(base, bad).map(([value, wrong]) => ({ ...value, [name]: wrong })));
  }
  return breakers;
}

/** Some legal-looking item for arrays made too long. */
function placeholder(schema: Schema | undefined): unknown {
  if (schema?.enum) return schema.enum[0];
  if (schema?.anyOf?.[0]?.enum) return schema.anyOf[0].enum[0];
  if (schema?.type === 'integer' || schema?.type === 'number') return schema.minimum ?? 1;
  if (schema?.format === 'uuid') return '00000000-0000-4000-8000-000000000000';
  return 'x';
}
