import { sql, type Kysely } from 'kysely';
import { insertJobsFrom } from '../../../queue/jobs.repo.ts';
import type { DB } from '../../../db/schema.ts';
import { notifyPaymentTransition } from '../../notifications/index.ts';
import {
  insertTransitionEvent,
  PAYMENT_STATUSES,
  PAYMENT_TRANSITIONS,
  paymentSourcesOf,
  type PaymentStatus,
  SETTLED_PAYMENT_STATUSES,
} from '../../orders/index.ts';
import type { OrderSnapshot } from './order-settlement.ts';

export { PAYMENT_STATUSES, PAYMENT_TRANSITIONS, SETTLED_PAYMENT_STATUSES, paymentSourcesOf, type PaymentStatus };

export type PaymentTransition = {
  accountId: string;
  paymentId: number;
  to: PaymentStatus;
  cause: string;
  at: Date;
  /** Columns written with the status (gateway id, failure, pix or boleto data…). */
  set?: Partial<{
    gateway_id: string | null;
    failure_code: string | null;
    failure_message: string | null;
    saved_payment_method_id: string | null;
    refunded_cents: number;
    pix_code: string;
    pix_expires_at: Date;
    boleto_barcode: string;
    boleto_digitable_line: string;
    boleto_due_date: string;
    boleto_beneficiary_code: string;
  }>;
  data?: Record<string, unknown>;
  /** A job the transition causes (a pix's expiry), written by the same statement and only if the payment moved. */
  causes?: { type: string; payload: Record<string, unknown>; runAt: Date; dedupKey: string };
  /** Also read, in the same statement, the order and its payments as the transition leaves them (for `settleOrder`). */
  withOrder?: boolean;
};

export type PaymentTransitionResult =
  | { changed: true; from: PaymentStatus; to: PaymentStatus; orderId: number; order?: OrderSnapshot }
  | { changed: false };

/**
 * Moves a payment to `to` when the table allows it from its current status: a conditional
 * `UPDATE … WHERE status IN (sources) RETURNING` and a `payment.status_changed` event with the
 * payment id and cause, in one statement, then the merchant notification it causes, on `trx` (a transaction). A refused
 * transition changes nothing.
 */
export async function transitionPayment(trx: Kysely<DB>, request: PaymentTransition): Promise<PaymentTransitionResult> {
  const sources = paymentSourcesOf(request.to);
  if (sources.length === 0) return { changed: false };
  // One statement: the locking read gives the event's from_status, the conditional update sees the row it
  // locked, and the event is inserted for the row the update changed.
  const caused = request.causes;
  const logged = trx
    .with('before', (db) =>
      db
        .selectFrom('payments')
        .select(['id', 'status'])
        .where('account_id', '=', request.accountId)
        .where('id', '=', request.paymentId)
        .forUpdate(),
    )
    .with('updated', (db) =>
      db
        .updateTable('payments')
        .from('before')
        .set({
          ...request.set,
          status: request.to,
          updated_at: request.at,
          ...(request.to === 'paid' ? { paid_at: request.at } : {}),
          ...(request.to === 'cancelled' ? { cancelled_at: request.at } : {}),
        })
        .whereRef('payments.id', '=', 'before.id')
        .where('payments.account_id', '=', request.accountId)
        .where('payments.status', 'in', sources)
        .returning(['payments.id', 'payments.order_id']),
    )
    .with('logged', (db) =>
      insertTransitionEvent(
        db,
        {
          accountId: request.accountId,
          type: 'payment.status_changed',
          cause: request.cause,
          toStatus: request.to,
          paymentId: request.paymentId,
          data: request.data ?? {},
          at: request.at,
        },
        db
          .selectFrom('updated')
          .innerJoin('before', 'before.id', 'updated.id')
          .select(['updated.order_id', 'before.status as from_status']),
      ),
    );
  const statement = caused
    ? (logged.with('caused', (db) =>
        insertJobsFrom(
          db,
          { type: caused.type, accountId: request.accountId, runAt: caused.runAt },
          db
            .selectFrom('updated')
            .select([
              sql`${JSON.stringify(caused.payload)}::jsonb`.as('payload'),
              sql<string>`${caused.dedupKey}::text`.as('dedup_key'),
            ]),
        ),
      ) as unknown as typeof logged)
    : logged;
  const moved = statement
    .selectFrom('updated')
    .innerJoin('before', 'before.id', 'updated.id')
    .select(['before.status as from_status', 'updated.order_id']);
  let order: OrderSnapshot | undefined;
  let updated: { from_status: string; order_id: number } | undefined;
  if (request.withOrder) {
    // The statement's snapshot shows this payment's old status: the row's new one is the transition's `to`.
    const rows = await moved
      .innerJoin('orders as o', (join) =>
        join.onRef('o.id', '=', 'updated.order_id').on('o.account_id', '=', request.accountId),
      )
      .innerJoin('payments as p', (join) =>
        join.onRef('p.order_id', '=', 'o.id').onRef('p.account_id', '=', 'o.account_id'),
      )
      .select([
        'o.status as order_status',
        'o.total_cents',
        'o.paid_cents',
        'o.cart_id',
        'p.id',
        'p.method',
        'p.status',
        'p.amount_cents',
        'p.interest_cents',
      ])
      .orderBy('p.id')
      .execute();
    updated = rows[0];
    if (updated) {
      order = {
        order: {
          status: rows[0]!.order_status,
          total_cents: rows[0]!.total_cents,
          paid_cents: rows[0]!.paid_cents,
          cart_id: rows[0]!.cart_id,
        },
        payments: rows.map((row) => ({
          id: row.id,
          method: row.method,
          status: row.id === request.paymentId ? request.to : row.status,
          amount_cents: row.amount_cents,
          interest_cents: row.interest_cents,
        })),
      };
    }
  } else {
    updated = await moved.executeTakeFirst();
  }
  if (!updated) return { changed: false };
  await notifyPaymentTransition(trx, {
    accountId: request.accountId,
    orderId: updated.order_id,
    status: request.to,
    at: request.at,
  });
  return {
    changed: true,
    from: updated.from_status as PaymentStatus,
    to: request.to,
    orderId: updated.order_id,
    ...(order ? { order } : {}),
  };
}
