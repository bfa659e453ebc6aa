import { sql, type Insertable, type InsertObject, type Kysely, type QueryCreator } from 'kysely';
import type { DB, OrderItems, Orders, Payments } from '../../db/schema.ts';
import { insertTransitionEvent } from './order-events.repo.ts';

export function findCompany(db: Kysely<DB>, accountId: string, companyId: number) {
  return db
    .selectFrom('companies')
    .select(['id', 'name', 'time_zone'])
    .where('account_id', '=', accountId)
    .where('id', '=', companyId)
    .executeTakeFirst();
}

/** The account's live products among `ids`. */
export function findProducts(db: Kysely<DB>, accountId: string, ids: number[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('products')
    .select(['id', 'name', 'unit_name', 'value_cents', 'subscription', 'interval', 'interval_count'])
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .where('deleted_at', 'is', null)
    .execute();
}

export type ProductRow = Awaited<ReturnType<typeof findProducts>>[number];

/** The account's kept payment plans among `ids`. */
export function findPaymentPlans(db: Kysely<DB>, accountId: string, ids: number[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('payment_plans')
    .select(['id', 'payment_method'])
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .where('deleted_at', 'is', null)
    .execute();
}

/** Inserts an order and its `order.created` event (to `pending`) in one statement; returns the order's id. */
export async function insertOrderWithEvent(
  db: Kysely<DB>,
  values: Insertable<Orders>,
  event: OrderCreatedEvent,
): Promise<number> {
  const created = await withCreatedOrder(db, values, event)
    .selectFrom('created')
    .select('id')
    .executeTakeFirstOrThrow();
  return created.id;
}

export type OrderCreatedEvent = { cause: string; data: Record<string, unknown>; at: Date };

/**
 * Adds the CTEs `created` (the order, returning its id) and `created_logged` (its `order.created` event,
 * returning the event's id, so that a later CTE reading it is written after it) to a statement; a value of
 * `values` may be an expression over the statement's earlier CTEs (its customer).
 */
export function withCreatedOrder(
  db: QueryCreator<DB>,
  values: Insertable<Orders> | InsertObject<DB, 'orders'>,
  event: OrderCreatedEvent,
) {
  return db
    .with('created', (qb) => qb.insertInto('orders').values(values).returning('id'))
    .with('created_logged', (qb) =>
      insertTransitionEvent(
        qb,
        {
          accountId: values.account_id as string,
          type: 'order.created',
          cause: event.cause,
          toStatus: 'pending',
          paymentId: null,
          data: event.data,
          at: event.at,
        },
        qb.selectFrom('created').select(['created.id as order_id', sql<string | null>`null::text`.as('from_status')]),
      ).returning('order_events.id'),
    );
}

export async function insertOrderItems(db: Kysely<DB>, rows: Insertable<OrderItems>[]): Promise<void> {
  if (rows.length) await db.insertInto('order_items').values(rows).execute();
}

/** Inserts a payment; undefined when the gateway id is already recorded for that gateway. */
export async function insertPayment(db: Kysely<DB>, values: Insertable<Payments>): Promise<number | undefined> {
  const row = await db
    .insertInto('payments')
    .values(values)
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

export async function setPaidCents(
  db: Kysely<DB>,
  accountId: string,
  orderId: number,
  paidCents: number,
): Promise<void> {
  await db
    .updateTable('orders')
    .set({ paid_cents: paidCents })
    .where('account_id', '=', accountId)
    .where('id', '=', orderId)
    .returning('id')
    .execute();
}
