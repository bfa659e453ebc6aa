import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { listAudit } from './audit.ts';

/** What the order page shows beyond `GET /orders/{id}`: payment ids and refundable amounts, the event log, who acted. */
export async function orderPageExtras(db: Kysely<DB>, accountId: string, orderId: number) {
  const [payments, events, audit, totals] = await Promise.all([
    db
      .selectFrom('payments')
      .select([
        'id',
        'gateway',
        'method',
        'status',
        'amount_cents',
        'interest_cents',
        'refunded_cents',
        'gateway_id',
        'installments',
        'paid_at',
        'created_at',
      ])
      .where('account_id', '=', accountId)
      .where('order_id', '=', orderId)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('order_events')
      .select(['id', 'type', 'cause', 'from_status', 'to_status', 'payment_id', 'data', 'created_at'])
      .where('account_id', '=', accountId)
      .where('order_id', '=', orderId)
      .orderBy('id')
      .execute(),
    listAudit(db, accountId, { subject: `order:${orderId}`, limit: 200 }),
    db
      .selectFrom('orders')
      .select(['total_cents', 'paid_cents', 'refunded_cents'])
      .where('account_id', '=', accountId)
      .where('id', '=', orderId)
      .executeTakeFirstOrThrow(),
  ]);
  return {
    totals,
    payments: payments.map((payment) => ({
      ...payment,
      refundable_cents: ['paid', 'partially_refunded'].includes(payment.status)
        ? payment.amount_cents - payment.refunded_cents
        : 0,
      gateway_id: payment.gateway_id ?? null,
      paid_at: payment.paid_at?.toISOString() ?? null,
      created_at: payment.created_at.toISOString(),
    })),
    events: events.map((event) => ({
      ...event,
      data: event.data as Record<string, unknown>,
      created_at: event.created_at.toISOString(),
    })),
    actions: audit.map((entry) => ({
      actor: entry.actor,
      action: entry.action,
      data: entry.data as Record<string, unknown>,
      created_at: entry.created_at.toISOString(),
    })),
  };
}
