import autocannon from 'autocannon';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import type { Database } from '../src/db/database.ts';
import { openDatabase } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { createLogger } from '../src/lib/logger.ts';
import { createFreshPostgresDatabase } from '../test/support/engines.ts';
import { testConfig } from '../test/support/app.ts';

export const ADMIN_DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

export type Measurement = { label: string; requests: number; reqPerSec: number; meanMs: number; p50Ms: number; p99Ms: number; non2xx: number };

/** A migrated PostgreSQL database of its own; benchmarks never run on the embedded engine. */
export async function freshBenchDatabase(): Promise<{ database: Database; drop(): Promise<void> }> {
  const fresh = await createFreshPostgresDatabase(ADMIN_DATABASE_URL);
  const database = await openDatabase({ engine: 'postgres', url: fresh.url, poolSize: 20 });
  await migrate(database);
  return {
    database,
    drop: async () => {
      await database.close();
      // BENCH_KEEP_DB=1 keeps the loaded database for EXPLAIN sessions.
      if (process.env.BENCH_KEEP_DB === '1') console.log(`kept database: ${fresh.url}`);
      else await fresh.drop();
    },
  };
}

export async function listenApp(database: Database): Promise<{ app: FastifyInstance; url: string }> {
  const app = await buildApp({ config: testConfig(), database, logger: createLogger('silent') });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url };
}

/** Drives `url` for `seconds` at `connections` and reports throughput and latency percentiles. */
export async function measure(label: string, options: { url: string; headers?: Record<string, string>; seconds?: number; connections?: number; method?: 'GET' | 'POST'; body?: string }): Promise<Measurement> {
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    duration: options.seconds ?? 5,
    connections: options.connections ?? 10,
  });
  // A benchmark of error answers measures nothing: refuse it loudly.
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${label}: ${result.non2xx} non-2xx answers and ${result.errors} errors`);
  return {
    label,
    requests: result.requests.total,
    reqPerSec: Math.round(result.requests.average),
    meanMs: Number(result.latency.average.toFixed(2)),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
  };
}

export function printTable(title: string, rows: Measurement[]): void {
  console.log(`\n${title}`);
  console.table(rows.map((row) => ({ case: row.label, 'req/s': row.reqPerSec, 'mean ms': row.meanMs, 'p50 ms': row.p50Ms, 'p99 ms': row.p99Ms, requests: row.requests, 'non-2xx': row.non2xx })));
}
