import { constantTimeEqual, hmacSha256 } from './crypto.ts';

/**
 * The `t=<unix>,v1=<hex>` webhook signature scheme (Stripe's): HMAC-SHA256 over `<t>.<raw body>`.
 * Used by the gateway_b receiver and sandbox and by outbound merchant notifications.
 */

export const DEFAULT_TOLERANCE_SECONDS = 300;

export function timestampSignature(secret: string, timestamp: number | string, rawBody: string | Buffer): string {
  const body = Buffer.isBuffer(rawBody) ? rawBody : Buffer.from(rawBody, 'utf8');
  return hmacSha256(secret, Buffer.concat([Buffer.from(`${timestamp}.`, 'utf8'), body])).toString('hex');
}

/** One header value signed by every secret (one `v1` each), so a receiver holding any of them accepts it during a rotation. */
export function signTimestamped(
  secrets: readonly string[],
  rawBody: string | Buffer,
  timestampSeconds: number,
): string {
  return [
    `t=${timestampSeconds}`,
    ...secrets.map((secret) => `v1=${timestampSignature(secret, timestampSeconds, rawBody)}`),
  ].join(',');
}

export type TimestampVerification = { secrets: readonly string[]; toleranceSeconds?: number; now?: Date };

/**
 * True when the header has a `v1` signature of the exact raw body by one of the secrets, made within
 * the tolerance (300 s by default). Every candidate is compared in constant time.
 */
export function verifyTimestamped(header: string, rawBody: string | Buffer, options: TimestampVerification): boolean {
  const parsed = parseSignatureHeader(header);
  if (!parsed || parsed.signatures.length === 0) return false;
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - Number(parsed.timestamp)) > (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS))
    return false;
  let valid = false;
  for (const secret of options.secrets) {
    if (secret === '') continue;
    const expected = timestampSignature(secret, parsed.timestamp, rawBody);
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
