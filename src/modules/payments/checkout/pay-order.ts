import { randomUUID } from 'node:crypto';
import type { Insertable, Kysely } from 'kysely';
import type { DB, Orders } from '../../../db/schema.ts';
import { dateIn, insertOrderItems, insertOrderWithEvent } from '../../orders/index.ts';

export type OrderLine = {
  productId: number | null;
  name: string;
  unitName: string;
  quantity: number;
  unitCents: number;
  totalCents: number;
  subscription: boolean;
  interval: string | null;
  intervalCount: number | null;
};

/** An order a pay flow creates: lines and amounts come from the database and the pricing module, never the client. */
export type PayOrderDraft = {
  accountId: string;
  companyId: number;
  customerId: number;
  source: 'checkout_page' | 'cart' | 'subscription' | 'upsell';
  checkoutPageId?: string;
  cartPageId?: string;
  cartId?: string;
  parentOrderId?: number;
  paymentPlanId: number | null;
  lines: OrderLine[];
  freightCents: number;
  /** The priced total: lines (or the cart's override) less the coupon, plus freight. */
  totalCents: number;
  discountCents: number;
  coupon?: { id: number; code: string };
  scheduledAt?: Date;
  observation?: string;
  tags?: string;
  meta?: Record<string, unknown>;
  cause: string;
};

/** Inserts the order, its items and its `order.created` event on `trx`; returns the order's id and uid. */
export async function createPayOrder(
  trx: Kysely<DB>,
  draft: PayOrderDraft,
  timeZone: string,
  now: Date,
): Promise<{ id: number; uid: string }> {
  const uid = randomUUID();
  const id = await insertOrderWithEvent(
    trx,
    { ...payOrderRow(draft, uid, timeZone, now), customer_id: draft.customerId },
    orderCreatedEvent(draft, now),
  );
  await insertOrderItems(trx, payOrderItems(draft, id));
  return { id, uid };
}

/** The order's row but its customer (which a pay intent's statement takes from its own customer upsert). */
export function payOrderRow(
  draft: Omit<PayOrderDraft, 'customerId'>,
  uid: string,
  timeZone: string,
  now: Date,
): Omit<Insertable<Orders>, 'customer_id'> {
  const subtotalCents = draft.totalCents - draft.freightCents + draft.discountCents;
  return {
    uid,
    account_id: draft.accountId,
    company_id: draft.companyId,
    source: draft.source,
    status: 'pending',
    checkout_page_id: draft.checkoutPageId ?? null,
    cart_page_id: draft.cartPageId ?? null,
    cart_id: draft.cartId ?? null,
    parent_order_id: draft.parentOrderId ?? null,
    payment_plan_id: draft.paymentPlanId,
    subtotal_cents: Math.max(subtotalCents, 0),
    discount_cents: draft.discountCents,
    freight_cents: draft.freightCents,
    total_cents: draft.totalCents,
    coupon_id: draft.coupon?.id ?? null,
    coupon_code: draft.coupon?.code ?? null,
    date: dateIn(timeZone, now),
    scheduled_at: draft.scheduledAt ?? null,
    observation: draft.observation ?? null,
    tags: draft.tags ?? null,
    meta: JSON.stringify(draft.meta ?? {}),
    created_at: now,
    updated_at: now,
  };
}

export function orderCreatedEvent(
  draft: Omit<PayOrderDraft, 'customerId'>,
  at: Date,
): { cause: string; data: Record<string, unknown>; at: Date } {
  return {
    cause: draft.cause,
    data: {
      total_cents: draft.totalCents,
      items: draft.lines.length,
      ...(draft.coupon ? { coupon_id: draft.coupon.id } : {}),
    },
    at,
  };
}

/** The order's item rows; `orderId` may be an expression of the statement that inserts the order. */
export function payOrderItems<Id>(draft: Pick<PayOrderDraft, 'accountId' | 'lines'>, orderId: Id) {
  return draft.lines.map((line) => ({
    account_id: draft.accountId,
    order_id: orderId,
    product_id: line.productId,
    product_name: line.name,
    unit_name: line.unitName,
    quantity: line.quantity,
    unit_value_cents: line.unitCents,
    total_cents: line.totalCents,
    subscription: line.subscription,
    interval: line.interval,
    cycle: line.subscription ? line.intervalCount : null,
  }));
}
