import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { randomToken, sha256 } from '../../lib/crypto.ts';
import type { Role } from './roles.ts';

/**
 * Sessions live in the database, so every API process sees a sign-out, a removal or a role change on the next
 * request. The cookie carries 256 random bits; the row is keyed by their SHA-256. A session ends after 12 hours
 * without use or 7 days after sign-in, whichever comes first.
 */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
export const SESSION_MAX_MS = 7 * 24 * 60 * 60 * 1000;
const LAST_SEEN_RESOLUTION_MS = 60 * 1000;

export type ActiveSession = {
  idHash: Buffer;
  accountId: string;
  userId: string;
  email: string;
  role: Role;
  locale: string;
  totpEnabled: boolean;
  csrfToken: string;
};

export async function createSession(
  db: Kysely<DB>,
  user: { accountId: string; userId: string },
  client: { ip: string; userAgent: string | undefined },
  now: Date,
): Promise<{ cookieValue: string; csrfToken: string }> {
  const cookieValue = randomToken(32);
  const csrfToken = randomToken(32);
  await db
    .insertInto('dashboard_sessions')
    .values({
      id_hash: sha256(cookieValue),
      account_id: user.accountId,
      user_id: user.userId,
      csrf_token: csrfToken,
      ip: client.ip,
      user_agent: client.userAgent?.slice(0, 300) ?? null,
      created_at: now,
      last_seen_at: now,
      expires_at: new Date(now.getTime() + SESSION_MAX_MS),
    })
    .execute();
  return { cookieValue, csrfToken };
}

/** The live session of a cookie with its user's current role, or undefined. */
export async function findSession(db: Kysely<DB>, cookieValue: string, now: Date): Promise<ActiveSession | undefined> {
  const idHash = sha256(cookieValue);
  const row = await db
    .selectFrom('dashboard_sessions as s')
    .innerJoin('dashboard_users as u', 'u.id', 's.user_id')
    .select([
      's.account_id',
      's.user_id',
      's.csrf_token',
      's.last_seen_at',
      's.expires_at',
      'u.email',
      'u.role',
      'u.locale',
      'u.totp_enabled_at',
    ])
    .where('s.id_hash', '=', idHash)
    .executeTakeFirst();
  if (!row || row.expires_at <= now || now.getTime() - row.last_seen_at.getTime() > SESSION_IDLE_MS) return undefined;
  if (now.getTime() - row.last_seen_at.getTime() > LAST_SEEN_RESOLUTION_MS) {
    await db.updateTable('dashboard_sessions').set({ last_seen_at: now }).where('id_hash', '=', idHash).execute();
  }
  return {
    idHash,
    accountId: row.account_id,
    userId: row.user_id,
    email: row.email,
    role: row.role as Role,
    locale: row.locale,
    totpEnabled: row.totp_enabled_at !== null,
    csrfToken: row.csrf_token,
  };
}

export async function endSession(db: Kysely<DB>, idHash: Buffer): Promise<void> {
  await db.deleteFrom('dashboard_sessions').where('id_hash', '=', idHash).execute();
}

/** Every session of the user ("sign out everywhere"); also used when a password is set or a user removed. */
export async function endUserSessions(db: Kysely<DB>, accountId: string, userId: string): Promise<number> {
  const result = await db
    .deleteFrom('dashboard_sessions')
    .where('account_id', '=', accountId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
