import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errorBody, type FieldError } from './errors.ts';
import { VISIBLE_CHARACTER } from './schemas.ts';

/**
 * Bodies the specification fixes for some routes (route `config.errorFormat`):
 * `error` → `{ error: string }` (coupon validation); `errors` → `{ errors: string[] }` (payment plans,
 * card hash keys). A 403 of such a route has no JSON body (spec: none defined).
 * Every other route answers with ErrorBody: `{ code, message, request_id, details? }`.
 */
export type ErrorFormat = 'standard' | 'error' | 'errors';

declare module 'fastify' {
  interface FastifyContextConfig {
    errorFormat?: ErrorFormat;
  }
}

const FASTIFY_CODES: Record<string, () => AppError> = {
  FST_ERR_CTP_INVALID_JSON_BODY: () => new AppError('malformed_request', 'The request body is not valid JSON'),
  FST_ERR_CTP_EMPTY_JSON_BODY: () =>
    new AppError('malformed_request', 'The request declares a JSON body but sent none'),
  FST_ERR_CTP_BODY_TOO_LARGE: () => new AppError('payload_too_large', 'The request body is too large'),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () =>
    new AppError('unsupported_media_type', 'Send the request body as application/json'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () =>
    new AppError('malformed_request', 'The Content-Length does not match the body'),
  FST_ERR_BAD_URL: () => new AppError('malformed_request', 'The request URL is malformed'),
  FST_ERR_ASYNC_CONSTRAINT: () => new AppError('malformed_request', 'The request could not be routed'),
  FST_ERR_MAX_PARAM_LENGTH: () => new AppError('validation_failed', 'A path parameter is too long'),
};

/** Turns any thrown error into an AppError without echoing request content (it may hold card data). */
export function toAppError(error: FastifyError | Error): AppError {
  if (error instanceof AppError) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    const details: FieldError[] = fastifyError.validation.map((issue) => ({
      field: `${fastifyError.validationContext ?? 'body'}${issue.instancePath || ''}${missingProperty(issue.params)}`,
      message: issueMessage(issue),
    }));
    return new AppError('validation_failed', `The ${fastifyError.validationContext ?? 'request'} is invalid`, details);
  }
  const mapped = fastifyError.code ? FASTIFY_CODES[fastifyError.code] : undefined;
  if (mapped) return mapped();
  if (fastifyError.statusCode === 413) return FASTIFY_CODES.FST_ERR_CTP_BODY_TOO_LARGE!();
  if (fastifyError.statusCode === 415) return FASTIFY_CODES.FST_ERR_CTP_INVALID_MEDIA_TYPE!();
  if (fastifyError.statusCode && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return new AppError('malformed_request', 'The request could not be understood');
  }
  return new AppError('internal_error', 'An unexpected error occurred; it has been logged with the request id');
}

/** Ajv's message, except where it would quote a rule's internals rather than say what is wanted. */
function issueMessage(issue: { keyword: string; params: Record<string, unknown>; message?: string }): string {
  if (issue.keyword === 'pattern' && issue.params.pattern === VISIBLE_CHARACTER)
    return 'must contain a visible character';
  if (issue.keyword === 'multipleOf' && issue.params.multipleOf === 1) return 'must be a whole number';
  return issue.message ?? 'is invalid';
}

function missingProperty(params: Record<string, unknown> | undefined): string {
  const name = params?.missingProperty ?? params?.additionalProperty;
  return typeof name === 'string' ? `/${name}` : '';
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const appError = toAppError(error);
    if (appError.code === 'internal_error') request.log.error({ err: error }, 'unhandled error');
    else if (appError.status >= 500) request.log.warn({ code: appError.code }, appError.message);
    return sendError(request, reply, appError);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(request, reply, new AppError('not_found', `No route ${request.method} ${request.url.split('?')[0]}`)),
  );
}

/**
 * Errors Fastify raises before routing (a malformed percent-encoding, an over-long path parameter):
 * without this they get Fastify's own body, which quotes the URL back.
 */
export function handleFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  sendError(request, reply, toAppError(error));
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  reply.code(error.status).headers(error.headers);
  const format = request.routeOptions.config?.errorFormat ?? 'standard';
  if (format !== 'standard' && error.status === 403) return reply.send();
  if (format === 'error') return reply.send({ error: error.message });
  if (format === 'errors') return reply.send({ errors: errorMessages(error) });
  return reply.send(errorBody(error, request.id));
}

function errorMessages(error: AppError): string[] {
  return error.details.length ? error.details.map((d) => `${d.field} ${d.message}`) : [error.message];
}
