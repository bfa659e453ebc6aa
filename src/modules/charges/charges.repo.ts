import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

/** The order with this UID when it is a charge (it has a due date), whatever its account. */
export function findCharge(db: Kysely<DB>, uid: string) {
  return db
    .selectFrom('orders as o')
    .leftJoin('customers as c', (join) =>
      join.onRef('c.id', '=', 'o.customer_id').onRef('c.account_id', '=', 'o.account_id'),
    )
    .select([
      'o.id',
      'o.uid',
      'o.account_id',
      'o.company_id',
      'o.status',
      'o.total_cents',
      'o.checkout_page_id',
      'o.cart_page_id',
      'o.payment_plan_id',
      'o.currency',
      'o.date',
      'o.due_date',
      'o.retention_cents',
      'o.freight_cents',
      'o.observation',
      'o.coupon_code',
      'o.discount_cents',
      'c.id as customer_id',
      'c.email',
      'c.name',
      'c.foreign',
      'c.identification',
      'c.social_reason',
      'c.street',
      'c.neighborhood',
      'c.number',
      'c.complement',
      'c.zipcode',
      'c.city',
      'c.state',
    ])
    .where('o.uid', '=', uid)
    .where('o.due_date', 'is not', null)
    .executeTakeFirst();
}

export type ChargeRow = NonNullable<Awaited<ReturnType<typeof findCharge>>>;

export function findChargeProducts(db: Kysely<DB>, accountId: string, orderId: number) {
  return db
    .selectFrom('order_items as i')
    .leftJoin('products as p', (join) =>
      join.onRef('p.id', '=', 'i.product_id').onRef('p.account_id', '=', 'i.account_id'),
    )
    .select([
      'i.product_id',
      'i.product_name',
      'i.subscription',
      'i.quantity',
      'i.unit_value_cents',
      'p.description',
      'p.short_description',
      'p.product_type',
      'p.image_url',
    ])
    .where('i.account_id', '=', accountId)
    .where('i.order_id', '=', orderId)
    .orderBy('i.id')
    .execute();
}

export function findChargeInvoices(db: Kysely<DB>, accountId: string, orderId: number) {
  return db
    .selectFrom('invoices')
    .select(['type', 'url'])
    .where('account_id', '=', accountId)
    .where('order_id', '=', orderId)
    .where('status', '=', 'authorized')
    .orderBy('id')
    .execute();
}

export function findChargeFiles(db: Kysely<DB>, accountId: string, orderId: number) {
  return db
    .selectFrom('order_files')
    .select(['url', 'name'])
    .where('account_id', '=', accountId)
    .where('order_id', '=', orderId)
    .orderBy('id')
    .execute();
}

export function findPlan(db: Kysely<DB>, accountId: string, planId: number) {
  return db
    .selectFrom('payment_plans')
    .select(['id', 'name', 'payment_method'])
    .where('account_id', '=', accountId)
    .where('id', '=', planId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}
