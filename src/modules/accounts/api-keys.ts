import { randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { constantTimeEqual, sha256 } from '../../lib/crypto.ts';

/**
 * API keys look like `ck_<key id: 16 hex>_<secret: 43 base64url>` (256 random bits of secret).
 * The key id is the public lookup part; only SHA-256 of the whole key is stored, so a database
 * leak discloses no usable key. Keys are high-entropy, so a fast hash is enough (no password KDF).
 */
const KEY_PATTERN = /^ck_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;
const LAST_USED_RESOLUTION_MS = 60 * 60 * 1000;

export type IssuedKey = { plaintext: string; keyId: string; hash: Buffer };

export function composeKey(keyId: string, secret: Buffer): IssuedKey {
  const plaintext = `ck_${keyId}_${secret.toString('base64url')}`;
  return { plaintext, keyId, hash: sha256(plaintext) };
}

export function generateKey(): IssuedKey {
  return composeKey(randomBytes(8).toString('hex'), randomBytes(32));
}

export function parseKeyId(plaintext: string): string | undefined {
  return KEY_PATTERN.exec(plaintext)?.[1];
}

export async function storeKey(db: Kysely<DB>, accountId: string, key: IssuedKey, label = 'default'): Promise<string> {
  const id = randomUUID();
  await db
    .insertInto('api_keys')
    .values({ id, account_id: accountId, key_id: key.keyId, key_hash: key.hash, label })
    .execute();
  return id;
}

export type VerifiedKey = { accountId: string; apiKeyId: string };

/** Returns the key's account when the key exists, matches, is not revoked and has not expired. */
export async function verifyKey(db: Kysely<DB>, plaintext: string, now: Date): Promise<VerifiedKey | undefined> {
  const keyId = parseKeyId(plaintext);
  if (!keyId) return undefined;
  const row = await db
    .selectFrom('api_keys')
    .select(['id', 'account_id', 'key_hash', 'revoked_at', 'expires_at', 'last_used_at'])
    .where('key_id', '=', keyId)
    .executeTakeFirst();
  if (!row || !constantTimeEqual(sha256(plaintext), row.key_hash)) return undefined;
  if (row.revoked_at || (row.expires_at && row.expires_at <= now)) return undefined;
  // Recorded at hourly resolution so that authentication does not write on every request.
  if (!row.last_used_at || now.getTime() - row.last_used_at.getTime() > LAST_USED_RESOLUTION_MS) {
    await db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', row.id).execute();
  }
  return { accountId: row.account_id, apiKeyId: row.id };
}

/**
 * Issues a new key and lets the account's other live keys expire after `graceSeconds`,
 * so integrations can switch without downtime. A grace of 0 revokes them at once.
 */
export async function rotateKey(
  db: Kysely<DB>,
  accountId: string,
  graceSeconds: number,
  now: Date,
): Promise<IssuedKey> {
  const key = generateKey();
  await db.transaction().execute(async (trx) => {
    // Rotations of one account run one after the other: a concurrent one must see (and retire) this new key.
    await trx.selectFrom('accounts').select('id').where('id', '=', accountId).forNoKeyUpdate().execute();
    const expiresAt = new Date(now.getTime() + graceSeconds * 1000);
    await trx
      .updateTable('api_keys')
      .set(graceSeconds === 0 ? { revoked_at: now } : { expires_at: expiresAt })
      .where('account_id', '=', accountId)
      .where('revoked_at', 'is', null)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', expiresAt)]))
      .execute();
    await storeKey(trx, accountId, key, 'rotated');
  });
  return key;
}
