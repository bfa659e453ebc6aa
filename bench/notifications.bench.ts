/**
 * Merchant notifications on PostgreSQL: (1) what the hook in transitionOrder costs, as order transitions
 * per second for an account without endpoints and for one with an endpoint (the event, its delivery and
 * its job are written in the same transaction); (2) deliveries per second from the worker (batches of 10
 * in parallel) to a local receiver that verifies every signature.
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import type { Database } from '../src/db/database.ts';
import { Worker } from '../src/jobs/worker.ts';
import { registerOrderTransitionHooks } from '../src/order-hooks.ts';
import { notificationJobHandlers } from '../src/modules/notifications/delivery.job.ts';
import { createEndpoint } from '../src/modules/notifications/endpoints.service.ts';
import { createTenant, type Tenant } from '../test/support/app.ts';
import { insertOrder, moveOrder } from '../test/notifications/fixtures.ts';
import { Receiver } from '../test/notifications/receiver.ts';
import { freshBenchDatabase, type BenchResult } from './harness.ts';
import { SHORT } from './load.ts';

const ORDERS = Number(process.env.BENCH_NOTIFY_ORDERS ?? (SHORT ? 200 : 500));
const BENCHMARK = 'notifications';

async function transitionsPerSecond(
  database: Database,
  tenant: Tenant,
): Promise<{ perSecond: number; meanMs: number }> {
  const orders = [];
  for (let i = 0; i < ORDERS; i++) orders.push(await insertOrder(database, tenant));
  const started = performance.now();
  for (const order of orders) await moveOrder(database, tenant, order.id, 'paid');
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: Math.round(ORDERS / seconds), meanMs: Number(((seconds * 1000) / ORDERS).toFixed(2)) };
}

export async function run(): Promise<BenchResult> {
  registerOrderTransitionHooks();
  const { database, drop } = await freshBenchDatabase();
  const masterKey = randomBytes(32);
  const receiver = new Receiver({ secrets: [], now: () => new Date() });
  try {
    const url = await receiver.start();
    const silent = await createTenant(database);
    const notified = await createTenant(database);
    receiver.options.secrets = [
      (await createEndpoint(database.db, masterKey, { accountId: notified.accountId, url }, new Date())).secret,
    ];

    const without = await transitionsPerSecond(database, silent);
    const withEndpoint = await transitionsPerSecond(database, notified);
    console.table([
      { case: 'pending → paid, no endpoint', 'transitions/s': without.perSecond, 'mean ms': without.meanMs },
      {
        case: 'pending → paid, one endpoint (event + delivery + job)',
        'transitions/s': withEndpoint.perSecond,
        'mean ms': withEndpoint.meanMs,
      },
    ]);

    const worker = new Worker({
      database,
      handlers: notificationJobHandlers({
        publicUrl: 'http://pay.test',
        allowPrivateNetworks: true,
        masterKey,
        clock: () => new Date(),
      }),
      logger: pino({ level: 'silent' }),
      batchSize: 10,
    });
    const started = performance.now();
    while ((await worker.runOnce()) > 0);
    const seconds = (performance.now() - started) / 1000;
    const verified = receiver.received.filter((request) => request.verifiedBy.length === 1).length;
    if (verified !== ORDERS)
      throw new Error(`expected ${ORDERS} verified deliveries, the receiver verified ${verified}`);
    const deliveriesPerSecond = Math.round(verified / seconds);
    console.table([
      { case: 'signed deliveries to a local receiver', deliveries: verified, 'deliveries/s': deliveriesPerSecond },
    ]);
    const ratio = Number((withEndpoint.perSecond / without.perSecond).toFixed(3));
    return {
      benchmark: BENCHMARK,
      rows: [
        {
          benchmark: BENCHMARK,
          case: 'order pending → paid with one endpoint (event + delivery + job in the transaction)',
          reqPerSec: withEndpoint.perSecond,
          p50Ms: withEndpoint.meanMs,
          baselineReqPerSec: without.perSecond,
          // Informational: what one endpoint costs a transition (no issue sets a target for it).
          ratio,
        },
        {
          benchmark: BENCHMARK,
          case: `signed deliveries to a local receiver (worker batches of 10, ${verified} verified)`,
          reqPerSec: deliveriesPerSecond,
        },
      ],
      notes: [
        `notifications: ${ORDERS} sequential transitions each; baseline: the same transitions for an account with no endpoint; the p50 column holds the mean ms per transition`,
      ],
    };
  } finally {
    await receiver.close();
    await drop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run();
