import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import { sumOf } from '../../../lib/money.ts';
import { type OrderStatus, PURCHASED_STATUSES, SETTLED_PAYMENT_STATUSES, transitionOrder } from '../../orders/index.ts';
import { releaseCouponOfOrder } from '../../coupons/index.ts';
import { releaseBooking } from '../../scheduling/index.ts';
import { type findOrderRow, findPaymentsOfOrder, purchasedOrderOfCart } from '../payments.repo.ts';
import { enqueueOrphanVoid, enqueueSupersededVoid } from '../attempts/orphan-capture.ts';

export type OrderRow = Awaited<ReturnType<typeof findOrderRow>>;

const SETTLED = new Set<string>(SETTLED_PAYMENT_STATUSES);
const LIVE = new Set(['pending', 'waiting_payment']);
// Orders whose total is already covered: any further money on them is an overpayment to give back.
const COVERED = new Set<string>(PURCHASED_STATUSES);

/** What settling an order looks at: its figures and its payments' statuses and amounts. */
export type OrderSnapshot = {
  order: Pick<OrderRow, 'status' | 'total_cents' | 'paid_cents' | 'cart_id'>;
  payments: Array<{ id: number; method: string; status: string; amount_cents: number; interest_cents: number }>;
};

/** The order's figures and its payments' amounts in one read (a row per payment, or one with no payment). */
export async function orderWithPayments(trx: Kysely<DB>, accountId: string, orderId: number): Promise<OrderSnapshot> {
  const rows = await trx
    .selectFrom('orders')
    .leftJoin('payments', (join) =>
      join.onRef('payments.order_id', '=', 'orders.id').onRef('payments.account_id', '=', 'orders.account_id'),
    )
    .select([
      'orders.status as order_status',
      'orders.total_cents',
      'orders.paid_cents',
      'orders.cart_id',
      'payments.id',
      'payments.method',
      'payments.status',
      'payments.amount_cents',
      'payments.interest_cents',
    ])
    .where('orders.account_id', '=', accountId)
    .where('orders.id', '=', orderId)
    .execute();
  const first = rows[0];
  if (!first) throw new Error(`order ${orderId} not found`);
  const payments = rows.flatMap((row) =>
    row.status === null || row.id === null
      ? []
      : [
          {
            id: row.id,
            method: row.method ?? '',
            status: row.status,
            amount_cents: row.amount_cents ?? 0,
            interest_cents: row.interest_cents ?? 0,
          },
        ],
  );
  return {
    order: {
      status: first.order_status,
      total_cents: first.total_cents,
      paid_cents: first.paid_cents,
      cart_id: first.cart_id,
    },
    payments,
  };
}

/**
 * Derives the order's status from its payments after one of them moved, through `transitionOrder`:
 * - the principal of the settled payments (amount less interest) covers the total → paid, unless another
 *   order of the same cart was paid first: the cart is bought, so this money is an overpayment, given back
 *   by the orphan-capture job, and the order is cancelled once it is;
 * - some money settled but not all (a split whose other card is still being charged) → unchanged:
 *   the order only becomes paid when every card is, and never partially_paid (which could not return to
 *   pending, and a charge must stay payable after a failed split); with nothing live left on a pending
 *   order, each settled card is an orphan capture and gets a `payments.void_orphan_capture` job;
 * - a pix or boleto is waiting → waiting_payment;
 * - nothing settled and nothing live → back to pending (payable again), giving back the coupon use and the
 *   booked slot the attempt held.
 * `order`: the order's row when the caller already read it in this transaction; `snapshot`: the order and its
 * payments when the payment's transition read them (`withOrder`).
 */
