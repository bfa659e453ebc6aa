import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

/**
 * The order rows with their customer, seller and pages, for the given ids of one account; with the parent
 * order's charge, cart and page for an upsell or renewal order (whose own link is its parent's).
 */
function orderRows(db: Kysely<DB>, accountId: string, ids: number[]) {
  return db
    .selectFrom('orders as o')
    .leftJoin('customers as c', (join) =>
      join.onRef('c.id', '=', 'o.customer_id').onRef('c.account_id', '=', 'o.account_id'),
    )
    .leftJoin('sellers as s', (join) =>
      join.onRef('s.id', '=', 'o.seller_id').onRef('s.account_id', '=', 'o.account_id'),
    )
    .leftJoin('checkout_pages as cp', (join) =>
      join.onRef('cp.id', '=', 'o.checkout_page_id').onRef('cp.account_id', '=', 'o.account_id'),
    )
    .leftJoin('cart_pages as crp', (join) =>
      join.onRef('crp.id', '=', 'o.cart_page_id').onRef('crp.account_id', '=', 'o.account_id'),
    )
    .leftJoin('orders as po', (join) =>
      join.onRef('po.id', '=', 'o.parent_order_id').onRef('po.account_id', '=', 'o.account_id'),
    )
    .select([
      'o.id',
      'o.uid',
      'o.status',
      'o.due_date',
      'o.coupon_code',
      'o.deal_id',
      'o.observation',
      'o.seller_id',
      'o.meta',
      'o.utms',
      'o.discount_cents',
      'o.total_cents',
      'o.freight_cents',
      'o.freight_details',
      'o.created_at',
      'o.date',
      'o.scheduled_at',
      'c.id as customer_id',
      'c.email as customer_email',
      'c.name as customer_name',
      'c.identification as customer_identification',
      'c.phone as customer_phone',
      'c.utms as customer_utms',
      'c.meta as customer_meta',
      'c.street',
      'c.neighborhood',
      'c.number',
      'c.complement',
      'c.zipcode',
      'c.city',
      'c.state',
      's.name as seller_name',
      'cp.page_title as checkout_page_name',
      'crp.name as cart_page_name',
      'cp.numeric_id as checkout_page_numeric_id',
      'crp.numeric_id as cart_page_numeric_id',
      'o.checkout_page_id',
      'o.cart_id',
      'po.uid as parent_uid',
      'po.due_date as parent_due_date',
      'po.cart_id as parent_cart_id',
      'po.checkout_page_id as parent_checkout_page_id',
    ])
    .where('o.account_id', '=', accountId)
    .where('o.id', 'in', ids)
    .execute();
}

function itemRows(db: Kysely<DB>, accountId: string, ids: number[]) {
  return db
    .selectFrom('order_items')
    .select([
      'order_id',
      'product_id',
      'product_name',
      'unit_name',
      'interval',
      'cycle',
      'quantity',
      'subscription',
      'total_cents',
      'unit_value_cents',
    ])
    .where('account_id', '=', accountId)
    .where('order_id', 'in', ids)
    .orderBy('id')
    .execute();
}

function paymentRows(db: Kysely<DB>, accountId: string, ids: number[]) {
  return db
    .selectFrom('payments as p')
    .innerJoin('companies as co', (join) =>
      join.onRef('co.id', '=', 'p.company_id').onRef('co.account_id', '=', 'p.account_id'),
    )
    .select([
      'p.order_id',
      'p.gateway_id',
      'p.installments',
      'p.status',
      'p.method',
      'p.amount_cents',
      'co.name as company_name',
      'p.created_at',
      'p.installment_value_cents',
      'p.interest_cents',
      'p.paid_at',
      'p.cancelled_at',
      'p.observation',
      'p.meta',
    ])
    .where('p.account_id', '=', accountId)
    .where('p.order_id', 'in', ids)
    .orderBy('p.created_at')
    .orderBy('p.id')
    .execute();
}

function invoiceRows(db: Kysely<DB>, accountId: string, ids: number[]) {
  return db
    .selectFrom('invoices')
    .select(['order_id', 'number', 'series', 'status', 'type', 'value_cents'])
    .where('account_id', '=', accountId)
    .where('order_id', 'in', ids)
    .orderBy('id')
    .execute();
}

export type OrderRow = Awaited<ReturnType<typeof orderRows>>[number];
export type OrderItemRow = Awaited<ReturnType<typeof itemRows>>[number];
export type OrderPaymentRow = Awaited<ReturnType<typeof paymentRows>>[number];
export type OrderInvoiceRow = Awaited<ReturnType<typeof invoiceRows>>[number];
export type OrderDetails = {
  order: OrderRow;
  items: OrderItemRow[];
  payments: OrderPaymentRow[];
  invoices: OrderInvoiceRow[];
};

/** Full orders of one account, in the order of `ids` (four queries, whatever the number of orders). */
export async function loadOrderDetails(db: Kysely<DB>, accountId: string, ids: number[]): Promise<OrderDetails[]> {
  if (ids.length === 0) return [];
  const [orders, items, payments, invoices] = await Promise.all([
    orderRows(db, accountId, ids),
    itemRows(db, accountId, ids),
    paymentRows(db, accountId, ids),
    invoiceRows(db, accountId, ids),
  ]);
  const found = new Map(orders.map((order) => [order.id, order]));
  const [itemsOf, paymentsOf, invoicesOf] = [groupByOrder(items), groupByOrder(payments), groupByOrder(invoices)];
  return ids.flatMap((id) => {
    const order = found.get(id);
    return order
      ? [
          {
            order,
            items: itemsOf.get(id) ?? [],
            payments: paymentsOf.get(id) ?? [],
            invoices: invoicesOf.get(id) ?? [],
          },
        ]
      : [];
  });
}

function groupByOrder<T extends { order_id: number }>(rows: T[]): Map<number, T[]> {
  const groups = new Map<number, T[]>();
  for (const row of rows) groups.set(row.order_id, [...(groups.get(row.order_id) ?? []), row]);
  return groups;
}
