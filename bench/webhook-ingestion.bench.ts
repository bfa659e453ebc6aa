/**
 * Inbound webhook ingestion on PostgreSQL: gateway_b `payment_intent.succeeded` events, each with its own
 * event id and properly signed (`Gateway-B-Signature`), for existing Pix payments waiting for payment,
 * POSTed to /api/v1/webhooks/{company}/gateway_b; against the same requests POSTed to a bare Fastify
 * route in the same run. The receiver answers once the event and its job are stored; the worker applies it.
 *
 * The worker runs in the benchmark's process during the service's measured slices, as `checkout serve`
 * runs it by default (woken by each acknowledgement), and is stopped during the bare route's slices so
 * that its work never slows the baseline. What it has not applied when the load ends is then drained by
 * the same worker, and that rate is reported too; afterwards every acknowledged event must have paid its
 * payment. `DATABASE_URL=postgres://… npm run bench -- webhook-ingestion`.
 */
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import type { Database } from '../src/db/database.ts';
import { signatureHeader } from '../src/gateways/gateway-b/index.ts';
import { deliverySettings } from '../src/modules/notifications/delivery.job.ts';
import { PROCESS_EVENT_JOB } from '../src/modules/webhooks/webhooks.service.ts';
import { createWorker } from '../src/runtime.ts';
import type { Worker } from '../src/jobs/worker.ts';
import { createMerchant, type Merchant } from '../test/support/pay-fixtures.ts';
import { storeCredentials } from '../test/support/webhooks-fixtures.ts';
import {
  benchConfig,
  freshBenchDatabase,
  isMain,
  listenApp,
  productionLogger,
  ratioRow,
  requirePostgres,
  type BenchResult,
} from './harness.ts';
import { httpLoad, measureInterleaved, printTable, SHORT, type HttpRequestShape, type Load } from './load.ts';

const BENCHMARK = 'webhook-ingestion';
/** Each event is verified and stored durably before the 200, then applied by the worker: see docs/webhooks.md, Ingestion speed. */
const TARGET_RATIO = 0.05;
const PAYMENTS = SHORT ? 10_000 : 40_000;
const AMOUNT_CENTS = 10_000;

/** Pix payments on gateway_b waiting for payment, with gateway ids `pi_bench_<n>`, and their orders. */
async function insertWaitingPayments(database: Database, merchant: Merchant, count: number): Promise<void> {
  await database.withSession(async (session) => {
    await session.query(
      `WITH customer AS (
         INSERT INTO customers (account_id, company_id, email, name) VALUES ($1, $2, 'webhooks@bench.example', 'Webhook Buyer') RETURNING id
       ), new_orders AS (
         INSERT INTO orders (uid, account_id, company_id, customer_id, source, status, checkout_page_id, payment_plan_id, subtotal_cents, total_cents)
         SELECT gen_random_uuid(), $1, $2, customer.id, 'checkout_page', 'waiting_payment', $3, $4, $5, $5 FROM customer, generate_series(1, $6::int)
         RETURNING id
       )
       INSERT INTO payments (uid, account_id, company_id, order_id, gateway, method, status, payment_plan_id, amount_cents, installment_value_cents, gateway_id)
       SELECT gen_random_uuid(), $1, $2, id, 'gateway_b', 'pix', 'waiting_payment', $4, $5, $5, 'pi_bench_' || row_number() OVER (ORDER BY id) FROM new_orders`,
      [merchant.accountId, merchant.companyId, merchant.pageId, merchant.pixPlanId, AMOUNT_CENTS, count],
    );
    await session.exec('VACUUM ANALYZE orders');
    await session.exec('VACUUM ANALYZE payments');
  });
}

/** The event gateway_b sends when a Pix is paid, as its sandbox builds it. */
function paymentSucceeded(companyId: number, payment: number, nowSeconds: number): string {
  const intentId = `pi_bench_${payment}`;
  return JSON.stringify({
    id: `evt_${randomUUID().replaceAll('-', '')}`,
    object: 'event',
    api_version: '2024-06-20',
    created: nowSeconds,
    livemode: false,
    pending_webhooks: 1,
    type: 'payment_intent.succeeded',
    data: {
      object: {
        id: intentId,
        object: 'payment_intent',
        amount: AMOUNT_CENTS,
        amount_received: AMOUNT_CENTS,
        currency: 'brl',
        status: 'succeeded',
        description: `order ${payment}`,
        metadata: { company_id: String(companyId), payment_uid: randomUUID() },
        payment_method_types: ['pix'],
        payment_method: `pm_${payment}`,
        latest_charge: `ch_${payment}`,
        last_payment_error: null,
        next_action: null,
        created: nowSeconds - 60,
        livemode: false,
      },
    },
  });
}

/** The load with the worker running while it is driven (started before, stopped after its batch in flight). */
function withWorker(load: Load, worker: Worker): Load {
  return {
    label: load.label,
    drive: async (seconds) => {
      worker.start();
      try {
        return await load.drive(seconds);
      } finally {
        await worker.stop();
      }
    },
  };
}

const countPaid = async (database: Database, merchant: Merchant) =>
  Number(
    (
      await database.db
        .selectFrom('payments')
        .select((eb) => eb.fn.countAll<string>().as('count'))
        .where('account_id', '=', merchant.accountId)
        .where('status', '=', 'paid')
        .executeTakeFirstOrThrow()
    ).count,
  );

