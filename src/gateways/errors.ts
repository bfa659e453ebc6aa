import type { GatewayName } from './port.ts';

/**
 * A gateway refused a request for a reason the caller must fix (bad credentials, unknown charge, missing
 * field, a transition the gateway forbids): nothing was charged and retrying the same call will not help.
 */
export class GatewayRequestError extends Error {
  constructor(
    readonly gateway: GatewayName,
    readonly status: number,
    readonly code: GatewayRequestErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'GatewayRequestError';
  }
}

export type GatewayRequestErrorCode =
  'authentication_failed' | 'not_found' | 'confirmation_token_required' | 'invalid_state' | 'invalid_request';

/** A webhook body that is not the gateway's event shape (receivers answer 400 and log it). */
export class WebhookPayloadError extends Error {
  constructor(
    readonly gateway: GatewayName,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookPayloadError';
  }
}

/** The code every client gives a 4xx it has no more specific reading for. */
export function requestErrorCode(status: number): GatewayRequestErrorCode {
  if (status === 401 || status === 403) return 'authentication_failed';
  if (status === 404) return 'not_found';
  if (status === 409) return 'invalid_state';
  return 'invalid_request';
}
