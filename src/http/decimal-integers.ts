/**
 * Where a text schema (path or query string) declares integers, wherever they sit: properties, array items, and the
 * values of hashes (`patternProperties`, `additionalProperties`). Ajv's coercion reads `0x1`, ` 1` or `1e3` as
 * numbers; an integer in a path or query string must be written in decimal digits, so one resource has one address
 * and a typo is a 422, not another record (docs/security.md).
 *
 * The schema is walked once, when the route is compiled; a request only visits the values where an integer is
 * declared. Union branches (`anyOf`, `oneOf`) are not followed: another branch may accept the text as it is.
 */

/** The instance paths (`/company_ids/0`) of integers not written in decimal digits, appended to `found`. */
export type MalformedIntegerFinder = (value: unknown, path: string, found: string[]) => void;

type SchemaNode = {
  type?: unknown;
  items?: unknown;
  properties?: Record<string, unknown>;
  patternProperties?: Record<string, unknown>;
  additionalProperties?: unknown;
  allOf?: unknown[];
};

const DECIMAL_INTEGER = /^-?[0-9]+$/;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A JSON pointer segment, escaped as Ajv escapes instance paths. */
const segment = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** Builds the finder for a schema, or undefined when it declares no integer anywhere. */
export function malformedIntegerFinder(schema: unknown): MalformedIntegerFinder | undefined {
  if (!isObject(schema)) return undefined;
  const node = schema as SchemaNode;
  const finders: MalformedIntegerFinder[] = [];

  if (node.type === 'integer') {
    // `coerceTypes: 'array'` also unwraps a one-item array (`page[]=2`), so that item is the integer.
    finders.push((value, path, found) => {
      const text = Array.isArray(value) && value.length === 1 ? value[0] : value;
      if (typeof text === 'string' && !DECIMAL_INTEGER.test(text)) found.push(path);
    });
  }

  const item = malformedIntegerFinder(node.items);
  if (item) {
    // A lone value where an array is declared is coerced to a one-item array.
    finders.push((value, path, found) => {
      if (Array.isArray(value)) value.forEach((entry, index) => item(entry, `${path}/${index}`, found));
      else item(value, `${path}/0`, found);
    });
  }

  const named = Object.entries(node.properties ?? {}).flatMap(([key, property]) => {
    const finder = malformedIntegerFinder(property);
    return finder ? [{ key, finder }] : [];
  });
  const patterns = Object.keys(node.patternProperties ?? {}).map((pattern) => ({
    pattern: new RegExp(pattern, 'u'),
    finder: malformedIntegerFinder(node.patternProperties![pattern]),
  }));
  const additional = malformedIntegerFinder(node.additionalProperties);
  const hashValues = patterns.some((p) => p.finder) || additional !== undefined;
  if (named.length || hashValues) {
    const declared = new Set(Object.keys(node.properties ?? {}));
    finders.push((value, path, found) => {
      if (!isObject(value)) return;
      for (const { key, finder } of named)
        if (Object.hasOwn(value, key)) finder(value[key], `${path}/${segment(key)}`, found);
      if (!hashValues) return;
      for (const [key, entry] of Object.entries(value)) {
        if (declared.has(key)) continue;
        const matching = patterns.filter((p) => p.pattern.test(key));
        const at = `${path}/${segment(key)}`;
        for (const { finder } of matching) finder?.(entry, at, found);
        if (!matching.length) additional?.(entry, at, found);
      }
    });
  }

  for (const part of node.allOf ?? []) {
    const finder = malformedIntegerFinder(part);
    if (finder) finders.push(finder);
  }

  if (!finders.length) return undefined;
  if (finders.length === 1) return finders[0];
  return (value, path, found) => finders.forEach((finder) => finder(value, path, found));
}
