import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

/**
 * A payment by its UID (an unguessable capability, so the lookup is global) with what its hosted page
 * shows: the company that receives it and the buyer of its order. Only payments of `method`.
 */
export function findHostedPayment(db: Kysely<DB>, uid: string, method: 'pix' | 'bank_slip') {
  return db
    .selectFrom('payments as p')
    .innerJoin('companies as co', (join) =>
      join.onRef('co.id', '=', 'p.company_id').onRef('co.account_id', '=', 'p.account_id'),
    )
    .innerJoin('orders as o', (join) =>
      join.onRef('o.id', '=', 'p.order_id').onRef('o.account_id', '=', 'p.account_id'),
    )
    .leftJoin('payment_plans as pp', (join) =>
      join.onRef('pp.id', '=', 'p.payment_plan_id').onRef('pp.account_id', '=', 'p.account_id'),
    )
    .leftJoin('customers as cu', (join) =>
      join.onRef('cu.id', '=', 'o.customer_id').onRef('cu.account_id', '=', 'o.account_id'),
    )
    .select([
      'p.uid',
      'p.account_id',
      'p.status',
      'p.amount_cents',
      'p.pix_code',
      'p.pix_expires_at',
      'p.boleto_barcode',
      'p.boleto_digitable_line',
      'p.boleto_due_date',
      'p.boleto_beneficiary_code',
      'p.created_at',
      'p.installments',
      'p.interest_cents',
      'pp.fine_type',
      'pp.fine_cents',
      'pp.fine_tax',
      'pp.late_interest_cents as plan_late_interest_cents',
      'pp.late_interest_tax',
      'o.id as order_id',
      'o.uid as order_uid',
      'co.name as company_name',
      'co.legal_name as company_legal_name',
      'co.document as company_document',
      'co.time_zone',
      'cu.name as payer_name',
      'cu.identification as payer_document',
      'cu.street as payer_street',
      'cu.number as payer_number',
      'cu.city as payer_city',
      'cu.state as payer_state',
      'cu.zipcode as payer_zipcode',
    ])
    .where('p.uid', '=', uid)
    .where('p.method', '=', method)
    .executeTakeFirst();
}

export type HostedPayment = NonNullable<Awaited<ReturnType<typeof findHostedPayment>>>;

/** The items of a payment's order, for the order summary of its page. */
export function findOrderLines(db: Kysely<DB>, accountId: string, orderId: number) {
  return db
    .selectFrom('order_items')
    .select(['product_name', 'quantity', 'total_cents'])
    .where('account_id', '=', accountId)
    .where('order_id', '=', orderId)
    .orderBy('id')
    .execute();
}

export type OrderLine = Awaited<ReturnType<typeof findOrderLines>>[number];
