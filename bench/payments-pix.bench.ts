/**
 * POST /payments with Pix for a new customer each request (a unique email), on PostgreSQL, with the
 * gateway_a sandbox reached over real HTTP in a process of its own, against a raw SQL baseline: one transaction through `pg`
 * with as many row inserts and updates as one such request performs (counted by PostgreSQL first).
 * `DATABASE_URL=postgres://… npm run bench -- payments-pix`.
 */
import type { Database } from '../src/db/database.ts';
import { openDatabase } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { createFreshPostgresDatabase } from '../test/support/engines.ts';
import { createMerchant, type Merchant } from '../test/support/pay-fixtures.ts';
import {
  ADMIN_DATABASE_URL,
  benchConfig,
  isMain,
  listenApp,
  ratioRow,
  requirePostgres,
  type BenchResult,
} from './harness.ts';
import { httpLoad, loadSeconds, measureInterleaved, printTable } from './load.ts';
import { measureCpuByProcess, printCpuTable, type CpuByProcess } from './process-cpu.ts';
import { startSandboxProcess } from './processes.ts';
import Fastify from 'fastify';
import { createBaselineTable, rawTransaction, rawTransactionLoad } from './raw-sql-baseline.ts';
import { countWritesPerRequest } from './write-counts.ts';

const BENCHMARK = 'payments-pix';
const TARGET_RATIO = 0.5;
const COUNTED_REQUESTS = 20;
const ORIGIN = 'https://shop.example';

type PayBody = {
  checkout_page_id: string;
  products: Array<{ id: number; quantity: number }>;
  customer_email: string;
  payment_plan_id: string;
};

function pixBody(merchant: Merchant, email: string): PayBody {
  return {
    checkout_page_id: merchant.pageId,
    products: [{ id: merchant.productId, quantity: 1 }],
    customer_email: email,
    payment_plan_id: `${merchant.pixPlanId}-1`,
  };
}

async function withDatabase<T>(url: string, poolSize: number, use: (database: Database) => Promise<T>): Promise<T> {
  const database = await openDatabase({ engine: 'postgres', url, poolSize });
  try {
    return await use(database);
  } finally {
    await database.close();
  }
}

export async function run(options: { seconds?: number; connections?: number } = {}): Promise<BenchResult> {
  requirePostgres();
  const fresh = await createFreshPostgresDatabase(ADMIN_DATABASE_URL);
  // The gateways run as a process of their own, as a real gateway is: its work is not the service's.
  // No webhook is delivered here (nothing confirms the Pix), so the service URL is never called.
  const sandboxes = await startSandboxProcess('http://127.0.0.1:9');
  const gatewayUrls = sandboxes.urls;
  const config = benchConfig();
  const connections = options.connections ?? 10;
  let closeBaseline = async () => {};
  try {
    const merchant = await withDatabase(fresh.url, 2, async (database) => {
      await migrate(database);
      return createMerchant(database, config);
    });
    await createBaselineTable(fresh.url);

    // What one request writes, counted on a pool of its own (its backends publish their counters on exit).
    const writes = await countWritesPerRequest(fresh.url, COUNTED_REQUESTS, () =>
      withDatabase(fresh.url, 2, async (database) => {
        const { app } = await listenApp(database, { config, gatewayUrls });
        try {
          for (let i = 0; i < COUNTED_REQUESTS; i++) {
            const res = await app.inject({
              method: 'POST',
              url: '/api/v1/payments',
              headers: { origin: ORIGIN },
              payload: pixBody(merchant, `counted-${i}@bench.example`),
            });
            if (res.statusCode !== 200) throw new Error(`POST /payments answered ${res.statusCode}: ${res.body}`);
          }
        } finally {
          await app.close();
        }
      }),
    );
    console.log(
      `\nrows written by one POST /payments (pix, new customer): ${writes.inserts} inserts, ${writes.updates} updates, ${writes.deletes} deletes`,
    );
    console.table(writes.tables);

    return await withDatabase(fresh.url, 20, async (database) => {
      const { app, url } = await listenApp(database, { config, gatewayUrls });
      try {
        let sequence = 0;
        const run = Date.now().toString(36);
        const post = httpLoad('POST /payments (pix, new customer each request)', {
          url: `${url}/api/v1/payments`,
          method: 'POST',
          headers: { origin: ORIGIN, 'content-type': 'application/json' },
          connections,
          setupRequest: (request) => ({
            ...request,
            body: JSON.stringify(pixBody(merchant, `buyer-${run}-${sequence++}@bench.example`)),
          }),
        });
        const baseline = rawTransactionLoad(fresh.url, writes, connections);
        // Informational: the same transaction behind a bare Fastify route, i.e. what HTTP alone costs on this
        // machine; the distance from it to POST /payments is the pay flow's own work.
        const routed = rawTransaction(fresh.url, writes, connections);
        const bare = Fastify({ logger: false });
        bare.post('/api/v1/payments', async () => {
          await routed.run();
          return { order_status: 'waiting_payment', payments: ['x'] };
        });
        const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });
        closeBaseline = async () => {
          await bare.close();
          await routed.close();
          await baseline.close();
        };
        const behindRoute = httpLoad('the raw transaction behind a bare Fastify route (informational)', {
          url: `${bareUrl}/api/v1/payments`,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          connections,
          body: '{}',
        });
        const [payments, raw, routedRun] = await measureInterleaved(
          [post, baseline.load, behindRoute],
          options.seconds ? { seconds: options.seconds } : {},
        );
        printTable('POST /payments (pix) against a raw SQL transaction of the same writes', [payments, raw, routedRun]);
        console.log(
          `the raw transaction behind a bare route: ratio ${(routedRun.reqPerSec / raw.reqPerSec).toFixed(3)} to the raw transaction (the most any HTTP endpoint making these writes could reach here)`,
        );
        const row = ratioRow(BENCHMARK, payments, raw, TARGET_RATIO);
        console.log(`ratio ${row.ratio} (target ${row.target}: ${row.met ? 'met' : 'NOT met'})`);
        // Informational: each case alone, with the CPU it costs by process, to show where the gap lies.
        const seconds = options.seconds ?? loadSeconds();
        const alone = [
          await measureCpuByProcess(post, seconds, { sandbox: sandboxes.pid }),
          await measureCpuByProcess(baseline.load, seconds),
        ].filter((row): row is CpuByProcess => row !== undefined);
        if (alone.length > 0) printCpuTable('each case alone: CPU per request by process (informational)', alone);
        return {
          benchmark: BENCHMARK,
          rows: [row],
          notes: [
            `payments-pix baseline: ${raw.label}, the rows one POST /payments writes (counted from pg_stat_user_tables), at ${connections} concurrent connections`,
            ...alone.map(
              (measured) =>
                `payments-pix alone, CPU per request: ${measured.label}: ${measured.reqPerSec} req/s, PostgreSQL ${measured.postgresMs} ms, service and load generator ${measured.thisProcessMs} ms${measured.childrenMs.sandbox !== undefined ? `, gateway sandbox ${measured.childrenMs.sandbox} ms` : ''}; ${measured.idleCores} cores idle`,
            ),
          ],
        };
      } finally {
        await app.close();
      }
    });
  } finally {
    await closeBaseline();
    await sandboxes.close();
    if (process.env.BENCH_KEEP_DB === '1') console.log(`kept database: ${fresh.url}`);
    else await fresh.drop();
  }
}

if (isMain(import.meta.url)) await run();
