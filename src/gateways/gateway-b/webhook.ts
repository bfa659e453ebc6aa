import { signTimestamped, verifyTimestamped } from '../../lib/timestamp-signature.ts';
import { headerValue, type WebhookHeaders } from '../wire.ts';

export const SIGNATURE_HEADER = 'Gateway-B-Signature';

/**
 * The company's signing secrets: the current one and, during a rotation, the previous one.
 * `now` and `toleranceSeconds` exist for tests and clock-skewed hosts.
 */
export type GatewayBWebhookCredentials = { secrets: readonly string[]; toleranceSeconds?: number; now?: Date };

/** `t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, the scheme Stripe uses. */
export function signatureHeader(secret: string, rawBody: string | Buffer, timestampSeconds: number): string {
  return signTimestamped([secret], rawBody, timestampSeconds);
}

/**
 * True when the `Gateway-B-Signature` header has a `v1` signature of the exact raw body by one of the
 * secrets, made within the tolerance (300 s by default). Several `v1` values may appear during a rotation.
 */
export function verifyWebhook(
  headers: WebhookHeaders,
  rawBody: string | Buffer,
  credentials: GatewayBWebhookCredentials,
): boolean {
  return verifyTimestamped(headerValue(headers, SIGNATURE_HEADER) ?? '', rawBody, credentials);
}
