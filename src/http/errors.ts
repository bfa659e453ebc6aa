/**
 * The one error type of the service. Services throw it with a code from the closed list below;
 * only the HTTP layer turns a code into a status (codeToStatus).
 */
export const ERROR_CODES = {
  malformed_request: 400,
  authentication_required: 401,
  invalid_api_key: 401,
  invalid_credentials: 401,
  invalid_signature: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  idempotency_key_in_use: 409,
  payment_in_progress: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  card_number_refused: 422,
  business_rule_violation: 422,
  idempotency_key_reused: 422,
  rate_limited: 429,
  internal_error: 500,
  gateway_error: 502,
  service_unavailable: 503,
  gateway_timeout: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;
export type FieldError = { field: string; message: string };

export function codeToStatus(code: ErrorCode): number {
  return ERROR_CODES[code];
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: FieldError[] = [],
    /** Headers the reply must carry, such as Retry-After. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): number {
    return codeToStatus(this.code);
  }
}

export const notFound = (what: string) => new AppError('not_found', `${what} not found`);
export const forbidden = (message = 'This origin or key may not access this resource') =>
  new AppError('forbidden', message);
export const validationFailed = (message: string, details: FieldError[] = []) =>
  new AppError('validation_failed', message, details);
export const businessRule = (message: string, details: FieldError[] = []) =>
  new AppError('business_rule_violation', message, details);

export type ErrorBody = { code: ErrorCode; message: string; request_id: string; details?: FieldError[] };

export function errorBody(error: AppError, requestId: string): ErrorBody {
  return {
    code: error.code,
    message: error.message,
    request_id: requestId,
    ...(error.details.length ? { details: error.details } : {}),
  };
}