/** Runs the worker's batches until no webhook job is queued; the events it applied and the seconds it took. */
async function drain(
  database: Database,
  worker: Worker,
  merchant: Merchant,
): Promise<{ applied: number; seconds: number }> {
  const paidBefore = await countPaid(database, merchant);
  const started = performance.now();
  for (;;) {
    if ((await worker.runOnce()) > 0) continue;
    const left = await database.db
      .selectFrom('jobs')
      .select('id')
      .where('type', '=', PROCESS_EVENT_JOB)
      .where('status', 'in', ['queued', 'running'])
      .limit(1)
      .execute();
    if (left.length === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 100)); // a failed job waits for its retry
  }
  const seconds = (performance.now() - started) / 1000;
  return { applied: (await countPaid(database, merchant)) - paidBefore, seconds };
}

export async function run(options: { seconds?: number; connections?: number } = {}): Promise<BenchResult> {
  requirePostgres();
  const { database, drop } = await freshBenchDatabase();
  const config = benchConfig();
  const { app, url } = await listenApp(database, { config });
  // As `checkout serve` builds its worker (batches of 10, the production logger), with no gateway to call.
  const worker = createWorker(database, productionLogger(config.logLevel), {
    masterKey: config.masterKey,
    gatewayUrls: {},
    clock: () => new Date(),
    notifications: deliverySettings(config),
  });
  const bare = Fastify({ logger: false });
  try {
    const merchant = await createMerchant(database, config);
    const { gatewayB: secret } = await storeCredentials(database, config, merchant);
    await insertWaitingPayments(database, merchant, PAYMENTS);
    bare.post('/api/v1/webhooks/:company_id/gateway_b', async () => ({ status: 'processed' }));
    const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });

    // Events for the service pay payments 1, 2, 3…; the bare route gets the same kind of events.
    let sentToService = 0;
    let sentToBare = 0;
    const signedEvent = (request: HttpRequestShape, payment: number): HttpRequestShape => {
      const now = Math.floor(Date.now() / 1000);
      const body = paymentSucceeded(merchant.companyId, payment, now);
      return {
        ...request,
        body,
        headers: { ...request.headers, 'gateway-b-signature': signatureHeader(secret, body, now) },
      };
    };
    const path = `/api/v1/webhooks/${merchant.companyId}/gateway_b`;
    const common = {
      method: 'POST' as const,
      headers: { 'content-type': 'application/json' },
      connections: options.connections ?? 10,
    };
    const [ingestion, bareRun] = await measureInterleaved(
      [
        withWorker(
          httpLoad('gateway_b payment_intent.succeeded → /webhooks/{company}/gateway_b: acknowledged', {
            ...common,
            url: `${url}${path}`,
            setupRequest: (request) => signedEvent(request, ++sentToService),
          }),
          worker,
        ),
        httpLoad('bare Fastify route, same signed events', {
          ...common,
          url: `${bareUrl}${path}`,
          setupRequest: (request) => signedEvent(request, (sentToBare++ % PAYMENTS) + 1),
        }),
      ],
      options.seconds ? { seconds: options.seconds } : {},
    );
    if (sentToService > PAYMENTS)
      throw new Error(
        `${sentToService} events for ${PAYMENTS} payments: raise PAYMENTS so every event pays a payment of its own`,
      );
    const paidDuringLoad = await countPaid(database, merchant);
    const drained = await drain(database, worker, merchant);
    const paid = await countPaid(database, merchant);
    // Every acknowledged event paid its payment (warm-up included); events cut off in flight when a slice ended may have too.
    if (paid < ingestion.requests || paid > sentToService)
      throw new Error(`${paid} payments paid for ${ingestion.requests} acknowledged (${sentToService} sent) events`);
    printTable("gateway_b webhook ingestion against a bare route (worker running during the service's slices)", [
      ingestion,
      bareRun,
    ]);
    const row = ratioRow(BENCHMARK, ingestion, bareRun, TARGET_RATIO);
    const drainRate = Math.round(drained.applied / Math.max(drained.seconds, 0.001));
    console.log(`ratio ${row.ratio} (target ${row.target}: ${row.met ? 'met' : 'NOT met'})`);
    console.log(
      `applied while the load ran: ${paidDuringLoad} of ${sentToService} sent; the rest drained by the worker alone: ${drained.applied} events in ${drained.seconds.toFixed(1)} s, ${drainRate} events/s; ${paid} payments paid by the events`,
    );
    const drainRow = {
      benchmark: BENCHMARK,
      case: `the worker draining what the load left (${drained.applied} events, batches of 10): applied events/s`,
      reqPerSec: drainRate,
    };
    return {
      benchmark: BENCHMARK,
      rows: [row, drainRow],
      notes: [
        "webhook-ingestion baseline: the same signed events POSTed to a bare Fastify route that parses them and answers 200; the worker runs in the same process during the service's slices only (as `checkout serve` runs it), then drains the events left, whose rate is the second, informational row",
      ],
    };
  } finally {
    await worker.stop();
    await bare.close();
    await app.close();
    await drop();
  }
}

if (isMain(import.meta.url)) await run();
