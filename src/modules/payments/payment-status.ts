import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { notifyPaymentTransition } from '../notifications/notify.ts';
import { insertTransitionEvent } from '../orders/order-events.repo.ts';

export const PAYMENT_STATUSES = [
  'pending',
  'waiting_payment',
  'paid',
  'failed',
  'cancelled',
  'waiting_cancellation',
  'partially_refunded',
  'refunded',
  'charged_back',
] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/**
 * The one transition table of a payment. Money only moves forward: a paid payment never returns to
 * waiting or failed, so a late or duplicate gateway event cannot undo a settlement. failed, cancelled,
 * refunded and charged_back are final.
 */
export const PAYMENT_TRANSITIONS: Readonly<Record<PaymentStatus, readonly PaymentStatus[]>> = {
  pending: ['waiting_payment', 'paid', 'failed', 'cancelled'],
  waiting_payment: ['paid', 'failed', 'cancelled'],
  paid: ['partially_refunded', 'refunded', 'charged_back', 'waiting_cancellation'],
  waiting_cancellation: ['cancelled', 'refunded', 'charged_back'],
  partially_refunded: ['refunded', 'charged_back'],
  failed: [],
  cancelled: [],
  refunded: [],
  charged_back: [],
};

export function paymentSourcesOf(to: PaymentStatus): PaymentStatus[] {
  return PAYMENT_STATUSES.filter((from) => PAYMENT_TRANSITIONS[from].includes(to));
}

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
  }>;
  data?: Record<string, unknown>;
};

export type PaymentTransitionResult = { changed: true; from: PaymentStatus; to: PaymentStatus; orderId: number } | { changed: false };

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
  const updated = await trx
    .with('before', (db) => db.selectFrom('payments').select(['id', 'status']).where('account_id', '=', request.accountId).where('id', '=', request.paymentId).forUpdate())
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
        { accountId: request.accountId, type: 'payment.status_changed', cause: request.cause, toStatus: request.to, paymentId: request.paymentId, data: request.data ?? {}, at: request.at },
        db.selectFrom('updated').innerJoin('before', 'before.id', 'updated.id').select(['updated.order_id', 'before.status as from_status']),
      ),
    )
    .selectFrom('updated')
    .innerJoin('before', 'before.id', 'updated.id')
    .select(['before.status as from_status', 'updated.order_id'])
    .executeTakeFirst();
  if (!updated) return { changed: false };
  await notifyPaymentTransition(trx, { accountId: request.accountId, orderId: updated.order_id, status: request.to, at: request.at });
  return { changed: true, from: updated.from_status as PaymentStatus, to: request.to, orderId: updated.order_id };
}
