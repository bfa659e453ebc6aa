import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import { sameAttempt } from '../attempts/payment-attempt.ts';

/** Where the listed payments come from: the orders of a checkout page, or the orders made from a cart. */
export type PaymentOrigin = { checkoutPageId: string } | { cartId: string };

/** The identifiers a client may ask for: gateway ids, internal integer ids, internal uids. */
export type PaymentRefs = { gatewayIds: string[]; ids: number[]; uids: string[] };

/** The payments of `origin`'s orders, of one account. */
function originPayments(db: Kysely<DB>, accountId: string, origin: PaymentOrigin) {
  return db
    .selectFrom('payments as p')
    .innerJoin('orders as o', (join) =>
      join.onRef('o.id', '=', 'p.order_id').onRef('o.account_id', '=', 'p.account_id'),
    )
    .select(['p.uid', 'p.gateway_id', 'p.status'])
    .where('p.account_id', '=', accountId)
    .where((eb) =>
      'checkoutPageId' in origin
        ? eb('o.checkout_page_id', '=', origin.checkoutPageId)
        : eb('o.cart_id', '=', origin.cartId),
    );
}

/** The status-list query with ids: the payments of `origin`'s orders that match any of `refs`, oldest first. */
export function listPaymentStatuses(db: Kysely<DB>, accountId: string, origin: PaymentOrigin, refs: PaymentRefs) {
  return originPayments(db, accountId, origin)
    .where((eb) =>
      eb.or([
        ...(refs.gatewayIds.length ? [eb('p.gateway_id', 'in', refs.gatewayIds)] : []),
        ...(refs.ids.length ? [eb('p.id', 'in', refs.ids)] : []),
        ...(refs.uids.length ? [eb('p.uid', 'in', refs.uids)] : []),
      ]),
    )
    .orderBy('p.created_at')
    .orderBy('p.id')
    .limit(1000)
    .execute();
}

/** The status-list query without ids: the `limit` most recent payments of `origin`'s orders, newest first. */
export function listRecentPaymentStatuses(db: Kysely<DB>, accountId: string, origin: PaymentOrigin, limit: number) {
  return originPayments(db, accountId, origin)
    .orderBy('p.created_at', 'desc')
    .orderBy('p.id', 'desc')
    .limit(limit)
    .execute();
}

/** A cart by its UID, with its owner (public endpoints check access afterwards). */
export function findCartOwner(db: Kysely<DB>, cartId: string) {
  return db.selectFrom('carts').select(['id', 'account_id']).where('id', '=', cartId).executeTakeFirst();
}

/** A charge (an order with a due date) by its UID, with its owner. */
export function findChargeOwner(db: Kysely<DB>, orderUid: string) {
  return db
    .selectFrom('orders')
    .select(['id', 'account_id'])
    .where('uid', '=', orderUid)
    .where('due_date', 'is not', null)
    .executeTakeFirst();
}

/**
 * The payments of an order's most recent attempt that is still active or failed (a cancelled one, voided or
 * expired, is skipped): one row, or one per card of a two-card split (the two cards of an attempt share its
 * creation time), card 0 first.
 */
export async function findLastActiveAttempt(db: Kysely<DB>, accountId: string, orderId: number) {
  const rows = await db
    .selectFrom('payments')
    .select([
      'uid',
      'gateway_id',
      'amount_cents',
      'late_interest_cents',
      'paid_at',
      'status',
      'created_at',
      'card_index',
    ])
    .where('account_id', '=', accountId)
    .where('order_id', '=', orderId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  const newest = rows.find((row) => row.status !== 'cancelled');
  if (!newest) return [];
  const otherCard = rows.find((row) => sameAttempt(row, newest) && row.card_index !== newest.card_index);
  return (otherCard ? [newest, otherCard] : [newest]).sort((a, b) => a.card_index - b.card_index);
}
