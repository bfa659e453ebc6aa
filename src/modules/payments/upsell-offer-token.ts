import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { constantTimeEqual, deriveSecret, hmacSha256 } from '../../lib/crypto.ts';

/** How long an upsell offer may be redeemed after the payment that produced it. */
export const OFFER_TTL_MS = 30 * 60_000;
const PURPOSE = 'upsell-offer';

/**
 * The offer token: `<base64url(JSON payload)>.<base64url(HMAC-SHA256)>`, payload
 * `{"p":"upsell-offer","id":"<upsell_offers.id>","exp":<unix seconds>}`, keyed with
 * `deriveSecret(masterKey, 'upsell-offer')`. The purpose inside the signed payload keeps a signature
 * made for anything else from passing as an offer; the row's `consumed_at` makes it single-use.
 */
export function signOfferToken(masterKey: Buffer, offerId: string, expiresAt: Date): string {
  const payload = Buffer.from(JSON.stringify({ p: PURPOSE, id: offerId, exp: Math.floor(expiresAt.getTime() / 1000) })).toString('base64url');
  return `${payload}.${hmacSha256(deriveSecret(masterKey, PURPOSE), payload).toString('base64url')}`;
}

/** The offer id of a genuine, unexpired token; undefined otherwise (tampered, expired, other purpose). */
export function verifyOfferToken(masterKey: Buffer, token: string, now: Date): { offerId: string; expiresAt: Date } | undefined {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) return undefined;
  const expected = hmacSha256(deriveSecret(masterKey, PURPOSE), payload).toString('base64url');
  if (!constantTimeEqual(expected, signature)) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { p?: unknown; id?: unknown; exp?: unknown };
    if (parsed.p !== PURPOSE || typeof parsed.id !== 'string' || typeof parsed.exp !== 'number') return undefined;
    const expiresAt = new Date(parsed.exp * 1000);
    return expiresAt > now ? { offerId: parsed.id, expiresAt } : undefined;
  } catch {
    return undefined;
  }
}

/** Creates the order's offer row (once per order) and its token. */
export async function createUpsellOffer(trx: Kysely<DB>, masterKey: Buffer, offer: { accountId: string; orderId: number; productId: number; now: Date }): Promise<string> {
  const id = randomUUID();
  const expiresAt = new Date(offer.now.getTime() + OFFER_TTL_MS);
  await trx
    .insertInto('upsell_offers')
    .values({ id, account_id: offer.accountId, order_id: offer.orderId, product_id: offer.productId, expires_at: expiresAt, created_at: offer.now })
    .execute();
  return signOfferToken(masterKey, id, expiresAt);
}
