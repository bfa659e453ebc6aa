/**
 * Memory under sustained mixed load: a real `checkout serve` process on PostgreSQL, its resident memory
 * (VmRSS) after 1 minute against after 5 minutes; it passes when the later figure has not grown by more
 * than 10% over the earlier one. BENCH_SHORT=1 (and the CI test): 20 s against 60 s, after 30 s of
 * warm-up, since a fresh process spends its first minute sizing its heap.
 * `DATABASE_URL=postgres://… npm run bench -- memory`.
 */
import { ADMIN_DATABASE_URL, isMain, requirePostgres, type BenchResult } from './harness.ts';
import { SHORT } from './load.ts';
import { runMemoryLoad, type MemoryRunOptions } from './memory-load.ts';

const BENCHMARK = 'memory';
export const MAX_RSS_DRIFT = 0.1;

export const LONG_RUN = {
  warmUpSeconds: 0,
  firstAtSeconds: 60,
  totalSeconds: 300,
  windowSeconds: 60,
  sampleEverySeconds: 3,
  concurrency: 4,
} as const;
export const SHORT_RUN = {
  warmUpSeconds: 30,
  firstAtSeconds: 20,
  totalSeconds: 60,
  windowSeconds: 20,
  sampleEverySeconds: 2,
  concurrency: 4,
} as const;

/** Growth is what the check guards against: a fall (the heap shrinking after its first sizing) passes. */
export function withinDrift(ratio: number): boolean {
  return ratio <= 1 + MAX_RSS_DRIFT;
}

export async function run(options: Partial<MemoryRunOptions> = {}): Promise<BenchResult> {
  requirePostgres();
  const plan = { ...(SHORT ? SHORT_RUN : LONG_RUN), adminDatabaseUrl: ADMIN_DATABASE_URL, ...options };
  const report = await runMemoryLoad(plan);
  console.log(
    `\nAPI process RSS under mixed load (${report.requestsPerSecond} req/s: ${JSON.stringify(report.requests)})`,
  );
  console.table(report.samples.filter((_, i) => i % Math.max(1, Math.round(report.samples.length / 20)) === 0));
  console.log(
    `RSS ${report.rssFirstMb.toFixed(1)} MB at ${plan.firstAtSeconds} s, ${report.rssLastMb.toFixed(1)} MB at ${plan.totalSeconds} s: ratio ${report.ratio} (within ${MAX_RSS_DRIFT * 100}%: ${withinDrift(report.ratio) ? 'yes' : 'NO'})`,
  );
  return {
    benchmark: BENCHMARK,
    rows: [
      {
        benchmark: BENCHMARK,
        case: `API process RSS ${report.rssFirstMb.toFixed(1)} MB at ${plan.firstAtSeconds} s → ${report.rssLastMb.toFixed(1)} MB at ${plan.totalSeconds} s (mixed load)`,
        reqPerSec: report.requestsPerSecond,
        p50Ms: report.p50Ms,
        p99Ms: report.p99Ms,
        ratio: report.ratio,
        target: `≤ ${1 + MAX_RSS_DRIFT} (at most 10% growth)`,
        met: withinDrift(report.ratio),
      },
    ],
    notes: [
      `memory: \`checkout serve\` (worker included), gateway sandboxes in a process of their own; ${plan.concurrency} request loops of payment plans, orders list, Pix and card payments and sandbox-delivered Pix webhooks${plan.warmUpSeconds ? ` after ${plan.warmUpSeconds} s of warm-up` : ''}; VmRSS sampled every ${plan.sampleEverySeconds} s; each mark takes the reading right after the last major garbage collection before it (the process's own /metrics count them), since between collections the heap swings by more than the tolerance; ratio = later / earlier`,
    ],
  };
}

if (isMain(import.meta.url)) await run();
