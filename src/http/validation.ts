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

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
};

/**
 * preValidation hook of a POST whose fields are all optional: a request without a body is validated as
 * `{}`. A JSON `null` body is not absent and stays a validation error.
 */
export async function absentBodyAsEmpty(request: FastifyRequest): Promise<void> {
  if (request.body === undefined) request.body = {};
}
