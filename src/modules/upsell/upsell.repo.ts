import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { SETTLED_PAYMENT_STATUSES } from '../orders/index.ts';

/**
 * Spends the offer: only one caller gets the row back, whatever happens next, so a token is single-use
 * even when concurrent redemptions race or the charge then fails.
 */
export function consumeOffer(db: Kysely<DB>, offerId: string, now: Date) {
  return db
    .updateTable('upsell_offers')
    .set({ consumed_at: now })
    .where('id', '=', offerId)
    .where('consumed_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['id', 'account_id', 'order_id', 'product_id'])
    .executeTakeFirst();
}

export async function linkUpsellOrder(trx: Kysely<DB>, offerId: string, upsellOrderId: number): Promise<void> {
  await trx
    .updateTable('upsell_offers')
    .set({ upsell_order_id: upsellOrderId })
    .where('id', '=', offerId)
    .returning('id')
    .execute();
}

export function findOriginalOrder(db: Kysely<DB>, accountId: string, orderId: number) {
  return db
    .selectFrom('orders')
    .select(['id', 'uid', 'status', 'company_id', 'customer_id', 'payment_plan_id', 'paid_cents'])
    .where('account_id', '=', accountId)
    .where('id', '=', orderId)
    .executeTakeFirstOrThrow();
}

/**
 * What the original order's standing payments still keep (amount less refunds, reserved ones included), their rows
 * share-locked: a refund reserved before this read is seen, one reserved after waits for the offer's transaction.
 */
export async function keptCentsOfOrder(db: Kysely<DB>, accountId: string, orderId: number): Promise<number> {
  const rows = await db
    .selectFrom('payments')
    .select(['amount_cents', 'refunded_cents'])
    .where('account_id', '=', accountId)
    .where('order_id', '=', orderId)
    .where('status', 'in', SETTLED_PAYMENT_STATUSES)
    .forShare()
    .execute();
  return rows.reduce((sum, row) => sum + row.amount_cents - row.refunded_cents, 0);
}

/** The payment the original order was paid with: a settled one first, card 0 of a split. */
export function findOriginalPayment(db: Kysely<DB>, accountId: string, orderId: number) {
  return db
    .selectFrom('payments')
    .select(['gateway', 'method', 'payment_plan_id', 'saved_payment_method_id', 'status'])
    .where('account_id', '=', accountId)
    .where('order_id', '=', orderId)
    .orderBy((eb) =>
      eb
        .case()
        .when('status', 'in', ['paid', 'partially_refunded', 'refunded', 'waiting_payment'])
        .then(0)
        .else(1)
        .end(),
    )
    .orderBy('card_index')
    .orderBy('id')
    .executeTakeFirst();
}

export function findCustomer(db: Kysely<DB>, accountId: string, customerId: number) {
  return db
    .selectFrom('customers')
    .select(['id', 'name', 'email', 'identification', 'phone'])
    .where('account_id', '=', accountId)
    .where('id', '=', customerId)
    .executeTakeFirstOrThrow();
}
