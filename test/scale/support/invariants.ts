/**
 * What must hold in the database after any mix of concurrent requests, webhooks, jobs and crashes, read
 * from the database itself and from the gateway sandbox's own ledger. Each check returns a list of
 * violations (empty when it holds), so a failing test names every broken record at once.
 */

import { sql } from 'kysely';
import type { Database } from '../../../src/db/database.ts';

export type LedgerCharge = {
  gateway: string;
  id: string;
  method: string;
  state: string;
  amount_cents: number;
  refunded_cents: number;
  refunds: Array<{ id: string; amount_cents: number }>;
  metadata: Record<string, string>;
};

/** Every charge the three sandboxes hold (`GET /{gateway}/sandbox/charges`). */
export async function sandboxLedger(gatewayUrls: Record<string, string>): Promise<LedgerCharge[]> {
  const ledgers = await Promise.all(
    Object.entries(gatewayUrls).map(async ([gateway, url]) => {
      const response = await fetch(`${url}/sandbox/charges`);
      if (response.status !== 200) throw new Error(`${gateway} ledger answered ${response.status}`);
      const { data } = (await response.json()) as { data: Omit<LedgerCharge, 'gateway'>[] };
      return data.map((charge) => ({ ...charge, gateway }));
    }),
  );
  return ledgers.flat();
}

const CAPTURED = new Set(['paid', 'partially_refunded', 'refunded']);

/**
 * No double charge: the gateway holds at most one charge per payment of ours, every charge it captured
 * is a payment we recorded as captured (same amount, same gateway id), and what it refunded is what we
 * recorded as refunded.
 */
export async function chargeViolations(database: Database, ledger: LedgerCharge[]): Promise<string[]> {
  const problems: string[] = [];
  const payments = await database.db
    .selectFrom('payments')
    .select(['uid', 'gateway', 'gateway_id', 'status', 'amount_cents', 'refunded_cents'])
    .execute();
  const byUid = new Map(payments.map((payment) => [payment.uid, payment]));
  const chargesPerPayment = new Map<string, number>();
  for (const charge of ledger) {
    const uid = charge.metadata.payment_uid ?? '';
    chargesPerPayment.set(uid, (chargesPerPayment.get(uid) ?? 0) + 1);
    const payment = byUid.get(uid);
    if (!payment) {
      problems.push(`${charge.gateway} charge ${charge.id} (${charge.state}) belongs to no payment of ours`);
      continue;
    }
    if (payment.gateway_id !== charge.id)
      problems.push(`payment ${uid} records gateway id ${payment.gateway_id}, the gateway charged ${charge.id}`);
    if (payment.amount_cents !== charge.amount_cents)
      problems.push(`payment ${uid}: ${payment.amount_cents} cents recorded, ${charge.amount_cents} charged`);
    if (charge.state === 'paid' && !CAPTURED.has(payment.status))
      problems.push(`payment ${uid} is ${payment.status} but the gateway captured it`);
    if (charge.state !== 'paid' && CAPTURED.has(payment.status))
      problems.push(`payment ${uid} is ${payment.status} but the gateway says ${charge.state}`);
    if (payment.refunded_cents !== charge.refunded_cents)
      problems.push(
        `payment ${uid}: ${payment.refunded_cents} cents refunded here, ${charge.refunded_cents} at the gateway`,
      );
  }
  for (const [uid, count] of chargesPerPayment)
    if (count > 1) problems.push(`payment ${uid} was charged ${count} times at the gateway`);
  return problems;
}

/** Refunds never exceed what was captured, and each gateway refund is recorded once. */
export async function refundViolations(database: Database): Promise<string[]> {
  const problems: string[] = [];
  const rows = await database.db
    .selectFrom('payments as p')
    .leftJoin('refunds as r', (join) => join.onRef('r.payment_id', '=', 'p.id').on('r.status', '=', 'succeeded'))
    .select([
      'p.uid',
      'p.amount_cents',
      'p.refunded_cents',
      (eb) => eb.fn.coalesce(eb.fn.sum<number>('r.amount_cents'), sql<number>`0`).as('succeeded_cents'),
    ])
    .groupBy(['p.id', 'p.uid', 'p.amount_cents', 'p.refunded_cents'])
    .execute();
  for (const row of rows) {
    const succeeded = Number(row.succeeded_cents);
    if (row.refunded_cents > row.amount_cents)
      problems.push(`payment ${row.uid}: refunded ${row.refunded_cents} of ${row.amount_cents} cents`);
    if (succeeded > row.amount_cents)
      problems.push(`payment ${row.uid}: succeeded refunds add up to ${succeeded} of ${row.amount_cents} cents`);
    if (succeeded !== row.refunded_cents)
      problems.push(`payment ${row.uid}: refunded_cents ${row.refunded_cents}, succeeded refunds ${succeeded}`);
  }
  const twice = await database.db
    .selectFrom('refunds')
    .select(['gateway_refund_id', (eb) => eb.fn.countAll<number>().as('count')])
    .where('gateway_refund_id', 'is not', null)
    .groupBy('gateway_refund_id')
    .having((eb) => eb.fn.countAll(), '>', 1)
    .execute();
  for (const row of twice) problems.push(`gateway refund ${row.gateway_refund_id} is recorded ${row.count} times`);
  return problems;
}

