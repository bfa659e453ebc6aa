import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { containsPattern } from '../../db/like.ts';


export function listProducts(db: Kysely<DB>, accountId: string, filter: { q?: string; includeDeleted: boolean }) {
  let query = db
    .selectFrom('products')
    .select(['id', 'name', 'product_type', 'company_id', 'value_cents', 'deleted_at', 'subscription'])
    .where('account_id', '=', accountId);
  if (!filter.includeDeleted) query = query.where('deleted_at', 'is', null);
  if (filter.q) query = query.where('name', 'ilike', containsPattern(filter.q));
  return query.orderBy('id').limit(1000).execute();
}

export function findProduct(db: Kysely<DB>, id: number) {
  return db
    .selectFrom('products')
    .select(['id', 'account_id', 'name', 'description', 'subscription', 'value_cents', 'weight_grams', 'image_url'])
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}
