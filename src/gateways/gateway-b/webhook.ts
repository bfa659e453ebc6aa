import { constantTimeEqual, hmacSha256 } from '../../lib/crypto.ts';
import { headerValue, type WebhookHeaders } from '../wire.ts';

export const SIGNATURE_HEADER = 'Gateway-B-Signature';
export const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * The company's signing secrets: the current one and, during a rotation, the previous one.
 * `now` and `toleranceSeconds` exist for tests and clock-skewed hosts.
 */
export type GatewayBWebhookCredentials = { secrets: readonly string[]; toleranceSeconds?: number; now?: Date };

/** `t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, the scheme Stripe uses. */
export function signatureHeader(secret: string, rawBody: string | Buffer, timestampSeconds: number): string {
  return `t=${timestampSeconds},v1=${expectedSignature(secret, timestampSeconds, rawBody)}`;
}

function expectedSignature(secret: string, timestamp: number | string, rawBody: string | Buffer): string {
  return hmacSha256(secret, Buffer.concat([Buffer.from(`${timestamp}.`, 'utf8'), Buffer.isBuffer(rawBody) ? rawBody : Buffer.from(rawBody, 'utf8')])).toString('hex');
}

/**
 * True when the `Gateway-B-Signature` header has a `v1` signature of the exact raw body by one of the
 * secrets, made within the tolerance (300 s by default). Several `v1` values may appear during a rotation.
 */
export function verifyWebhook(headers: WebhookHeaders, rawBody: string | Buffer, credentials: GatewayBWebhookCredentials): boolean {
  const parsed = parseSignatureHeader(headerValue(headers, SIGNATURE_HEADER) ?? '');
  if (!parsed || parsed.signatures.length === 0) return false;
  const nowSeconds = Math.floor((credentials.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - Number(parsed.timestamp)) > (credentials.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) return false;
  let valid = false;
  for (const secret of credentials.secrets) {
    if (secret === '') continue;
    const expected = expectedSignature(secret, parsed.timestamp, rawBody);
    for (const signature of parsed.signatures) valid = constantTimeEqual(signature, expected) || valid;
  }
  return valid;
}

function parseSignatureHeader(header: string): { timestamp: string; signatures: string[] } | undefined {
  let timestamp: string | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const [key, value = ''] = part.trim().split('=', 2) as [string, string?];
    if (key === 't') timestamp = value;
    if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) signatures.push(value.toLowerCase());
  }
  return timestamp !== undefined && /^\d{1,12}$/.test(timestamp) ? { timestamp, signatures } : undefined;
}
