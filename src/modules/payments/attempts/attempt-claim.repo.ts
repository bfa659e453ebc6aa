import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';

/**
 * Locks a charge's order row until the caller's transaction ends and returns its status as of the lock (the
 * latest committed one: a locking read waits for a transaction that holds the row and then reads its result).
 */
export async function lockChargeOrder(trx: Kysely<DB>, accountId: string, orderId: number): Promise<string> {
  const row = await trx
    .selectFrom('orders')
    .select('status')
    .where('account_id', '=', accountId)
    .where('id', '=', orderId)
    .forUpdate()
    .executeTakeFirstOrThrow();
  return row.status;
}

export type PendingPayment = { id: number; orderId: number; createdAt: Date };

/**
 * The newest payment still `pending` (recorded before its gateway call, not answered or not yet reconciled) of the
 * charge's order, or of any order of the cart; only payments created after `since` count. Run after the subject's
 * lock, as its own statement, so it sees every attempt committed before the lock was granted.
 */
export async function newestPendingPayment(
  trx: Kysely<DB>,
  accountId: string,
  subject: { orderId: number } | { cartId: string },
  since: Date,
): Promise<PendingPayment | undefined> {
  let query = trx
    .selectFrom('payments as p')
    .select(['p.id', 'p.order_id', 'p.created_at'])
    .where('p.account_id', '=', accountId)
    .where('p.status', '=', 'pending')
    .where('p.created_at', '>', since);
  query =
    'orderId' in subject
      ? query.where('p.order_id', '=', subject.orderId)
      : query.where('p.order_id', 'in', (eb) =>
          eb
            .selectFrom('orders')
            .select('id')
            .where('account_id', '=', accountId)
            .where('cart_id', '=', subject.cartId),
        );
  const row = await query.orderBy('p.created_at', 'desc').limit(1).executeTakeFirst();
  return row && { id: row.id, orderId: row.order_id, createdAt: row.created_at };
}

/** When the payment's gateway call was recorded as unanswered (timeout or 5xx: reconciliation takes it from there). */
export async function gatewayUnavailableAt(trx: Kysely<DB>, accountId: string, payment: PendingPayment) {
  const row = await trx
    .selectFrom('order_events')
    .select('created_at')
    .where('account_id', '=', accountId)
    .where('order_id', '=', payment.orderId)
    .where('payment_id', '=', payment.id)
    .where('type', '=', 'payment.gateway_unavailable')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.created_at;
}
