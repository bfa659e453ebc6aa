import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

export async function findAllowedHosts(db: Kysely<DB>, accountId: string): Promise<string[]> {
  const row = await db.selectFrom('accounts').select('allowed_hosts').where('id', '=', accountId).executeTakeFirst();
  return row?.allowed_hosts ?? [];
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

export async function findCompanyBySlug(db: Kysely<DB>, slug: string): Promise<{ id: number; account_id: string } | undefined> {
  return db.selectFrom('companies').select(['id', 'account_id']).where('slug', '=', slug).executeTakeFirst();
}

/** The account's own company ids among `ids`; anything else is another tenant's or unknown. */
export async function ownedCompanyIds(db: Kysely<DB>, accountId: string, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('companies').select('id').where('account_id', '=', accountId).where('id', 'in', ids).execute();
  return rows.map((row) => row.id);
}