/** No event applied twice: a payment enters each status at most once, an order too, a refund succeeds once. */
export async function doubleEventViolations(database: Database): Promise<string[]> {
  const repeated = await database.db
    .selectFrom('order_events')
    .select(['order_id', 'payment_id', 'type', 'to_status', (eb) => eb.fn.countAll<number>().as('count')])
    .where('type', 'in', ['payment.status_changed', 'order.status_changed'])
    .groupBy(['order_id', 'payment_id', 'type', 'to_status'])
    .having((eb) => eb.fn.countAll(), '>', 1)
    .execute();
  // An order may return to pending and be paid again by a new attempt; a payment never re-enters a status.
  return repeated
    .filter((row) => row.type === 'payment.status_changed' || row.to_status === 'paid' || row.to_status === 'refunded')
    .map(
      (row) =>
        `order ${row.order_id}${row.payment_id ? ` payment ${row.payment_id}` : ''}: ${row.type} → ${row.to_status} ${row.count} times`,
    );
}

/**
 * Every order is whole: it has items and its `order.created` event; each payment has its
 * `payment.created` event and its status is the last status its events moved it to; the order's status is
 * the last of its own events and agrees with its payments (paid ⇔ captured money covers the total).
 */
export async function orderViolations(database: Database): Promise<string[]> {
  const problems: string[] = [];
  const db = database.db;
  const orders = await db
    .selectFrom('orders')
    .select(['id', 'uid', 'status', 'total_cents', 'paid_cents', 'source'])
    .execute();
  const items = new Set(
    (await db.selectFrom('order_items').select('order_id').distinct().execute()).map((row) => row.order_id),
  );
  const events = await db
    .selectFrom('order_events')
    .select(['order_id', 'payment_id', 'type', 'to_status'])
    .orderBy('id')
    .execute();
  const payments = await db
    .selectFrom('payments')
    .select(['id', 'order_id', 'status', 'amount_cents', 'interest_cents'])
    .execute();
  for (const order of orders) {
    const own = events.filter((event) => event.order_id === order.id);
    if (!items.has(order.id)) problems.push(`order ${order.uid} has no items`);
    if (own[0]?.type !== 'order.created') problems.push(`order ${order.uid} does not start with order.created`);
    const lastOrderStatus = [...own]
      .reverse()
      .find((event) => event.type === 'order.created' || event.type === 'order.status_changed')?.to_status;
    if (lastOrderStatus !== order.status)
      problems.push(`order ${order.uid} is ${order.status}, its events say ${lastOrderStatus}`);
    const mine = payments.filter((payment) => payment.order_id === order.id);
    for (const payment of mine) {
      const trail = own.filter(
        (event) =>
          event.payment_id === payment.id &&
          (event.type === 'payment.created' || event.type === 'payment.status_changed'),
      );
      if (trail[0]?.type !== 'payment.created')
        problems.push(`payment ${payment.id} of order ${order.uid} has no payment.created event`);
      if (trail.at(-1)?.to_status !== payment.status)
        problems.push(`payment ${payment.id} is ${payment.status}, its events say ${trail.at(-1)?.to_status}`);
    }
    const principal = mine
      .filter((payment) => ['paid', 'partially_refunded', 'refunded'].includes(payment.status))
      .reduce((sum, payment) => sum + payment.amount_cents - payment.interest_cents, 0);
    const covered = principal >= order.total_cents && mine.length > 0;
    if (['paid', 'partially_refunded', 'refunded'].includes(order.status) !== covered)
      problems.push(`order ${order.uid} is ${order.status} with ${principal} of ${order.total_cents} cents captured`);
    if (order.status === 'waiting_payment' && !mine.some((payment) => payment.status === 'waiting_payment'))
      problems.push(`order ${order.uid} waits with no payment waiting`);
  }
  return problems;
}

/**
 * Jobs: none left running, none dead, none due and still queued; and, from the workers' own logs, each
 * job reported done by exactly one claim (`doneLogs`: the job ids of every "job done" line of every worker).
 * `killedWorkers`: a worker killed between recording a job done and logging it leaves it reported 0 times.
 */
export async function jobViolations(
  database: Database,
  doneLogs: number[],
  now: Date,
  options: { killedWorkers?: boolean } = {},
): Promise<string[]> {
  const problems: string[] = [];
  const jobs = await database.db
    .selectFrom('jobs')
    .select(['id', 'type', 'status', 'run_at', 'attempts', 'last_error'])
    .execute();
  const doneCount = new Map<number, number>();
  for (const id of doneLogs) doneCount.set(id, (doneCount.get(id) ?? 0) + 1);
  for (const job of jobs) {
    if (job.status === 'running') problems.push(`job ${job.id} (${job.type}) is still running`);
    if (job.status === 'dead') problems.push(`job ${job.id} (${job.type}) is dead: ${job.last_error}`);
    if (job.status === 'queued' && job.run_at <= now)
      problems.push(`job ${job.id} (${job.type}) was due at ${job.run_at.toISOString()} and never ran`);
    const reported = doneCount.get(job.id) ?? 0;
    if (job.status === 'done' && (reported > 1 || (reported === 0 && !options.killedWorkers)))
      problems.push(`job ${job.id} (${job.type}) is done and was reported done ${reported} times`);
    if (job.status !== 'done' && reported > 0)
      problems.push(`job ${job.id} (${job.type}) is ${job.status} but was reported done`);
  }
  return problems;
}
