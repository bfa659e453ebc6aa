import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

/** A live checkout page's owner, company and the settings CheckoutPageShow leaves out (redirect, payer identity, time zone). */
export function findHostedCheckoutPage(db: Kysely<DB>, id: string) {
  return db
    .selectFrom('checkout_pages as cp')
    .innerJoin('companies as co', (join) =>
      join.onRef('co.id', '=', 'cp.company_id').onRef('co.account_id', '=', 'cp.account_id'),
    )
    .select([
      'cp.id',
      'cp.account_id',
      'cp.company_id',
      'cp.redirect_url',
      'cp.asks_payer_identity',
      'co.slug as company_slug',
      'co.time_zone',
    ])
    .where('cp.id', '=', id)
    .where('cp.deleted_at', 'is', null)
    .executeTakeFirst();
}

/** The cart page settings a cart's hosted page needs beyond CartShow. */
export function findCartPageSettings(db: Kysely<DB>, accountId: string, cartPageId: string) {
  return db
    .selectFrom('cart_pages as pg')
    .innerJoin('companies as co', (join) =>
      join.onRef('co.id', '=', 'pg.company_id').onRef('co.account_id', '=', 'pg.account_id'),
    )
    .select(['pg.require_scheduling', 'pg.redirect_url', 'co.time_zone'])
    .where('pg.account_id', '=', accountId)
    .where('pg.id', '=', cartPageId)
    .executeTakeFirst();
}

export function findCompanyTimeZone(db: Kysely<DB>, accountId: string, companyId: number) {
  return db
    .selectFrom('companies')
    .select(['time_zone', 'name'])
    .where('account_id', '=', accountId)
    .where('id', '=', companyId)
    .executeTakeFirst();
}

/** A payment by its UID (an unguessable capability) with its order's status, for the status poll. */
export function findPaymentStatus(db: Kysely<DB>, uid: string) {
  return db
    .selectFrom('payments as p')
    .innerJoin('orders as o', (join) =>
      join.onRef('o.id', '=', 'p.order_id').onRef('o.account_id', '=', 'p.account_id'),
    )
    .select([
      'p.status',
      'p.method',
      'p.account_id',
      'p.order_id',
      'p.amount_cents',
      'p.installments',
      'p.pix_code',
      'o.status as order_status',
      'o.uid as order_uid',
    ])
    .where('p.uid', '=', uid)
    .executeTakeFirst();
}

/** A charge's order: its status and the amounts its page explains, with its company, for its pages. */
export function findChargeOutcome(db: Kysely<DB>, uid: string) {
  return db
    .selectFrom('orders as o')
    .innerJoin('companies as co', (join) =>
      join.onRef('co.id', '=', 'o.company_id').onRef('co.account_id', '=', 'o.account_id'),
    )
    .select([
      'o.id',
      'o.account_id',
      'o.uid',
      'o.status',
      'o.total_cents',
      'o.freight_cents',
      'o.discount_cents',
      'o.coupon_code',
      'co.name as company_name',
    ])
    .where('o.uid', '=', uid)
    .where('o.due_date', 'is not', null)
    .executeTakeFirst();
}

/** An order's payments, newest attempt first (the payments of one pay request share its `created_at`). */
export function findOrderPayments(db: Kysely<DB>, accountId: string, orderId: number) {
  return db
    .selectFrom('payments')
    .select(['status', 'amount_cents', 'created_at'])
    .where('account_id', '=', accountId)
    .where('order_id', '=', orderId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}
