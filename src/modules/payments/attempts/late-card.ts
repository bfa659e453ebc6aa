import type { Kysely, Selectable } from 'kysely';
import type { DB, Payments } from '../../../db/schema.ts';
import type { GatewayName, SavedMethod } from '../../../gateways/port.ts';
import { saveMethod } from './payment-record.ts';

/** The payment row fields that decide whether a card learnt after the pay request is kept. */
export type LatePaidPayment = Pick<
  Selectable<Payments>,
  'id' | 'uid' | 'account_id' | 'company_id' | 'order_id' | 'gateway' | 'method' | 'saved_payment_method_id'
>;

/**
 * Whether a pay request asks the gateway to keep the card: its order has a subscription product (renewals
 * charge it), or its checkout page has an upsell product (the one-click offer charges it).
 */
export function asksToKeepCard(order: { hasSubscription: boolean; upsellProductId: number | null }): boolean {
  return order.hasSubscription || order.upsellProductId !== null;
}

/**
 * The customer of an order whose pay request asked the gateway to keep the card (`asksToKeepCard`).
 * Undefined for any other order, or one without a customer.
 */
export async function customerKeepingCard(
  trx: Kysely<DB>,
  accountId: string,
  orderId: number,
): Promise<number | undefined> {
  const row = await trx
    .selectFrom('orders as o')
    .leftJoin('checkout_pages as cp', (join) =>
      join.onRef('cp.id', '=', 'o.checkout_page_id').onRef('cp.account_id', '=', 'o.account_id'),
    )
    .select(['o.source', 'o.customer_id', 'cp.upsell_product_id'])
    .select((eb) =>
      eb
        .exists(
          eb
            .selectFrom('order_items as i')
            .select('i.id')
            .whereRef('i.account_id', '=', 'o.account_id')
            .whereRef('i.order_id', '=', 'o.id')
            .where('i.subscription', '=', true),
        )
        .as('has_subscription'),
    )
    .where('o.account_id', '=', accountId)
    .where('o.id', '=', orderId)
    .executeTakeFirst();
  if (!row || row.customer_id === null) return undefined;
  const upsellProductId = row.source === 'checkout_page' ? row.upsell_product_id : null;
  return asksToKeepCard({ hasSubscription: Boolean(row.has_subscription), upsellProductId })
    ? row.customer_id
    : undefined;
}

/**
 * A card captured after its pay request stopped waiting (the charge call timed out, and reconciliation or the
 * paid event learnt the capture) keeps the card for later charges as an answered request would have: in the
 * transaction that moved the payment to paid, the gateway's card reference is sealed into a
 * `saved_payment_methods` row (`saveMethod`) and linked on the payment, so the subscription started and the
 * upsell offer made when the order is released charge it.
 *
 * Nothing is kept when the gateway names no card, when the payment already charged a saved card (an upsell or
 * a renewal: it keeps its link), or when its order has no customer or its pay request did not ask for the
 * card to be kept (gateway_c keeps every card it charges, so its lookups name one either way).
 * Runs after the caller's transition to paid, in its transaction. Returns the saved method's id, or undefined
 * when nothing was kept.
 */
export async function keepLateCard(
  trx: Kysely<DB>,
  masterKey: Buffer | undefined,
  payment: LatePaidPayment,
  method: SavedMethod | undefined,
  at: Date,
): Promise<string | undefined> {
  if (!method || payment.method !== 'credit_card' || payment.saved_payment_method_id !== null) return undefined;
  const customerId = await customerKeepingCard(trx, payment.account_id, payment.order_id);
  if (customerId === undefined) return undefined;
  // Every caller that can learn a card passes the key; without it the card could not be sealed, and losing it silently would leave the subscription without a card.
  if (!masterKey) throw new Error('a card kept for later charges needs the master key to be sealed');
  const recorded = {
    id: payment.id,
    uid: payment.uid,
    accountId: payment.account_id,
    companyId: payment.company_id,
    orderId: payment.order_id,
    customerId,
    gateway: payment.gateway as GatewayName,
  };
  // Read from a webhook body or a lookup: an expiry the table would refuse is left out rather than failing the payment's transaction.
  const expMonth =
    method.expMonth !== null && Number.isInteger(method.expMonth) && method.expMonth >= 1 && method.expMonth <= 12
      ? method.expMonth
      : null;
  const expYear =
    method.expYear !== null && Number.isInteger(method.expYear) && method.expYear >= 2000 && method.expYear <= 2200
      ? method.expYear
      : null;
  const savedId = await saveMethod(trx, masterKey, recorded, { ...method, expMonth, expYear }, at);
  // The caller's transition to paid holds the payment's row lock, and only a payment with no saved method gets here.
  await trx
    .updateTable('payments')
    .set({ saved_payment_method_id: savedId })
    .where('account_id', '=', payment.account_id)
    .where('id', '=', payment.id)
    .execute();
  return savedId;
}
