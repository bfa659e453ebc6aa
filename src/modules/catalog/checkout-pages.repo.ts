import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { containsPattern } from '../../db/like.ts';


export type CheckoutPageFilter = { q?: string; hasProducts?: boolean; productIds?: number[] };

export function listCheckoutPages(db: Kysely<DB>, accountId: string, filter: CheckoutPageFilter) {
  const pageProducts = (eb: any) =>
    eb.selectFrom('checkout_page_products as cpp').whereRef('cpp.checkout_page_id', '=', 'cp.id').where('cpp.account_id', '=', accountId);
  let query = db
    .selectFrom('checkout_pages as cp')
    .leftJoin('company_gateways as g', (join) =>
      join.onRef('g.account_id', '=', 'cp.account_id').onRef('g.company_id', '=', 'cp.company_id').onRef('g.gateway', '=', 'cp.gateway'),
    )
    .select((eb) => [
      'cp.id',
      'cp.page_title',
      'cp.main_color',
      'cp.currency',
      'cp.gateway',
      'cp.enable_coupons',
      'cp.company_id',
      'g.public_key',
      eb
        .exists(pageProducts(eb).innerJoin('products as p', 'p.id', 'cpp.product_id').where('p.subscription', '=', true).select(sql.lit(1).as('one')))
        .as('subscription'),
    ])
    .where('cp.account_id', '=', accountId)
    .where('cp.deleted_at', 'is', null);
  if (filter.hasProducts !== undefined) {
    const exists = (eb: any) => eb.exists(pageProducts(eb).select(sql.lit(1).as('one')));
    query = query.where((eb) => (filter.hasProducts ? exists(eb) : eb.not(exists(eb))));
  }
  if (filter.productIds?.length) {
    query = query.where((eb) => eb.exists(pageProducts(eb).where('cpp.product_id', 'in', filter.productIds!).select(sql.lit(1).as('one'))));
  }
  if (filter.q) {
    const pattern = containsPattern(filter.q);
    query = query.where((eb) =>
      eb.or([
        eb('cp.page_title', 'ilike', pattern),
        eb.exists(pageProducts(eb).innerJoin('products as p', 'p.id', 'cpp.product_id').where('p.name', 'ilike', pattern).select(sql.lit(1).as('one'))),
      ]),
    );
  }
  return query.orderBy('cp.created_at').orderBy('cp.id').limit(1000).execute();
}
