import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '../../lib/crypto.ts';
import { headerValue, type WebhookHeaders } from '../wire.ts';

export const SIGNATURE_HEADER = 'X-Hub-Signature';

/** gateway_c signs postbacks with the merchant's api key (its secret key). */
export type GatewayCWebhookCredentials = { apiKey: string };

/** `sha1=<hex HMAC-SHA1 of the raw body, keyed with the api key>`. */
export function postbackSignature(apiKey: string, rawBody: string | Buffer): string {
  return `sha1=${createHmac('sha1', apiKey).update(rawBody).digest('hex')}`;
}

/** True when `X-Hub-Signature` signs exactly this raw body with the api key. */
export function verifyWebhook(
  headers: WebhookHeaders,
  rawBody: string | Buffer,
  credentials: GatewayCWebhookCredentials,
): boolean {
  const received = headerValue(headers, SIGNATURE_HEADER)?.trim().toLowerCase();
  if (!received || credentials.apiKey === '') return false;
  return constantTimeEqual(received, postbackSignature(credentials.apiKey, rawBody));
}
