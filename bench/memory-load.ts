/**
 * A real API process (`node bin/checkout.js serve`, its worker included) on a fresh PostgreSQL database
 * with the demo merchant, the gateway sandboxes in a process of their own (`checkout sandbox`), and a
 * steady mixed load: payment plans, the orders list, Pix and card payments, and Pix confirmations that
 * make the sandbox deliver its real webhook. The API process's resident memory (VmRSS) is sampled
 * throughout. Used by bench/memory.bench.ts (5 minutes) and test/load/memory.test.ts (1 minute).
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createFreshPostgresDatabase } from '../test/support/engines.ts';
import { freePort } from '../test/support/ports.ts';
import { sandboxUrls, start, stop } from './processes.ts';
import { driveMixedLoad, type DemoIds, type MixedLoadCounts } from './memory-mix.ts';

export type MemoryRunOptions = {
  /** Load before the clock of the marks starts (the process's first heap sizing). */
  warmUpSeconds: number;
  /** The first RSS mark is at this many seconds of (measured) load, the second at `totalSeconds`. */
  firstAtSeconds: number;
  totalSeconds: number;
  /** A mark prefers a reading after a major collection within this many seconds before it. */
  windowSeconds: number;
  sampleEverySeconds: number;
  /** Concurrent request loops. */
  concurrency: number;
  adminDatabaseUrl: string;
};

export type MemoryReport = {
  rssFirstMb: number;
  rssLastMb: number;
  /** rssLast / rssFirst. */
  ratio: number;
  /** `majorGcs`: the process's count of major (mark-compact) collections so far, from its /metrics. */
  samples: Array<{ seconds: number; rssMb: number; majorGcs: number; heapUsedMb: number; externalMb: number }>;
  requests: MixedLoadCounts;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
};

async function output(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const child = start(args, env);
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`checkout ${args.join(' ')} exited ${code}: ${text}`);
  return text;
}

async function ready(base: string, child: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 120; attempt++) {
    if (child.exitCode !== null) throw new Error(`checkout serve exited ${child.exitCode}`);
    const ok = await fetch(`${base}/readyz`).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) return;
    await sleep(250);
  }
  throw new Error('checkout serve did not become ready');
}

export function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) / 1024;
}

/**
 * RSS at a mark. Between major collections the heap grows by more than the tolerance (a sawtooth of
 * about ±25% under this load), so a reading taken at a random moment says more about the collector's
 * phase than about retained memory. A mark therefore takes the reading right after the last major
 * collection before it (within `window` seconds if there is one there, else the last one at all): the
 * level a leak raises and a healthy process returns to. With no collection yet, the window's lowest reading.
 */
export function rssAt(samples: MemoryReport['samples'], seconds: number, window: number): number {
  const upToMark = samples.filter((sample) => sample.seconds <= seconds + 0.5);
  const afterCollection = upToMark.filter((sample, i) => i > 0 && sample.majorGcs > upToMark[i - 1]!.majorGcs);
  const recent = afterCollection.filter((sample) => sample.seconds > seconds - window);
  const chosen = recent.at(-1) ?? afterCollection.at(-1);
  if (chosen) return chosen.rssMb;
  const inWindow = upToMark.filter((sample) => sample.seconds > seconds - window).map((sample) => sample.rssMb);
  if (inWindow.length === 0) throw new Error(`no RSS sample near ${seconds} s`);
  return Math.min(...inWindow);
}

/** From the process's own /metrics: its count of major collections, and its JS heap and external memory now. */
async function heapReadings(base: string): Promise<{ majorGcs: number; heapUsedMb: number; externalMb: number }> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const metric = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0);
  const mb = (bytes: number) => Number((bytes / 1024 / 1024).toFixed(1));
  return {
    majorGcs: metric(/^nodejs_gc_duration_seconds_count\{kind="major"\} (\d+)/m),
    heapUsedMb: mb(metric(/^nodejs_heap_size_used_bytes (\d+)/m)),
    externalMb: mb(metric(/^nodejs_external_memory_bytes (\d+)/m)),
  };
}

export async function runMemoryLoad(options: MemoryRunOptions): Promise<MemoryReport> {
  const fresh = await createFreshPostgresDatabase(options.adminDatabaseUrl);
  const [apiPort, sandboxPort] = [await freePort(), await freePort()];
  const base = `http://127.0.0.1:${apiPort}`;
  const env: NodeJS.ProcessEnv = {
    DATABASE_URL: fresh.url,
    MASTER_KEY: randomBytes(32).toString('hex'),
    DATA_DIR: mkdtempSync(join(tmpdir(), 'checkout-memory-')),
    PORT: String(apiPort),
    PUBLIC_URL: base,
    LOG_LEVEL: 'info',
    // One load generator on 127.0.0.1 would otherwise meet the per-IP limits; the limiter still runs.
    RATE_LIMIT_PUBLIC_PER_MINUTE: '100000000',
    RATE_LIMIT_KEY_PER_MINUTE: '100000000',
    RATE_LIMIT_IP_PER_MINUTE: '100000000',
  };
  let sandbox: ChildProcess | undefined;
  let api: ChildProcess | undefined;
  try {
    const demo = JSON.parse(await output(['seed', '--demo', '--json'], env)) as DemoIds;
    sandbox = start(['sandbox', '--port', String(sandboxPort), '--service-url', base], env);
    const gateways = await sandboxUrls(sandbox);
    api = start(['serve'], {
      ...env,
      GATEWAY_A_URL: gateways.gateway_a,
      GATEWAY_B_URL: gateways.gateway_b,
      GATEWAY_C_URL: gateways.gateway_c,
    });
    api.stdout!.resume();
    api.stderr!.resume();
    await ready(base, api);
    const pid = api.pid!;
    const samples: MemoryReport['samples'] = [];
    // Sample times count from the end of the warm-up; warm-up samples get negative times.
    const started = performance.now() + options.warmUpSeconds * 1000;
    // The collection count is read first, so a reading counted as after a collection really is.
    const sample = async () => {
      const heap = await heapReadings(base);
      samples.push({
        seconds: Number(((performance.now() - started) / 1000).toFixed(1)),
        rssMb: Number(rssMb(pid).toFixed(1)),
        ...heap,
      });
    };
    const sampler = setInterval(() => void sample().catch(() => {}), options.sampleEverySeconds * 1000);
    const load = await driveMixedLoad({
      base,
      gatewayA: gateways.gateway_a!,
      demo,
      seconds: options.warmUpSeconds + options.totalSeconds,
      concurrency: options.concurrency,
    });
    clearInterval(sampler);
    await sample();
    const rssFirstMb = rssAt(samples, options.firstAtSeconds, options.windowSeconds);
    const rssLastMb = rssAt(samples, options.totalSeconds, options.windowSeconds);
    return { rssFirstMb, rssLastMb, ratio: Number((rssLastMb / rssFirstMb).toFixed(3)), samples, ...load };
  } finally {
    await stop(api);
    await stop(sandbox);
    await fresh.drop();
  }
}
