import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
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
import type { Measurement } from './load.ts';

export const ADMIN_DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

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
export async function freshBenchDatabase(
  poolSize = 20,
): Promise<{ database: Database; url: string; drop(): Promise<void> }> {
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
  const app = await buildApp({
    config,
    database,
    logger: productionLogger(config.logLevel),
    ...(options.gatewayUrls ? { gatewayUrls: options.gatewayUrls } : {}),
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url, config };
}

export function ratioOf(measured: number, baseline: number): number {
  return Number((measured / baseline).toFixed(3));
}

/** The row of a throughput case measured against a same-run baseline, with a minimum ratio. */
export function ratioRow(
  benchmark: string,
  measured: Measurement,
  baseline: Measurement,
  minimumRatio: number,
): BenchRow {
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

/** `import.meta.url` of a bench file run directly (`node --import tsx bench/x.bench.ts`). */
export function isMain(moduleUrl: string): boolean {
  return process.argv[1] !== undefined && pathToFileURL(resolve(process.argv[1])).href === moduleUrl;
}
