import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyRequest, FastifySchemaCompiler } from 'fastify';
import { malformedIntegerFinder, type MalformedIntegerFinder } from './decimal-integers.ts';

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

/** A path or query string with an integer not written in decimal digits is refused before coercion reads it. */
function decimalIntegersOnly(validate: Validate, findMalformed: MalformedIntegerFinder): Validate {
  const checked = ((data: unknown) => {
    const malformed: string[] = [];
    findMalformed(data, '', malformed);
    if (malformed.length) {
      checked.errors = malformed.map((instancePath) => ({
        instancePath,
        schemaPath: '',
        keyword: 'type',
        params: { type: 'integer' },
        message: 'must be an integer in decimal digits',
      }));
      return false;
    }
    const valid = validate(data);
    checked.errors = validate.errors;
    return valid;
  }) as Validate;
  return checked;
}

/** A route's validator compiled now (`schemaCompilation: 'eager'`). */
export function compileValidator({ schema, httpPart }: Parameters<FastifySchemaCompiler<unknown>>[0]): Validate {
  if (httpPart === 'body') return bodyAjv.compile(schema as object) as Validate;
  const validate = textAjv.compile(schema as object) as Validate;
  const findMalformed = malformedIntegerFinder(schema);
  return findMalformed ? decimalIntegersOnly(validate, findMalformed) : validate;
}

/**
 * Each route's validator compiled when its first request arrives: compiling all of them took most of the
 * app's start-up, while a short-lived process serves a few routes (`schemaCompilation: 'lazy'`).
 */
export const lazyValidatorCompiler: FastifySchemaCompiler<unknown> = (route) => {
  let compiled: Validate | undefined;
  const validate = ((data: unknown) => {
    compiled ??= compileValidator(route);
    const valid = compiled(data);
    validate.errors = compiled.errors;
    return valid;
  }) as Validate;
  return validate;
};

/**
 * preValidation hook of a POST whose fields are all optional: a request without a body is validated as
 * `{}`. A JSON `null` body is not absent and stays a validation error.
 */
export async function absentBodyAsEmpty(request: FastifyRequest): Promise<void> {
  if (request.body === undefined) request.body = {};
}
