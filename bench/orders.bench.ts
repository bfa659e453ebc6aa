/**
 * GET /orders at 10k and at 1M orders on PostgreSQL: a status + date-range filter and a customer-email
 * search, page 1 and page 50. The goal: each well under 50 ms (p99), and the 1M latency within 2x of the
 * 10k one, that is the 1M throughput at least half the 10k one at the same concurrency.
 * Another tenant holds a share of the rows so that indexes leading with account_id are what is measured.
 * BENCH_ORDERS sets the large size (BENCH_SHORT=1: 100k).
 */
import { createTenant } from '../test/support/app.ts';
import {
  freshBenchDatabase,
  isMain,
  listenApp,
  ratioOf,
  requirePostgres,
  type BenchResult,
  type BenchRow,
} from './harness.ts';
import { insertCustomers, insertOrders } from './order-rows.ts';
import { httpLoad, loadSeconds, measure, printTable, SHORT, type Measurement } from './load.ts';

const BENCHMARK = 'orders';
const CUSTOMERS = 50_000;
const SMALL = 10_000;
const LARGE = Number(process.env.BENCH_ORDERS ?? (SHORT ? 100_000 : 1_000_000));
const MIN_THROUGHPUT_RATIO = 0.5;
const MAX_P99_MS = 50;

async function measureQueries(base: string, key: string, scale: string): Promise<Measurement[]> {
  const headers = { authorization: `Bearer ${key}` };
  const year = new Date().getUTCFullYear();
  // A whole year of paid orders: about 2,100 rows at 10k, so page 50 (rows 981-1000) is a full page at both scales.
  const range = `status[]=paid&initial_date=${year - 1}-01-01&final_date=${year - 1}-12-31`;
  const email = 'q=buyer4242%40example.com';
  const cases: Array<[string, string]> = [
    ['status+dates page 1', `${range}&page=1`],
    ['status+dates page 50', `${range}&page=50`],
    ['email page 1', `${email}&page=1`],
    ['email page 50', `${email}&page=50`],
  ];
  const rows: Measurement[] = [];
  const seconds = SHORT ? loadSeconds() : 4;
  for (const [label, query] of cases)
    rows.push(
      await measure(
        httpLoad(`${scale} ${label}`, { url: `${base}/api/v1/orders?${query}`, headers, connections: 4 }),
        seconds,
      ),
    );
  return rows;
}

function scaleLabel(count: number): string {
  return count >= 1_000_000 ? `${count / 1_000_000}M` : `${count / 1000}k`;
}

/** One row per query: its figures at the large size against the same query at 10k. */
function comparisonRow(small: Measurement, large: Measurement): BenchRow {
  const ratio = ratioOf(large.reqPerSec, small.reqPerSec);
  return {
    benchmark: BENCHMARK,
    case: `GET /orders ${large.label} (vs 10k: p99 ${small.p99Ms} ms there)`,
    reqPerSec: large.reqPerSec,
    p50Ms: large.p50Ms,
    p99Ms: large.p99Ms,
    baselineReqPerSec: small.reqPerSec,
    ratio,
    target: `≥ ${MIN_THROUGHPUT_RATIO}, p99 < ${MAX_P99_MS} ms`,
    met: ratio >= MIN_THROUGHPUT_RATIO && large.p99Ms < MAX_P99_MS && small.p99Ms < MAX_P99_MS,
  };
}

export async function run(): Promise<BenchResult> {
  requirePostgres();
  const { database, drop } = await freshBenchDatabase();
  try {
    const tenant = await createTenant(database);
    const neighbour = await createTenant(database);
    await insertCustomers(database, tenant, CUSTOMERS);
    await insertCustomers(database, neighbour, CUSTOMERS / 10);
    await insertOrders(database, neighbour, 0, LARGE / 10);
    await insertOrders(database, tenant, 0, SMALL);
    const { app, url } = await listenApp(database);
    try {
      const small = await measureQueries(url, tenant.apiKey, '10k');
      const started = Date.now();
      await insertOrders(database, tenant, SMALL, LARGE);
      console.log(`inserted ${LARGE - SMALL} more orders in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      const large = await measureQueries(url, tenant.apiKey, scaleLabel(LARGE));
      printTable(`GET /orders, ${LARGE} orders (plus ${LARGE / 10} of another tenant)`, [...small, ...large]);
      const rows = small.map((row, i) => comparisonRow(row, large[i]!));
      console.table(
        small.map((row, i) => ({
          case: rows[i]!.case,
          'throughput vs 10k': rows[i]!.ratio,
          'mean latency vs 10k': Number((large[i]!.meanMs / row.meanMs).toFixed(2)),
          met: rows[i]!.met,
        })),
      );
      return {
        benchmark: BENCHMARK,
        rows,
        notes: [
          `orders: ${LARGE} orders of one tenant plus ${LARGE / 10} of another; baseline: the same query at ${SMALL} orders, 4 connections`,
        ],
      };
    } finally {
      await app.close();
    }
  } finally {
    await drop();
  }
}

if (isMain(import.meta.url)) await run();
