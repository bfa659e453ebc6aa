import { constantTimeEqual } from '../../lib/crypto.ts';
import { headerValue, type WebhookHeaders } from '../wire.ts';

/** The HTTP Basic credentials the merchant gave gateway_a for its webhooks. */
export type GatewayAWebhookCredentials = { username: string; password: string };

/**
 * True when the webhook carries the company's HTTP Basic credentials. gateway_a does not sign bodies, so
 * `rawBody` is not read; both parts are always compared so the answer time says nothing about which failed.
 */
export function verifyWebhook(
  headers: WebhookHeaders,
  _rawBody: string | Buffer,
  credentials: GatewayAWebhookCredentials,
): boolean {
  const match = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(headerValue(headers, 'authorization') ?? '');
  if (!match) return false;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return false;
  const usernameMatches = constantTimeEqual(decoded.slice(0, colon), credentials.username);
  const passwordMatches = constantTimeEqual(decoded.slice(colon + 1), credentials.password);
  return usernameMatches && passwordMatches;
}
