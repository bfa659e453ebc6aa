/** Shared steps of the notification tests: a controllable clock, a delivery worker and orders that move. */

import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import type { Database } from '../../src/db/database.ts';
import { Worker } from '../../src/jobs/worker.ts';
import {
  notificationDeadJobHandlers,
  notificationJobHandlers,
  type DeliveryDeps,
} from '../../src/modules/notifications/delivery.job.ts';
import { createEndpoint, type EndpointInput } from '../../src/modules/notifications/endpoints.service.ts';
import { DELIVER_JOB } from '../../src/modules/notifications/notify.ts';
import { transitionOrder, type OrderStatus } from '../../src/modules/orders/order-status.ts';
import { registerOrderTransitionHooks } from '../../src/order-hooks.ts';
import type { Tenant } from '../support/app.ts';

export const PUBLIC_URL = 'http://pay.test';

/** A clock a minute ahead of the database, so jobs written with the wall clock are already due. */
export function testClock() {
  let current = Date.now() + 60_000;
  return {
    now: () => new Date(current),
    set: (at: Date) => void (current = at.getTime()),
    advance: (ms: number) => void (current += ms),
  };
}
export type TestClock = ReturnType<typeof testClock>;

export function deliveryWorker(
  database: Database,
  masterKey: Buffer,
  clock: TestClock,
  overrides: Partial<DeliveryDeps> = {},
): Worker {
  const handlers = notificationJobHandlers({
    publicUrl: PUBLIC_URL,
    allowPrivateNetworks: true,
    masterKey,
    clock: clock.now,
    timeoutMs: 2_000,
    ...overrides,
  });
  return new Worker({
    database,
    handlers,
    deadJobHandlers: notificationDeadJobHandlers(clock.now),
    logger: pino({ level: 'silent' }),
    clock: clock.now,
    leaseMs: 60_000,
  });
}

/**
 * Runs the worker until no delivery job is left, moving the clock to each next retry when nothing is
 * due. Returns the clock instants at which batches ran.
 */
export async function drainDeliveries(
  database: Database,
  worker: Worker,
  clock: TestClock,
  maxRuns = 200,
): Promise<Date[]> {
  const runs: Date[] = [];
  for (let i = 0; i < maxRuns; i++) {
    if ((await worker.runOnce()) > 0) {
      runs.push(clock.now());
      continue;
    }
    const next = await database.db
      .selectFrom('jobs')
      .select('run_at')
      .where('type', '=', DELIVER_JOB)
      .where('status', '=', 'queued')
      .orderBy('run_at')
      .executeTakeFirst();
    if (!next) return runs;
    clock.set(new Date(Math.max(next.run_at.getTime(), clock.now().getTime())));
  }
  throw new Error('deliveries did not drain');
}

export async function addEndpoint(
  database: Database,
  masterKey: Buffer,
  tenant: Tenant,
  url: string,
  input: Partial<EndpointInput> = {},
) {
  return createEndpoint(database.db, masterKey, { accountId: tenant.accountId, url, ...input }, new Date());
}

/** A pending order of R$ 100,00 (one item) for a new customer of the tenant's company. */
export async function insertOrder(
  database: Database,
  tenant: Tenant,
  companyId = tenant.companyId,
): Promise<{ id: number; uid: string }> {
  const db = database.db;
  const customer = await db
    .insertInto('customers')
    .values({
      account_id: tenant.accountId,
      company_id: companyId,
      email: `buyer-${randomUUID().slice(0, 8)}@example.com`,
      name: 'Maria da Silva',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const uid = randomUUID();
  const order = await db
    .insertInto('orders')
    .values({
      uid,
      account_id: tenant.accountId,
      company_id: companyId,
      customer_id: customer.id,
      source: 'api',
      status: 'pending',
      subtotal_cents: 10_000,
      total_cents: 10_000,
      date: new Date().toISOString().slice(0, 10),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('order_items')
    .values({
      account_id: tenant.accountId,
      order_id: order.id,
      product_name: 'Curso',
      quantity: 1,
      unit_value_cents: 10_000,
      total_cents: 10_000,
    })
    .execute();
  return { id: order.id, uid };
}

/** Moves the order through `transitionOrder` in its own transaction, as every flow does, with the hooks every process registers. */
export async function moveOrder(
  database: Database,
  tenant: Tenant,
  orderId: number,
  to: OrderStatus,
  at = new Date(),
): Promise<void> {
  registerOrderTransitionHooks();
  await database.db
    .transaction()
    .execute((trx) => transitionOrder(trx, { accountId: tenant.accountId, orderId, to, cause: 'test', at }));
}

export function deliveriesOf(database: Database, accountId: string) {
  return database.db
    .selectFrom('notification_deliveries')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function attemptsOf(database: Database, deliveryId: string) {
  return database.db
    .selectFrom('notification_attempts')
    .selectAll()
    .where('delivery_id', '=', deliveryId)
    .orderBy('attempt')
    .execute();
}
