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

/** A live product by its global id (public endpoints check the owning account afterwards). */
export function findProduct(db: Kysely<DB>, id: number) {
  return db
    .selectFrom('products')
    .select([
      'id',
      'account_id',
      'company_id',
      'name',
      'description',
      'short_description',
      'subscription',
      'value_cents',
      'weight_grams',
      'image_url',
    ])
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** The publishable key of a company's enabled integration with `gateway`, if it has one. */
export async function findGatewayPublicKey(
  db: Kysely<DB>,
  accountId: string,
  companyId: number,
  gateway: 'gateway_a' | 'gateway_b' | 'gateway_c',
) {
  const row = await db
    .selectFrom('company_gateways')
    .select('public_key')
    .where('account_id', '=', accountId)
    .where('company_id', '=', companyId)
    .where('gateway', '=', gateway)
    .where('enabled', '=', true)
    .where('public_key', 'is not', null)
    .executeTakeFirst();
  return row?.public_key ?? undefined;
}
