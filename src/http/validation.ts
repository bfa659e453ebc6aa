import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyRequest, FastifySchemaCompiler } from 'fastify';

const base: Options = { allErrors: true, strict: false, removeAdditional: false, useDefaults: true };

function withFormats(ajv: Ajv): Ajv {
  (addFormats as unknown as (ajv: Ajv) => void)(ajv);
  return ajv;
}

/**
 * Query strings and path parameters arrive as text, so they are coerced to the declared types.
 * JSON bodies are not: `"value": "12"` where a number is declared is a client error, not a number.
 */
const textAjv = withFormats(new Ajv({ ...base, coerceTypes: 'array' }));
const bodyAjv = withFormats(new Ajv({ ...base, coerceTypes: false }));

type Validate = ReturnType<FastifySchemaCompiler<unknown>> & { errors?: unknown };

/** The properties a text schema declares as integers. */
function integerProperties(schema: unknown): string[] {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  return Object.entries(properties).filter(([, property]) => property.type === 'integer').map(([name]) => name);
}

/**
 * Coercion reads `0x1`, ` 1` or `1e3` as numbers: an integer in a path or query string must be written in
 * decimal digits, so one resource has one address and a typo is a 422, not another record.
 */
function decimalIntegersOnly(validate: Validate, integers: string[]): Validate {
  const checked = ((data: unknown) => {
    const values = (data ?? {}) as Record<string, unknown>;
    const malformed = integers.find((name) => typeof values[name] === 'string' && !/^-?[0-9]+$/.test(values[name] as string));
    if (malformed !== undefined) {
      checked.errors = [{ instancePath: `/${malformed}`, schemaPath: `#/properties/${malformed}/type`, keyword: 'type', params: { type: 'integer' }, message: 'must be an integer in decimal digits' }];
      return false;
    }
    const valid = validate(data);
    checked.errors = validate.errors;
    return valid;
  }) as Validate;
  return checked;
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  if (httpPart === 'body') return bodyAjv.compile(schema as object) as Validate;
  const validate = textAjv.compile(schema as object) as Validate;
  const integers = integerProperties(schema);
  return integers.length ? decimalIntegersOnly(validate, integers) : validate;
};

/**
 * preValidation hook of a POST whose fields are all optional: a request without a body is validated as
 * `{}`. A JSON `null` body is not absent and stays a validation error.
 */
export async function absentBodyAsEmpty(request: FastifyRequest): Promise<void> {
  if (request.body === undefined) request.body = {};
}
