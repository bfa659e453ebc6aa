import type { Static } from 'typebox';
import { toMajor } from '../../lib/money.ts';
import type { OrderDetails, OrderRow } from './order-details.repo.ts';
import type { OrderDataSchema } from './order-data.schema.ts';
import { addressOf } from '../customers/index.ts';

export type OrderData = Static<typeof OrderDataSchema>;

/** `{ [key]: value }` when the value is set, `{}` otherwise: for the few fields the specification lets a response leave out. */
export function whenSet<K extends string, V>(key: K, value: V | null | undefined): { [P in K]?: V } {
  return (value === null || value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

export const chargeLink = (publicUrl: string, uid: string) => `${publicUrl}/pay/charges/${uid}`;

type LinkColumns = { uid: string; due_date: string | null; cart_id: string | null; checkout_page_id: string | null };

/** The hosted page that serves an order: a charge's own page, else its cart's, else its checkout page. */
function hostedPath(order: LinkColumns): string | undefined {
  if (order.due_date !== null) return `/pay/charges/${order.uid}`;
  if (order.cart_id !== null) return `/pay/carts/${order.cart_id}`;
  if (order.checkout_page_id !== null) return `/pay/${order.checkout_page_id}`;
  return undefined;
}

/**
 * OrderData.link (docs/orders.md). An upsell or renewal order has no page of its own, so it links to its
 * parent's. An order naming none (only written outside the API) keeps the charge form, which answers 404.
 */
export function orderLink(publicUrl: string, order: OrderRow): string {
  const parent =
    order.parent_uid === null
      ? undefined
      : hostedPath({
          uid: order.parent_uid,
          due_date: order.parent_due_date,
          cart_id: order.parent_cart_id,
          checkout_page_id: order.parent_checkout_page_id,
        });
  const path = hostedPath(order) ?? parent;
  return path === undefined ? chargeLink(publicUrl, order.uid) : `${publicUrl}${path}`;
}

/** `{id, name}` of a page: `id` is the page's stable integer (its `numeric_id`), since its real id is a UUID. */
function pageRef(name: string | null, numericId: number | null): { id: number; name: string } | null {
  return name === null || numericId === null ? null : { id: numericId, name };
}

const asObject = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
const asString = (value: unknown) => (typeof value === 'string' ? value : null);

/** Freight: the order's freight amount, plus brand, type, carrier and volumes from `freight_details`. */
function freightOf(order: OrderRow): OrderData['freight'] {
  if (order.freight_details === null && order.freight_cents === 0) return null;
  const details = asObject(order.freight_details);
  const quantity =
    Number.isInteger(details.quantity) && (details.quantity as number) > 0 ? (details.quantity as number) : 1;
  return {
    brand: asString(details.brand),
    charge: toMajor(order.freight_cents),
    type: asString(details.type),
    quantity,
    total: toMajor(order.freight_cents),
    carrier: asString(details.carrier),
  };
}

/** The OrderData body of an order: money in major units, dates as ISO strings, every field present (null when unset). */
export function toOrderData({ order, items, payments, invoices }: OrderDetails, publicUrl: string): OrderData {
  return {
    id: order.id,
    uid: order.uid,
    link: orderLink(publicUrl, order),
    due_date: order.due_date,
    coupon_code: order.coupon_code,
    deal_id: order.deal_id,
    observation: order.observation,
    seller_id: order.seller_id,
    status: order.status,
    meta: asObject(order.meta),
    utms: asObject(order.utms),
    discount: toMajor(order.discount_cents),
    total: toMajor(order.total_cents),
    created_at: order.created_at.toISOString(),
    date: order.date,
    scheduled_at: order.scheduled_at?.toISOString() ?? null,
    charge_page: pageRef(order.cart_page_name, order.cart_page_numeric_id),
    checkout_page: pageRef(order.checkout_page_name, order.checkout_page_numeric_id),
    customer:
      order.customer_id === null
        ? null
        : {
            email: order.customer_email!,
            name: order.customer_name!,
            identification: order.customer_identification,
            phone: order.customer_phone,
            utms: asObject(order.customer_utms),
            meta: asObject(order.customer_meta),
            address: addressOf(order),
          },
    seller: order.seller_name === null ? null : { name: order.seller_name },
    items: items.map((item) => ({
      product_id: item.product_id,
      product_name: item.product_name,
      unit_name: item.unit_name,
      interval: item.interval,
      cycle: item.cycle,
      quantity: item.quantity,
      subscription: item.subscription,
      total: toMajor(item.total_cents),
      value: toMajor(item.unit_value_cents),
    })),
    payments: payments.map((payment) => ({
      gateway_id: payment.gateway_id,
      installments: payment.installments,
      status: payment.status,
      type: payment.method,
      amount: toMajor(payment.amount_cents),
      company: payment.company_name,
      created_at: payment.created_at.toISOString(),
      installment_value: toMajor(payment.installment_value_cents),
      interest: toMajor(payment.interest_cents),
      paid_at: payment.paid_at?.toISOString() ?? null,
      cancelled_at: payment.cancelled_at?.toISOString() ?? null,
      ...whenSet('observation', payment.observation),
      ...whenSet('meta', payment.meta === null ? undefined : asObject(payment.meta)),
    })),
    invoices: invoices.map((invoice) => ({
      number: invoice.number,
      series: invoice.series,
      status: invoice.status,
      type: invoice.type,
      value: toMajor(invoice.value_cents),
    })),
    freight: freightOf(order),
  };
}
