import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

/** How long a process reuses an account's allowed hosts: a change made with `apply` is in force within this. */
export const ALLOWED_HOSTS_TTL_MS = 5_000;
const allowedHostsCache = new WeakMap<Kysely<DB>, Map<string, { hosts: string[]; until: number }>>();

/** The account's allowed hosts, read at most once per TTL per database handle (public endpoints ask on every request). */
export async function findAllowedHosts(
  db: Kysely<DB>,
  accountId: string,
  nowMs = performance.now(),
): Promise<string[]> {
  let cache = allowedHostsCache.get(db);
  if (!cache) allowedHostsCache.set(db, (cache = new Map()));
  const cached = cache.get(accountId);
  if (cached && cached.until > nowMs) return cached.hosts;
  const row = await db.selectFrom('accounts').select('allowed_hosts').where('id', '=', accountId).executeTakeFirst();
  const hosts = row?.allowed_hosts ?? [];
  if (cache.size > 10_000) cache.clear();
  cache.set(accountId, { hosts, until: nowMs + ALLOWED_HOSTS_TTL_MS });
  return hosts;
}

export async function findPrimaryCompanyId(db: Kysely<DB>, accountId: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('companies')
    .select('id')
    .where('account_id', '=', accountId)
    .where('is_primary', '=', true)
    .executeTakeFirst();
  return row?.id;
}

export async function findCompanyBySlug(
  db: Kysely<DB>,
  slug: string,
): Promise<{ id: number; account_id: string } | undefined> {
  return db.selectFrom('companies').select(['id', 'account_id']).where('slug', '=', slug).executeTakeFirst();
}

/** The account's own company ids among `ids`; anything else is another tenant's or unknown. */
export async function ownedCompanyIds(db: Kysely<DB>, accountId: string, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('companies')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .execute();
  return rows.map((row) => row.id);
}
