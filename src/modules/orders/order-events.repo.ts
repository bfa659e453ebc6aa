import type { Kysely } from 'kysely';
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
