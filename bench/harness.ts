import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp, type AppDependencies } from '../src/app.ts';
import type { Config } from '../src/config.ts';
import type { Database } from '../src/db/database.ts';
import { openDatabase } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { createLogger } from '../src/lib/logger.ts';
import { createFreshPostgresDatabase } from '../test/support/engines.ts';
import { testConfig } from '../test/support/app.ts';

export const ADMIN_DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

/** BENCH_SHORT=1: every benchmark runs briefly (a smoke run); the figures are then indicative only. */
export const SHORT = process.env.BENCH_SHORT === '1' || process.env.BENCH_SHORT === 'true';

/** Seconds of load per measured case: BENCH_SECONDS, else 5 (2 in short mode). */
export function loadSeconds(): number {
  const fromEnv = Number(process.env.BENCH_SECONDS);
  return Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : SHORT ? 2 : 5;
}

/** `cpuUsPerRequest`: this process's CPU time per request (server and load generator together), a figure other processes' load barely moves. */
export type Measurement = { label: string; requests: number; reqPerSec: number; meanMs: number; p50Ms: number; p99Ms: number; non2xx: number; cpuUsPerRequest: number };

/** One line of BENCHMARKS.md. `ratio` compares with `baselineReqPerSec` unless `target` says otherwise. */
export type BenchRow = {
  benchmark: string;
  case: string;
  reqPerSec?: number;
  p50Ms?: number;
  p99Ms?: number;
  baselineReqPerSec?: number;
  ratio?: number;
  target?: string;
  met?: boolean;
};

/** What every `*.bench.ts` `run()` returns. */
export type BenchResult = { benchmark: string; rows: BenchRow[]; notes?: string[] };

export function requirePostgres(): void {
  if (!process.env.DATABASE_URL) throw new Error('DATABASE_URL is required: benchmarks run on PostgreSQL');
}

/** A migrated PostgreSQL database of its own; benchmarks never run on the embedded engine. */
export async function freshBenchDatabase(poolSize = 20): Promise<{ database: Database; url: string; drop(): Promise<void> }> {
  const fresh = await createFreshPostgresDatabase(ADMIN_DATABASE_URL);
  const database = await openDatabase({ engine: 'postgres', url: fresh.url, poolSize });
  await migrate(database);
  return {
    database,
    url: fresh.url,
    drop: async () => {
      await database.close();
      // BENCH_KEEP_DB=1 keeps the loaded database for EXPLAIN sessions.
      if (process.env.BENCH_KEEP_DB === '1') console.log(`kept database: ${fresh.url}`);
      else await fresh.drop();
    },
  };
}

/**
 * Environment of the app under load: production defaults (LOG_LEVEL=info, request logging on) except
 * the per-process rate limits, raised so that one load generator on 127.0.0.1 measures the service
 * rather than its throttle. The limiter itself still runs on every request.
 */
export const BENCH_ENV: NodeJS.ProcessEnv = {
  LOG_LEVEL: 'info',
  RATE_LIMIT_PUBLIC_PER_MINUTE: '100000000',
  RATE_LIMIT_KEY_PER_MINUTE: '100000000',
  RATE_LIMIT_IP_PER_MINUTE: '100000000',
};

export function benchConfig(overrides: NodeJS.ProcessEnv = {}): Config {
  return testConfig({ ...BENCH_ENV, ...overrides });
}

/**
 * The production logger at LOG_LEVEL=info, every line serialised and written synchronously as on
 * stdout, but to /dev/null so the terminal does not become the bottleneck.
 */
export function productionLogger(level = 'info') {
  return createLogger(level, pino.destination({ dest: '/dev/null', sync: true }));
}

export async function listenApp(
  database: Database,
  options: { config?: Config; gatewayUrls?: AppDependencies['gatewayUrls'] } = {},
): Promise<{ app: FastifyInstance; url: string; config: Config }> {
  const config = options.config ?? benchConfig();
  const app = await buildApp({ config, database, logger: productionLogger(config.logLevel), ...(options.gatewayUrls ? { gatewayUrls: options.gatewayUrls } : {}) });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url, config };
}

export type MeasureOptions = {
  url: string;
  headers?: Record<string, string>;
  seconds?: number;
  connections?: number;
  method?: 'GET' | 'POST';
  body?: string;
  /** Rewrites each request (a unique body, a fresh signature); see autocannon's `requests[].setupRequest`. */
  setupRequest?: (request: { method: string; path: string; headers: Record<string, string>; body?: string }) => { method: string; path: string; headers: Record<string, string>; body?: string };
};

type Drive = { requests: number; seconds: number; latenciesMs: number[]; non2xx: number; errors: number; cpuUs: number };

