import { sql, type Kysely, type QueryCreator, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import type { DB } from '../../db/schema.ts';

export type OrderEvent = {
  accountId: string;
  orderId: number;
  type: string;
  cause: string;
  fromStatus?: string | null;
  toStatus?: string | null;
  paymentId?: number | null;
  data?: Record<string, unknown>;
  at?: Date;
};

/** Appends one row to the order's event log (append-only: a trigger refuses updates and deletes). */
export async function appendOrderEvent(db: Kysely<DB>, event: OrderEvent): Promise<void> {
  await db
    .insertInto('order_events')
    .values({
      account_id: event.accountId,
      order_id: event.orderId,
      type: event.type,
      cause: event.cause,
      from_status: event.fromStatus ?? null,
      to_status: event.toStatus ?? null,
      payment_id: event.paymentId ?? null,
      data: JSON.stringify(event.data ?? {}),
      ...(event.at ? { created_at: event.at } : {}),
    })
    .execute();
}

/** The event a status transition (or an order's creation) writes: its order and from_status come from the statement's own rows. */
export type TransitionEvent = {
  accountId: string;
  type: string;
  cause: string;
  toStatus: string;
  paymentId: number | null;
  data: Record<string, unknown>;
  at: Date;
};

// The CTEs in scope differ per statement, so the builders these helpers take are typed loosely.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyCreator = QueryCreator<any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type RowSource<Row> = SelectQueryBuilder<any, any, Row>;

/**
 * The `INSERT … SELECT` that appends a transition's event inside the transition's own statement, as a
 * data-modifying CTE: `source` is a query giving one row (order_id, from_status) per row the update
 * changed, so a refused transition logs nothing and a done one cannot commit without its event.
 */
export function insertTransitionEvent(
  db: AnyCreator,
  event: TransitionEvent,
  source: RowSource<{ order_id: number; from_status: string | null }>,
) {
  return insertEventRows(db, event, source, {
    paymentId: sql<number | null>`${event.paymentId}::bigint`,
    data: sql<string>`${JSON.stringify(event.data)}::jsonb`,
  });
}

/** A data-modifying CTE's rows as events: `source` also gives each row's payment and data (rows the same statement inserted). */
export function insertRowEvents(
  db: AnyCreator,
  event: Omit<TransitionEvent, 'paymentId' | 'data'>,
  source: RowSource<{ order_id: number; from_status: string | null; payment_id: number | null; data: unknown }>,
) {
  return insertEventRows(db, event, source, {
    paymentId: sql.ref<number | null>('changed.payment_id'),
    data: sql.ref<string>('changed.data'),
  });
}

function insertEventRows(
  db: AnyCreator,
  event: Omit<TransitionEvent, 'paymentId' | 'data'>,
  source: RowSource<{ order_id: number; from_status: string | null }>,
  perRow: { paymentId: RawBuilder<number | null>; data: RawBuilder<string> },
) {
  return (db as QueryCreator<DB>)
    .insertInto('order_events')
    .columns([
      'account_id',
      'order_id',
      'type',
      'cause',
      'from_status',
      'to_status',
      'payment_id',
      'data',
      'created_at',
    ])
    .expression(
      (db as QueryCreator<DB>)
        .selectFrom(source.as('changed'))
        .select([
          sql<string>`${event.accountId}::uuid`.as('account_id'),
          'changed.order_id',
          sql<string>`${event.type}::text`.as('type'),
          sql<string>`${event.cause}::text`.as('cause'),
          'changed.from_status',
          sql<string>`${event.toStatus}::text`.as('to_status'),
          perRow.paymentId.as('payment_id'),
          perRow.data.as('data'),
          sql<Date>`${event.at}::timestamptz`.as('created_at'),
        ]),
    );
}
