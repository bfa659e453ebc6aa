import { sql, type Insertable, type InsertObject, type Kysely, type QueryCreator } from 'kysely';
import type { DB, Orders, Payments } from '../../../db/schema.ts';
import { insertJobsFrom } from '../../../queue/jobs.repo.ts';
import { type CustomerColumns, type CustomerRow, upsertCustomerQuery } from '../../customers/index.ts';
import { insertRowEvents, type OrderCreatedEvent, withCreatedOrder } from '../../orders/index.ts';
import type { payOrderItems } from './pay-order.ts';
import { RECOVER_INTENT_JOB } from '../attempts/payment-record.ts';

/** The customer of an intent: one already read (a charge's, or `customer_id`), or contact fields to upsert by email. */
export type IntentCustomer = { row: CustomerRow } | { upsert: CustomerColumns };

/** The order of an intent: an existing one (a charge's), or a new one with its event and items. */
export type IntentOrder =
  | { id: number }
  | {
      row: Omit<Insertable<Orders>, 'customer_id'>;
      event: OrderCreatedEvent;
      items: ReturnType<typeof payOrderItems<unknown>>;
    };

export type IntentRows = {
  accountId: string;
  companyId: number;
  customer: IntentCustomer;
  order: IntentOrder;
  /** One `pending` row per charge, in card order. */
  payments: Array<Omit<Insertable<Payments>, 'order_id'>>;
  paymentCause: string;
  recoveryAt: Date;
  now: Date;
};

export type WrittenIntent = { customer: CustomerRow; orderId: number; paymentIds: number[] };

/**
 * The intent's writes as one statement: the customer upsert, the order with its `order.created` event and
 * its items, each payment with its `payment.created` event and its recovery job. Every data-modifying CTE
 * runs to completion with the statement, so the intent commits whole or not at all, and one round trip
 * does what eight did as separate statements in a transaction.
 */
export async function insertIntent(db: Kysely<DB>, rows: IntentRows): Promise<WrittenIntent> {
  // The CTEs present depend on the intent; the statement is typed where it is read back.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let statement = db as unknown as QueryCreator<any>;
  if ('upsert' in rows.customer) {
    const columns = rows.customer.upsert;
    statement = statement.with('customer', (qb) =>
      upsertCustomerQuery(qb as QueryCreator<DB>, rows, columns, rows.now),
    );
  }
  const customerId = 'row' in rows.customer ? rows.customer.row.id : sql<number>`(select id from customer)`;
  if ('row' in rows.order) {
    const values = { ...rows.order.row, customer_id: customerId } as InsertObject<DB, 'orders'>;
    statement = withCreatedOrder(statement as QueryCreator<DB>, values, rows.order.event);
    const items = rows.order.items;
    if (items.length)
      statement = statement.with('created_items', (qb) =>
        qb
          .insertInto('order_items')
          .values(items.map((item) => ({ ...item, order_id: sql`(select id from created)` }))),
      );
  }
  const orderId = 'id' in rows.order ? rows.order.id : sql<number>`(select id from created)`;
  const recoveryKey = `${RECOVER_INTENT_JOB}:`;
  const written = (await statement
    .with('pays', (qb) =>
      qb
        .insertInto('payments')
        .values(rows.payments.map((payment) => ({ ...payment, order_id: orderId })))
        .returning(['id', 'order_id', 'card_index', 'amount_cents', 'method', 'gateway', 'observation', 'meta']),
    )
    .with('pays_logged', (qb) =>
      insertRowEvents(
        qb,
        {
          accountId: rows.accountId,
          type: 'payment.created',
          cause: rows.paymentCause,
          toStatus: 'pending',
          at: rows.now,
        },
        qb
          .selectFrom('pays')
          .select([
            'pays.order_id',
            sql<null>`null::text`.as('from_status'),
            'pays.id as payment_id',
            paymentCreatedData.as('data'),
          ])
          // Reading the order's event first writes it first: the log lists the order's creation before its payments.
          .$if('row' in rows.order, (query) => query.where(sql<boolean>`exists (select from created_logged)`)),
      ),
    )
    .with('pays_recovery', (qb) =>
      insertJobsFrom(
        qb,
        { type: RECOVER_INTENT_JOB, accountId: rows.accountId, runAt: rows.recoveryAt },
        qb
          .selectFrom('pays')
          .select([
            sql`jsonb_build_object('account_id', ${rows.accountId}::text, 'payment_id', pays.id)`.as('payload'),
            sql<string>`${recoveryKey}::text || pays.id`.as('dedup_key'),
          ]),
      ),
    )
    .selectFrom('upsert' in rows.customer ? ['pays', 'customer'] : ['pays'])
    .select(['pays.id as intent_payment_id', 'pays.order_id as intent_order_id'])
    .$if('upsert' in rows.customer, (qb) => qb.selectAll('customer'))
    .orderBy('pays.card_index')
    .execute()) as Array<CustomerRow & { intent_payment_id: number; intent_order_id: number }>;
  const first = written[0];
  if (!first) throw new Error('the intent statement wrote no payment');
  const customer = 'row' in rows.customer ? rows.customer.row : customerOf(first);
  return { customer, orderId: first.intent_order_id, paymentIds: written.map((row) => row.intent_payment_id) };
}

/** A `payment.created` event's data: the amount, method and gateway, and the attempt's note and metadata when it sent them. */
const paymentCreatedData = sql`jsonb_build_object('amount_cents', pays.amount_cents, 'method', pays.method, 'gateway', pays.gateway)
  || case when pays.observation is null then '{}'::jsonb else jsonb_build_object('observation', pays.observation) end
  || case when pays.meta is null then '{}'::jsonb else jsonb_build_object('meta', pays.meta) end`;

function customerOf(row: CustomerRow & { intent_payment_id: number; intent_order_id: number }): CustomerRow {
  const { intent_payment_id: _payment, intent_order_id: _order, ...customer } = row;
  return customer;
}
