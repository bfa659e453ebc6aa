import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

/**
 * Claims one use of the coupon for an order, once per order: the redemption row is the "once", the
 * conditional increment (`used_count < usage_limit`) holds the limit under concurrency. Returns false
 * when the coupon is exhausted. Pay flows claim before charging, so an exhausted coupon is refused
 * before any money moves; an order that already holds its redemption is not counted twice.
 */
export async function claimCouponForOrder(
  trx: Kysely<DB>,
  accountId: string,
  couponId: number,
  orderId: number,
  now: Date,
): Promise<boolean> {
  const held = await trx
    .selectFrom('coupon_redemptions')
    .select('order_id')
    .where('account_id', '=', accountId)
    .where('order_id', '=', orderId)
    .where('coupon_id', '=', couponId)
    .executeTakeFirst();
  if (held) return true;
  const claimed = await trx
    .updateTable('coupons')
    .set({ used_count: sql`used_count + 1`, updated_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', couponId)
    .where((eb) => eb.or([eb('usage_limit', 'is', null), eb('used_count', '<', eb.ref('usage_limit'))]))
    .returning('id')
    .executeTakeFirst();
  if (!claimed) return false;
  await trx
    .insertInto('coupon_redemptions')
    .values({ account_id: accountId, coupon_id: couponId, order_id: orderId })
    .execute();
  return true;
}

/** Orders whose coupon use a pay attempt claims (and gives back when it fails); other orders got theirs at creation. */
const CLAIMED_BY_PAY_ATTEMPT = ['checkout_page', 'cart'] as const;

/**
 * Gives a claimed use back when the attempt that claimed it failed, lapsed or was cancelled unpaid. An order
 * created with its coupon (`POST /orders`, a charge) keeps its use: its discount was granted when it was created.
 */
export async function releaseCouponOfOrder(trx: Kysely<DB>, accountId: string, orderId: number): Promise<void> {
  const released = await trx
    .deleteFrom('coupon_redemptions')
    .where('account_id', '=', accountId)
    .where('order_id', '=', orderId)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('orders')
          .select('orders.id')
          .whereRef('orders.id', '=', 'coupon_redemptions.order_id')
          .whereRef('orders.account_id', '=', 'coupon_redemptions.account_id')
          .where('orders.source', 'in', CLAIMED_BY_PAY_ATTEMPT),
      ),
    )
    .returning('coupon_id')
    .execute();
  for (const { coupon_id } of released) {
    await trx
      .updateTable('coupons')
      .set({ used_count: sql`greatest(used_count - 1, 0)` })
      .where('account_id', '=', accountId)
      .where('id', '=', coupon_id)
      .returning('id')
      .execute();
  }
}
