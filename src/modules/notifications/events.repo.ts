import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

export type NewEvent = {
  id: string;
  accountId: string;
  companyId: number | null;
  type: string;
  orderId: number | null;
  subscriptionId: string | null;
  data: unknown;
  at: Date;
};

export async function insertEvent(db: Kysely<DB>, event: NewEvent): Promise<void> {
  await db
    .insertInto('notification_events')
    .values({
      id: event.id,
      account_id: event.accountId,
      company_id: event.companyId,
      type: event.type,
      order_id: event.orderId,
      subscription_id: event.subscriptionId,
      // JSON text: `json` keeps it byte for byte, so every attempt sends the same body.
      data: JSON.stringify(event.data),
      created_at: event.at,
    })
    .execute();
}

export async function insertDelivery(
  db: Kysely<DB>,
  delivery: { id: string; accountId: string; eventId: string; endpointId: string; maxAttempts: number; at: Date },
): Promise<void> {
  await db
    .insertInto('notification_deliveries')
    .values({
      id: delivery.id,
      account_id: delivery.accountId,
      event_id: delivery.eventId,
      endpoint_id: delivery.endpointId,
      max_attempts: delivery.maxAttempts,
      next_attempt_at: delivery.at,
      created_at: delivery.at,
      updated_at: delivery.at,
    })
    .execute();
}

/** Events of this order written earlier in the current transaction (their snapshot may be stale by now). */
export function eventsOfOrderInThisTransaction(db: Kysely<DB>, accountId: string, orderId: number) {
  return db
    .selectFrom('notification_events')
    .select(['id', 'data'])
    .where('account_id', '=', accountId)
    .where('order_id', '=', orderId)
    .where('transaction_id', '=', sql<number>`txid_current()`)
    .execute();
}

export async function replaceEventData(db: Kysely<DB>, accountId: string, id: string, data: unknown): Promise<void> {
  await db
    .updateTable('notification_events')
    .set({ data: JSON.stringify(data) })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .execute();
}

export function findOrderCompany(db: Kysely<DB>, accountId: string, orderId: number) {
  return db
    .selectFrom('orders')
    .select('company_id')
    .where('account_id', '=', accountId)
    .where('id', '=', orderId)
    .executeTakeFirst();
}

export function findSubscription(db: Kysely<DB>, accountId: string, id: string) {
  return db
    .selectFrom('subscriptions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}
