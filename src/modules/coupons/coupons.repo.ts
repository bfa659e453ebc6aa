import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

/** Kept products among `ids` with their owners: a lookup by primary key, as a public product read is. */
export function findProductOwners(db: Kysely<DB>, ids: number[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('products')
    .select(['id', 'account_id', 'company_id'])
    .where('id', 'in', ids)
    .where('deleted_at', 'is', null)
    .execute();
}
