/**
 * Load generation and measurement. A `Load` is something that can be driven for some seconds: HTTP
 * requests through autocannon, or a loop of any async work (a raw SQL baseline) at a fixed concurrency.
 * The load generator runs in the benchmark's own process, alongside the server under test; every case
 * of a comparison shares that cost alike, which is why benchmarks report ratios to a same-run baseline.
 */
import autocannon from 'autocannon';

/** BENCH_SHORT=1: every benchmark runs briefly (a smoke run); the figures are then indicative only. */
export const SHORT = process.env.BENCH_SHORT === '1' || process.env.BENCH_SHORT === 'true';

/** Seconds of load per measured case: BENCH_SECONDS, else 5 (2 in short mode). */
export function loadSeconds(): number {
  const fromEnv = Number(process.env.BENCH_SECONDS);
  return Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : SHORT ? 2 : 5;
}

/** `cpuUsPerRequest`: this process's CPU time per request (server and load generator together), a figure other processes' load barely moves. */
export type Measurement = {
  label: string;
  requests: number;
  reqPerSec: number;
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
  cpuUsPerRequest: number;
};

export type Drive = { requests: number; seconds: number; latenciesMs: number[]; failures: number; cpuUs: number };

export type Load = { label: string; drive(seconds: number): Promise<Drive> };

export type HttpRequestShape = { method: string; path: string; headers: Record<string, string>; body?: string };

export type HttpLoadOptions = {
  url: string;
  headers?: Record<string, string>;
  connections?: number;
  method?: 'GET' | 'POST';
  body?: string;
  /** Rewrites each request (a unique body, a fresh signature); autocannon's `requests[].setupRequest`. */
  setupRequest?: (request: HttpRequestShape) => HttpRequestShape;
};

/** HTTP requests at `connections` concurrent connections; any non-2xx answer counts as a failure. */
export function httpLoad(label: string, options: HttpLoadOptions): Load {
  return {
    label,
    drive: (seconds) => {
      const latenciesMs: number[] = [];
      const cpuBefore = process.cpuUsage();
      return new Promise((resolve, reject) => {
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
            resolve({
              requests: result.requests.total,
              seconds: result.duration,
              latenciesMs,
              failures: result.non2xx + result.errors,
              cpuUs: cpu.user + cpu.system,
            });
          },
        );
        instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTimeMs: number) =>
          latenciesMs.push(responseTimeMs),
        );
      });
    },
  };
}

/** `iteration` run back to back by `concurrency` loops; a rejected iteration counts as a failure. */
export function loopLoad(label: string, concurrency: number, iteration: () => Promise<void>): Load {
  return {
    label,
    drive: async (seconds) => {
      const latenciesMs: number[] = [];
      let failures = 0;
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      const until = started + seconds * 1000;
      const loop = async () => {
        while (performance.now() < until) {
          const begun = performance.now();
          try {
            await iteration();
            latenciesMs.push(performance.now() - begun);
          } catch {
            failures++;
          }
        }
      };
      await Promise.all(Array.from({ length: concurrency }, loop));
      const cpu = process.cpuUsage(cpuBefore);
      return {
        requests: latenciesMs.length,
        seconds: (performance.now() - started) / 1000,
        latenciesMs,
        failures,
        cpuUs: cpu.user + cpu.system,
      };
    },
  };
}

function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return 0;
  return Number(sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!.toFixed(2));
}

function summarise(label: string, drives: Drive[]): Measurement {
  const requests = drives.reduce((sum, run) => sum + run.requests, 0);
  const seconds = drives.reduce((sum, run) => sum + run.seconds, 0);
  const failures = drives.reduce((sum, run) => sum + run.failures, 0);
  // A benchmark of error answers measures nothing: refuse it loudly.
  if (failures > 0) throw new Error(`${label}: ${failures} failed requests (non-2xx or errors)`);
  const cpuUs = drives.reduce((sum, run) => sum + run.cpuUs, 0);
  const latencies = drives.flatMap((run) => run.latenciesMs).sort((a, b) => a - b);
  const mean = latencies.reduce((sum, value) => sum + value, 0) / Math.max(1, latencies.length);
  return {
    label,
    requests,
    reqPerSec: Math.round(requests / seconds),
    meanMs: Number(mean.toFixed(2)),
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    cpuUsPerRequest: Math.round(cpuUs / Math.max(1, requests)),
  };
}

/** Drives one load for `seconds` and reports throughput and latency percentiles. */
export async function measure(load: Load, seconds = loadSeconds()): Promise<Measurement> {
  return summarise(load.label, [await load.drive(seconds)]);
}

/**
 * Measures several loads in alternating slices (A B A B …), `seconds` each in all, after an untimed
 * warm-up of each, so that a change in the machine's load (other processes on a shared machine) falls
 * on every case alike and the ratio between them stays meaningful. Figures merge the slices.
 */
export async function measureInterleaved<T extends Load[]>(
  loads: [...T],
  options: { seconds?: number; rounds?: number } = {},
): Promise<{ [K in keyof T]: Measurement }> {
  const seconds = options.seconds ?? loadSeconds();
  const rounds = options.rounds ?? Math.max(1, Math.min(5, Math.floor(seconds)));
  for (const load of loads) summarise(`${load.label} (warm-up)`, [await load.drive(SHORT ? 0.5 : 1)]);
  const drives: Drive[][] = loads.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (const [index, load] of loads.entries()) drives[index]!.push(await load.drive(seconds / rounds));
  }
  return loads.map((load, index) => summarise(load.label, drives[index]!)) as { [K in keyof T]: Measurement };
}

export function printTable(title: string, rows: Measurement[]): void {
  console.log(`\n${title}`);
  console.table(
    rows.map((row) => ({
      case: row.label,
      'req/s': row.reqPerSec,
      'mean ms': row.meanMs,
      'p50 ms': row.p50Ms,
      'p99 ms': row.p99Ms,
      requests: row.requests,
      'CPU µs/req': row.cpuUsPerRequest,
    })),
  );
}