function drive(options: MeasureOptions, seconds: number): Promise<Drive> {
  const latenciesMs: number[] = [];
  const cpuBefore = process.cpuUsage();
  return new Promise((resolveDrive, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        method: options.method ?? 'GET',
        headers: options.headers,
        body: options.body,
        duration: seconds,
        connections: options.connections ?? 10,
        ...(options.setupRequest ? { requests: [{ setupRequest: options.setupRequest as never }] } : {}),
      },
      (error, result) => {
        if (error) return reject(error);
        const cpu = process.cpuUsage(cpuBefore);
        resolveDrive({ requests: result.requests.total, seconds: result.duration, latenciesMs, non2xx: result.non2xx, errors: result.errors, cpuUs: cpu.user + cpu.system });
      },
    );
    instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTimeMs: number) => latenciesMs.push(responseTimeMs));
  });
}

function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return 0;
  return Number(sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!.toFixed(2));
}

function summarise(label: string, drives: Drive[]): Measurement {
  const requests = drives.reduce((sum, run) => sum + run.requests, 0);
  const seconds = drives.reduce((sum, run) => sum + run.seconds, 0);
  const non2xx = drives.reduce((sum, run) => sum + run.non2xx, 0);
  const errors = drives.reduce((sum, run) => sum + run.errors, 0);
  // A benchmark of error answers measures nothing: refuse it loudly.
  if (non2xx > 0 || errors > 0) throw new Error(`${label}: ${non2xx} non-2xx answers and ${errors} errors`);
  const cpuUs = drives.reduce((sum, run) => sum + run.cpuUs, 0);
  const latencies = drives.flatMap((run) => run.latenciesMs).sort((a, b) => a - b);
  const mean = latencies.reduce((sum, value) => sum + value, 0) / Math.max(1, latencies.length);
  return { label, requests, reqPerSec: Math.round(requests / seconds), meanMs: Number(mean.toFixed(2)), p50Ms: percentile(latencies, 0.5), p99Ms: percentile(latencies, 0.99), non2xx, cpuUsPerRequest: Math.round(cpuUs / Math.max(1, requests)) };
}

function summariseWarmUp(label: string, run: Drive): void {
  if (run.non2xx > 0 || run.errors > 0) throw new Error(`${label} (warm-up): ${run.non2xx} non-2xx answers and ${run.errors} errors`);
}

/** Drives `url` for `seconds` at `connections` and reports throughput and latency percentiles. */
export async function measure(label: string, options: MeasureOptions): Promise<Measurement> {
  return summarise(label, [await drive(options, options.seconds ?? loadSeconds())]);
}

export type LoadCase = MeasureOptions & { label: string };

/**
 * Measures several cases in alternating slices (A B A B …), `seconds` each in all, so that a change in
 * the machine's load (other processes on a shared machine) falls on every case alike and the ratio
 * between them stays meaningful. Figures merge the slices.
 */
export async function measureInterleaved<T extends LoadCase[]>(cases: [...T], options: { seconds?: number; rounds?: number } = {}): Promise<{ [K in keyof T]: Measurement }> {
  const seconds = options.seconds ?? loadSeconds();
  const rounds = options.rounds ?? Math.max(1, Math.min(5, Math.floor(seconds)));
  // Untimed warm-up: the JIT and the connection pools settle before anything is counted.
  for (const loadCase of cases) summariseWarmUp(loadCase.label, await drive(loadCase, SHORT ? 0.5 : 1));
  const drives: Drive[][] = cases.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (const [index, loadCase] of cases.entries()) drives[index]!.push(await drive(loadCase, seconds / rounds));
  }
  return cases.map((loadCase, index) => summarise(loadCase.label, drives[index]!)) as { [K in keyof T]: Measurement };
}

export function ratioOf(measured: number, baseline: number): number {
  return Number((measured / baseline).toFixed(3));
}

/** The row of a throughput case measured against a same-run baseline, with a minimum ratio. */
export function ratioRow(benchmark: string, measured: Measurement, baseline: Measurement, minimumRatio: number): BenchRow {
  const ratio = ratioOf(measured.reqPerSec, baseline.reqPerSec);
  return {
    benchmark,
    case: measured.label,
    reqPerSec: measured.reqPerSec,
    p50Ms: measured.p50Ms,
    p99Ms: measured.p99Ms,
    baselineReqPerSec: baseline.reqPerSec,
    ratio,
    target: `≥ ${minimumRatio}`,
    met: ratio >= minimumRatio,
  };
}

export function printTable(title: string, rows: Measurement[]): void {
  console.log(`\n${title}`);
  console.table(rows.map((row) => ({ case: row.label, 'req/s': row.reqPerSec, 'mean ms': row.meanMs, 'p50 ms': row.p50Ms, 'p99 ms': row.p99Ms, requests: row.requests, 'CPU µs/req': row.cpuUsPerRequest })));
}

/** `import.meta.url` of a bench file run directly (`node --import tsx bench/x.bench.ts`). */
export function isMain(moduleUrl: string): boolean {
  return process.argv[1] !== undefined && pathToFileURL(resolve(process.argv[1])).href === moduleUrl;
}
