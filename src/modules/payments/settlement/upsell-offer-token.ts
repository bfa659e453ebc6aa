import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import { constantTimeEqual, deriveSecret, hmacSha256 } from '../../../lib/crypto.ts';

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
  const payload = Buffer.from(
    JSON.stringify({ p: PURPOSE, id: offerId, exp: Math.floor(expiresAt.getTime() / 1000) }),
  ).toString('base64url');
  return `${payload}.${hmacSha256(deriveSecret(masterKey, PURPOSE), payload).toString('base64url')}`;
}

/** The offer id of a genuine, unexpired token; undefined otherwise (tampered, expired, other purpose). */
export function verifyOfferToken(
  masterKey: Buffer,
  token: string,
  now: Date,
): { offerId: string; expiresAt: Date } | undefined {
  const genuine = genuineOfferToken(masterKey, token);
  return genuine && genuine.expiresAt > now ? genuine : undefined;
}

/**
 * The offer a genuine token names, expired or not: what the Idempotency-Key of a redemption is scoped by, so
 * a retry after the offer expired still replays the first answer. Never a licence to redeem.
 */
export function genuineOfferToken(masterKey: Buffer, token: string): { offerId: string; expiresAt: Date } | undefined {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) return undefined;
  const expected = hmacSha256(deriveSecret(masterKey, PURPOSE), payload).toString('base64url');
  if (!constantTimeEqual(expected, signature)) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
      p?: unknown;
      id?: unknown;
      exp?: unknown;
    };
    if (parsed.p !== PURPOSE || typeof parsed.id !== 'string' || typeof parsed.exp !== 'number') return undefined;
    return { offerId: parsed.id, expiresAt: new Date(parsed.exp * 1000) };
  } catch {
    return undefined;
  }
}

export type OfferRow = { id: string; expiresAt: Date; consumedAt: Date | null };

/**
 * The order's offer row, created once: concurrent or repeated calls (the pay request and a confirmation
 * job) meet on the unique (account, order) index and get the same row.
 */
export async function ensureUpsellOffer(
  trx: Kysely<DB>,
  offer: { accountId: string; orderId: number; productId: number; now: Date },
): Promise<OfferRow & { created: boolean }> {
  const inserted = await trx
    .insertInto('upsell_offers')
    .values({
      id: randomUUID(),
      account_id: offer.accountId,
      order_id: offer.orderId,
      product_id: offer.productId,
      expires_at: new Date(offer.now.getTime() + OFFER_TTL_MS),
      created_at: offer.now,
    })
    .onConflict((oc) => oc.columns(['account_id', 'order_id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  const row = await trx
    .selectFrom('upsell_offers')
    .select(['id', 'expires_at', 'consumed_at'])
    .where('account_id', '=', offer.accountId)
    .where('order_id', '=', offer.orderId)
    .executeTakeFirstOrThrow();
  return { id: row.id, expiresAt: row.expires_at, consumedAt: row.consumed_at, created: inserted !== undefined };
}

/** The order's offer (created once) and its token. */
export async function createUpsellOffer(
  trx: Kysely<DB>,
  masterKey: Buffer,
  offer: { accountId: string; orderId: number; productId: number; now: Date },
): Promise<string> {
  const row = await ensureUpsellOffer(trx, offer);
  return signOfferToken(masterKey, row.id, row.expiresAt);
}

/** The token of an order's offer still open to redemption (not consumed, not expired); undefined otherwise. */
export async function openOfferToken(
  db: Kysely<DB>,
  masterKey: Buffer,
  ref: { accountId: string; orderId: number },
  now: Date,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('upsell_offers')
    .select(['id', 'expires_at'])
    .where('account_id', '=', ref.accountId)
    .where('order_id', '=', ref.orderId)
    .where('consumed_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row ? signOfferToken(masterKey, row.id, row.expires_at) : undefined;
}
