import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { randomToken, sha256 } from '../../lib/crypto.ts';

/** One-time links: an invite lasts 7 days, a sign-in link 1 hour. Only the token's SHA-256 is stored. */
export const LINK_LIFETIME_MS = { invite: 7 * 24 * 60 * 60 * 1000, sign_in: 60 * 60 * 1000 } as const;
export type LinkPurpose = keyof typeof LINK_LIFETIME_MS;

export async function issueLink(
  db: Kysely<DB>,
  user: { accountId: string; userId: string },
  purpose: LinkPurpose,
  now: Date,
): Promise<string> {
  const token = randomToken(32);
  await db
    .insertInto('dashboard_sign_in_links')
    .values({
      token_hash: sha256(token),
      account_id: user.accountId,
      user_id: user.userId,
      purpose,
      expires_at: new Date(now.getTime() + LINK_LIFETIME_MS[purpose]),
      created_at: now,
    })
    .execute();
  return token;
}

/** The URL a link token is opened at: the dashboard's page that sets a password and signs in. */
export function linkUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/dashboard/link#${token}`;
}

export type RedeemableLink = { accountId: string; userId: string; purpose: LinkPurpose };

/** The link's user when the token is live; `consume` marks it used in the same statement, so it works once. */
export async function peekLink(db: Kysely<DB>, token: string, now: Date): Promise<RedeemableLink | undefined> {
  const row = await db
    .selectFrom('dashboard_sign_in_links')
    .select(['account_id', 'user_id', 'purpose'])
    .where('token_hash', '=', sha256(token))
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row ? { accountId: row.account_id, userId: row.user_id, purpose: row.purpose as LinkPurpose } : undefined;
}

export async function consumeLink(db: Kysely<DB>, token: string, now: Date): Promise<RedeemableLink | undefined> {
  const row = await db
    .updateTable('dashboard_sign_in_links')
    .set({ used_at: now })
    .where('token_hash', '=', sha256(token))
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['account_id', 'user_id', 'purpose'])
    .executeTakeFirst();
  return row ? { accountId: row.account_id, userId: row.user_id, purpose: row.purpose as LinkPurpose } : undefined;
}
