import type { Insertable, Kysely } from 'kysely';
import type { CartItems, Carts, DB } from '../../db/schema.ts';

export function findCartPage(db: Kysely<DB>, accountId: string, id: string) {
  return db
    .selectFrom('cart_pages')
    .select(['id', 'company_id'])
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export function findCartProducts(db: Kysely<DB>, accountId: string, ids: number[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('products')
    .select(['id', 'name', 'value_cents', 'external_id', 'image_url'])
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .where('deleted_at', 'is', null)
    .execute();
}

export async function insertCart(
  db: Kysely<DB>,
  cart: Insertable<Carts>,
  items: Insertable<CartItems>[],
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('carts').values(cart).execute();
    if (items.length) await trx.insertInto('cart_items').values(items).execute();
  });
}

/** A cart by its UID, whatever its account (the caller checks access against `account_id`). */
export function findCart(db: Kysely<DB>, id: string) {
  return db.selectFrom('carts').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findCartItems(db: Kysely<DB>, accountId: string, cartId: string) {
  return db
    .selectFrom('cart_items')
    .select(['product_id', 'name', 'external_id', 'quantity', 'unit_value_cents', 'total_cents', 'image_url'])
    .where('account_id', '=', accountId)
    .where('cart_id', '=', cartId)
    .orderBy('position')
    .execute();
}