export async function settleOrder(
  trx: Kysely<DB>,
  request: {
    accountId: string;
    orderId: number;
    cause: string;
    paymentId: number;
    at: Date;
    order?: OrderSnapshot['order'];
    snapshot?: OrderSnapshot;
  },
): Promise<OrderStatus> {
  const { order, payments } =
    request.snapshot ??
    (request.order
      ? { order: request.order, payments: await findPaymentsOfOrder(trx, request.accountId, request.orderId) }
      : await orderWithPayments(trx, request.accountId, request.orderId));
  const settled = payments.filter((payment) => SETTLED.has(payment.status));
  const principal = sumOf(settled, (payment) => payment.amount_cents - payment.interest_cents);
  const paidCents = sumOf(settled, (payment) => payment.amount_cents);
  const move = (to: OrderStatus) =>
    transitionOrder(trx, {
      accountId: request.accountId,
      orderId: request.orderId,
      to,
      cause: request.cause,
      paymentId: request.paymentId,
      at: request.at,
    });
  const current = order.status as OrderStatus;
  if (settled.length > 0 && principal >= order.total_cents && !COVERED.has(current)) {
    if (
      order.cart_id !== null &&
      (await purchasedOrderOfCart(trx, request.accountId, order.cart_id, {
        exceptOrderId: request.orderId,
        lock: true,
      }))
    ) {
      for (const payment of settled) await enqueueOrphanVoid(trx, request.accountId, payment.id, request.at);
      return current;
    }
    if (paidCents !== order.paid_cents) {
      await trx
        .updateTable('orders')
        .set({ paid_cents: paidCents })
        .where('account_id', '=', request.accountId)
        .where('id', '=', request.orderId)
        .returning('id')
        .execute();
    }
    const moved = await move('paid');
    if (moved.changed) await supersedeWaitingAttempts(trx, request, order, payments);
    return moved.changed ? 'paid' : current;
  }
  if (COVERED.has(current)) {
    await giveBackOverpayment(trx, request, order, payments);
    return current;
  }
  if (settled.length > 0) {
    // Money captured on an order this attempt can no longer pay (a split card approved after the other failed):
    // voided by a job, since the gateway is not called inside a transaction.
    if (current === 'pending' && !payments.some((payment) => LIVE.has(payment.status))) {
      for (const payment of settled)
        if (payment.method === 'credit_card') await enqueueOrphanVoid(trx, request.accountId, payment.id, request.at);
    }
    return current;
  }
  if (payments.some((payment) => payment.status === 'waiting_payment')) {
    const moved = await move('waiting_payment');
    return moved.changed ? 'waiting_payment' : current;
  }
  if (!payments.some((payment) => LIVE.has(payment.status))) {
    await releaseCouponOfOrder(trx, request.accountId, request.orderId);
    await releaseBooking(trx, request.accountId, request.orderId);
    if (current === 'waiting_payment') {
      const moved = await move('pending');
      return moved.changed ? 'pending' : current;
    }
  }
  return current;
}

type SettleRequest = { accountId: string; orderId: number; paymentId: number; at: Date };

/**
 * Once an order is paid, its other pix and boleto attempts (a charge the buyer first chose to pay by pix,
 * then paid by card), and those of earlier orders of the same cart, must not be payable any more: each gets
 * a job that voids it at the gateway and cancels it, or, if the buyer paid it meanwhile, records it (and, on
 * the same order, gives the money back).
 */
async function supersedeWaitingAttempts(
  trx: Kysely<DB>,
  request: SettleRequest,
  order: OrderSnapshot['order'],
  payments: OrderSnapshot['payments'],
): Promise<void> {
  for (const payment of payments) {
    if (payment.status === 'waiting_payment')
      await enqueueSupersededVoid(trx, request.accountId, payment.id, request.at);
  }
  if (order.cart_id === null) return;
  // A cart is one purchase: the pix or boleto of its earlier orders (the buyer switched methods) goes too.
  for (const sibling of await waitingOnSameCart(trx, request.accountId, request.orderId, order.cart_id))
    await enqueueSupersededVoid(trx, request.accountId, sibling.id, request.at);
}

function waitingOnSameCart(trx: Kysely<DB>, accountId: string, orderId: number, cartId: string) {
  return trx
    .selectFrom('payments as p')
    .innerJoin('orders as o', (join) =>
      join.onRef('o.id', '=', 'p.order_id').onRef('o.account_id', '=', 'p.account_id'),
    )
    .select('p.id')
    .where('p.account_id', '=', accountId)
    .where('p.status', '=', 'waiting_payment')
    .where('o.cart_id', '=', cartId)
    .where('o.id', '<>', orderId)
    .execute();
}

/** Whether another order of the cart `cartId` was paid (the cart's purchase is made); never for a non-cart order. */
export async function cartPaidByAnotherOrder(
  db: Kysely<DB>,
  accountId: string,
  orderId: number,
  cartId: string | null,
): Promise<boolean> {
  return (
    cartId !== null && (await purchasedOrderOfCart(db, accountId, cartId, { exceptOrderId: orderId })) !== undefined
  );
}

/**
 * A payment that moved on an order already covered by its other payments: a pix or boleto issued before the
 * order was paid gets the supersede job; money settled on it is an overpayment, voided or refunded in full by
 * the orphan-capture job. A covered order never keeps two payments' money for one total.
 */
async function giveBackOverpayment(
  trx: Kysely<DB>,
  request: SettleRequest,
  order: OrderSnapshot['order'],
  payments: OrderSnapshot['payments'],
): Promise<void> {
  const moved = payments.find((payment) => payment.id === request.paymentId);
  if (!moved) return;
  if (moved.status === 'waiting_payment') {
    await enqueueSupersededVoid(trx, request.accountId, moved.id, request.at);
    return;
  }
  if (!SETTLED.has(moved.status)) return;
  if (coveredWithout(order, payments, moved.id)) await enqueueOrphanVoid(trx, request.accountId, moved.id, request.at);
}

/** Whether the order's total is paid by its settled payments other than `paymentId` (principal, interest aside). */
export function coveredWithout(
  order: Pick<OrderSnapshot['order'], 'total_cents'>,
  payments: OrderSnapshot['payments'],
  paymentId: number,
): boolean {
  const others = payments.filter((payment) => payment.id !== paymentId && SETTLED.has(payment.status));
  return (
    others.length > 0 && sumOf(others, (payment) => payment.amount_cents - payment.interest_cents) >= order.total_cents
  );
}
