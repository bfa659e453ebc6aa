import type { Static } from 'typebox';
import { toMajor } from '../../lib/money.ts';
import type { OrderDetails, OrderRow } from './order-details.repo.ts';
import type { OrderDataSchema } from './order-data.schema.ts';

export type OrderData = Static<typeof OrderDataSchema>;

/** `{ [key]: value }` when the value is set, `{}` otherwise: optional fields are absent, never null. */
export function whenSet<K extends string, V>(key: K, value: V | null | undefined): { [P in K]?: V } {
  return (value === null || value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

export type AddressColumns = Pick<OrderRow, 'street' | 'neighborhood' | 'number' | 'complement' | 'zipcode' | 'city' | 'state'>;

export function addressOf(row: AddressColumns) {
  return {
    ...whenSet('street', row.street),
    ...whenSet('neighborhood', row.neighborhood),
    ...whenSet('number', row.number),
    ...whenSet('complement', row.complement),
    ...whenSet('zipcode', row.zipcode),
    ...whenSet('city', row.city),
    ...whenSet('state', row.state),
  };
}

export const chargeLink = (publicUrl: string, uid: string) => `${publicUrl}/pay/charges/${uid}`;

const asObject = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
const asString = (value: unknown) => (typeof value === 'string' ? value : undefined);

/** Freight: the order's freight amount, plus brand, type, carrier and volumes from `freight_details`. */
function freightOf(order: OrderRow): OrderData['freight'] {
  if (order.freight_details === null && order.freight_cents === 0) return undefined;
  const details = asObject(order.freight_details);
  const quantity = Number.isInteger(details.quantity) && (details.quantity as number) > 0 ? (details.quantity as number) : 1;
  return {
    ...whenSet('brand', asString(details.brand)),
    charge: toMajor(order.freight_cents),
    ...whenSet('type', asString(details.type)),
    quantity,
    total: toMajor(order.freight_cents),
    ...whenSet('carrier', asString(details.carrier)),
  };
}

/** The OrderData body of an order: money in major units, dates as ISO strings, unset fields absent. */
export function toOrderData({ order, items, payments, invoices }: OrderDetails, publicUrl: string): OrderData {
  return {
    id: order.id,
    uid: order.uid,
    link: chargeLink(publicUrl, order.uid),
    ...whenSet('due_date', order.due_date),
    ...whenSet('coupon_code', order.coupon_code),
    ...whenSet('deal_id', order.deal_id),
    ...whenSet('observation', order.observation),
    ...whenSet('seller_id', order.seller_id),
    status: order.status,
    meta: asObject(order.meta),
    utms: asObject(order.utms),
    discount: toMajor(order.discount_cents),
    total: toMajor(order.total_cents),
    created_at: order.created_at.toISOString(),
    date: order.date,
    ...whenSet('scheduled_at', order.scheduled_at?.toISOString()),
    ...whenSet('charge_page', order.cart_page_name === null ? undefined : { name: order.cart_page_name }),
    ...whenSet('checkout_page', order.checkout_page_name === null ? undefined : { name: order.checkout_page_name }),
    ...whenSet(
      'customer',
      order.customer_id === null
        ? undefined
        : {
            email: order.customer_email!,
            name: order.customer_name!,
            ...whenSet('identification', order.customer_identification),
            ...whenSet('phone', order.customer_phone),
            utms: asObject(order.customer_utms),
            meta: asObject(order.customer_meta),
            address: addressOf(order),
          },
    ),
    ...whenSet('seller', order.seller_name === null ? undefined : { name: order.seller_name }),
    items: items.map((item) => ({
      ...whenSet('product_id', item.product_id),
      product_name: item.product_name,
      unit_name: item.unit_name,
      ...whenSet('interval', item.interval),
      ...whenSet('cycle', item.cycle),
      quantity: item.quantity,
      subscription: item.subscription,
      total: toMajor(item.total_cents),
      value: toMajor(item.unit_value_cents),
    })),
    payments: payments.map((payment) => ({
      ...whenSet('gateway_id', payment.gateway_id),
      installments: payment.installments,
      status: payment.status,
      type: payment.method,
      amount: toMajor(payment.amount_cents),
      company: payment.company_name,
      created_at: payment.created_at.toISOString(),
      installment_value: toMajor(payment.installment_value_cents),
      interest: toMajor(payment.interest_cents),
      ...whenSet('paid_at', payment.paid_at?.toISOString()),
      ...whenSet('cancelled_at', payment.cancelled_at?.toISOString()),
    })),
    invoices: invoices.map((invoice) => ({
      ...whenSet('number', invoice.number),
      ...whenSet('series', invoice.series),
      status: invoice.status,
      type: invoice.type,
      value: toMajor(invoice.value_cents),
    })),
    ...whenSet('freight', freightOf(order)),
  };
}
