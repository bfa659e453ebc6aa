import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { releaseBooking } from '../scheduling/index.ts';
import { insertTransitionEvent } from './order-events.repo.ts';
import { findAuthorizedInvoice } from './order-invoices.repo.ts';

/** The eight order statuses of the specification (States and transitions). */
export const ORDER_STATUSES = [
  'pending',
  'waiting_payment',
  'partially_paid',
  'paid',
  'cancelled',
  'partially_refunded',
  'refunded',
  'billed',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/**
 * The one transition table of an order: the statuses each status may move to. Money received only
 * moves forward (a late or duplicate event cannot unpay an order); refunded and cancelled are final.
 * waiting_payment may return to pending when an attempt expires or fails, so the order can be paid again.
 */
export const ORDER_TRANSITIONS: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  pending: ['waiting_payment', 'partially_paid', 'paid', 'cancelled'],
  waiting_payment: ['pending', 'partially_paid', 'paid', 'cancelled'],
  partially_paid: ['paid', 'partially_refunded', 'refunded', 'cancelled'],
  paid: ['billed', 'partially_refunded', 'refunded'],
  billed: ['partially_refunded', 'refunded'],
  partially_refunded: ['refunded'],
  refunded: [],
  cancelled: [],
};

/**
 * Orders whose total was paid (then perhaps invoiced or given back): their purchase is made. Further money on
 * such an order, or on another order of the same cart, is an overpayment to give back.
 */
export const PURCHASED_STATUSES: readonly OrderStatus[] = ['paid', 'billed', 'partially_refunded', 'refunded'];

export function canTransition(from: OrderStatus, to: OrderStatus): boolean {
  return ORDER_TRANSITIONS[from].includes(to);
}

/** The statuses from which `to` may be reached. */
export function sourcesOf(to: OrderStatus): OrderStatus[] {
  return ORDER_STATUSES.filter((from) => canTransition(from, to));
}

export type TransitionRequest = {
  accountId: string;
  orderId: number;
  to: OrderStatus;
  cause: string;
  paymentId?: number;
  data?: Record<string, unknown>;
  /** The app's clock time of the transition (every caller has one: no transition takes the system's time). */
  at: Date;
};

export type OrderTransition = { accountId: string; orderId: number; from: OrderStatus; to: OrderStatus; at: Date };

/** What another module does in the transaction of an order's transition (its merchant notification, a subscription's end). */
export type OrderTransitionHook = (trx: Kysely<DB>, transition: OrderTransition) => Promise<void>;

// Filled once at start-up by the process's composition (src/order-hooks.ts), so orders import neither the
// notifications nor the payments that react to them. A Set: registering the same hook twice runs it once.
const hooks = new Set<OrderTransitionHook>();

export function onOrderTransition(hook: OrderTransitionHook): void {
  hooks.add(hook);
}

/** Runs every registered hook, in registration order, on the transition's transaction. */
export async function runOrderTransitionHooks(trx: Kysely<DB>, transition: OrderTransition): Promise<void> {
  for (const hook of hooks) await hook(trx, transition);
}

export type TransitionResult =
  { changed: true; from: OrderStatus; to: OrderStatus } | { changed: false; current: OrderStatus | undefined };

/**
 * Moves an order to `to` when the table allows it from its current status: a conditional UPDATE
 * (`WHERE status IN (allowed sources)`) and an `order.status_changed` event in one statement, then the
 * hooks other modules registered (the merchant notification it causes; an order refunded in full ends the
 * subscription it started), all on `trx`, which must be a transaction. A refused transition changes nothing.
 */
export async function transitionOrder(trx: Kysely<DB>, request: TransitionRequest): Promise<TransitionResult> {
  const { at } = request;
  const sources = sourcesOf(request.to);
  // One statement: the locking read (FOR UPDATE, so the status it returns for the event's from_status is
  // the one the update replaces), the conditional update, which sees the row as that read locked it, and
  // the event of the row it changed.
  const row = await trx
    .with('before', (db) =>
      db
        .selectFrom('orders')
        .select(['id', 'status'])
        .where('account_id', '=', request.accountId)
        .where('id', '=', request.orderId)
        .forUpdate(),
    )
    .with('updated', (db) =>
      db
        .updateTable('orders')
        .from('before')
        .set((eb) => ({
          status: request.to,
          updated_at: at,
          ...(request.to === 'paid' ? { paid_at: eb.fn.coalesce('orders.paid_at', eb.val(at)) } : {}),
          ...(request.to === 'cancelled' ? { cancelled_at: at } : {}),
        }))
        .whereRef('orders.id', '=', 'before.id')
        .where('orders.account_id', '=', request.accountId)
        // `in ()` is not SQL; a status no other status leads to matches nothing.
        .where('orders.status', 'in', sources.length > 0 ? sources : ['-'])
        .returning('orders.id'),
    )
    .with('logged', (db) =>
      insertTransitionEvent(
        db,
        {
          accountId: request.accountId,
          type: 'order.status_changed',
          cause: request.cause,
          toStatus: request.to,
          paymentId: request.paymentId ?? null,
          data: request.data ?? {},
          at,
        },
        db
          .selectFrom('updated')
          .innerJoin('before', 'before.id', 'updated.id')
          .select(['updated.id as order_id', 'before.status as from_status']),
      ),
    )
    .selectFrom('before')
    .leftJoin('updated', 'updated.id', 'before.id')
    .select(['before.status', 'updated.id as updated_id'])
    .executeTakeFirst();
  if (!row || row.updated_id === null) return { changed: false, current: row?.status as OrderStatus | undefined };
  const from = row.status as OrderStatus;
  await runOrderTransitionHooks(trx, {
    accountId: request.accountId,
    orderId: request.orderId,
    from,
    to: request.to,
    at,
  });
  // A cancelled or refunded order keeps no appointment: its slot is bookable again.
  if (request.to === 'refunded' || request.to === 'cancelled')
    await releaseBooking(trx, request.accountId, request.orderId);
  if (request.to === 'paid') await billIfInvoiced(trx, request, at);
  return { changed: true, from, to: request.to };
}

/**
 * An invoice can be authorized before the money arrives (a merchant invoicing at order time): the event stored it
 * and left the order as it was, since only a paid order is billed. The order is billed as soon as it is paid.
 */
async function billIfInvoiced(trx: Kysely<DB>, request: TransitionRequest, at: Date): Promise<void> {
  const invoice = await findAuthorizedInvoice(trx, request.accountId, request.orderId);
  if (!invoice) return;
  await transitionOrder(trx, {
    accountId: request.accountId,
    orderId: request.orderId,
    to: 'billed',
    cause: `invoicing: invoice ${invoice.external_id} authorized before the payment`,
    ...(request.paymentId !== undefined ? { paymentId: request.paymentId } : {}),
    at,
  });
}
