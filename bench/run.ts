/**
 * `npm run bench`: every `bench/*.bench.ts` in turn on PostgreSQL (DATABASE_URL, or the local server as
 * postgres), then BENCHMARKS.md with the machine and one table of all their rows.
 * `npm run bench -- orders` runs only the benchmarks whose file name contains "orders" and prints them
 * (BENCHMARKS.md is written by a full run only). BENCH_SHORT=1 shortens every benchmark (a smoke run).
 * BENCH_OUTPUT=path writes the table there instead of BENCHMARKS.md. BENCH_SKIP=memory,qr leaves out the benchmarks
 * whose file name contains one of those words.
 * The exit code is 1 when a benchmark failed to run; targets not met are reported in the table.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ADMIN_DATABASE_URL, requirePostgres, type BenchResult } from './harness.ts';
import { loadSeconds, SHORT } from './load.ts';
import { describeMachine, renderReport } from './report.ts';

const here = dirname(fileURLToPath(import.meta.url));
const ORDER = ['orders', 'payment-plans', 'payments-pix', 'webhook-ingestion', 'memory'];
const rank = (file: string) => {
  const index = ORDER.indexOf(file.replace(/\.bench\.ts$/, ''));
  return index < 0 ? ORDER.length : index;
};

const only = process.argv.slice(2);
const skipped = (process.env.BENCH_SKIP ?? '').split(',').filter(Boolean);
const files = readdirSync(here)
  .filter((name) => name.endsWith('.bench.ts'))
  .filter((name) => only.length === 0 || only.some((word) => name.includes(word)))
  .filter((name) => !skipped.some((word) => name.includes(word)))
  .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));

requirePostgres();
const machine = await describeMachine(ADMIN_DATABASE_URL);
const results: BenchResult[] = [];
const failures: Array<{ benchmark: string; error: string }> = [];
for (const file of files) {
  console.log(`\n=== ${file}`);
  const benchmark = file.replace(/\.bench\.ts$/, '');
  const module = (await import(pathToFileURL(join(here, file)).href)) as { run?: () => Promise<BenchResult> };
  if (typeof module.run !== 'function') {
    failures.push({ benchmark, error: `${file} exports no run()` });
    continue;
  }
  try {
    const result = await module.run();
    // A benchmark that only prints its figures still ran; the table says where to find them.
    results.push(
      Array.isArray(result?.rows)
        ? result
        : { benchmark, rows: [{ benchmark, case: 'ran; reports to the console only (no table rows)' }] },
    );
  } catch (error) {
    console.error(`${file} failed:`, error);
    failures.push({ benchmark, error: error instanceof Error ? error.message : String(error) });
  }
}

const rows = results.flatMap((result) => result.rows);
console.log('\nSummary');
console.table(
  rows.map((row) => ({
    benchmark: row.benchmark,
    case: row.case.slice(0, 70),
    'req/s': row.reqPerSec,
    ratio: row.ratio,
    target: row.target,
    met: row.met,
  })),
);
for (const failure of failures) console.error(`${failure.benchmark}: FAILED: ${failure.error}`);
if (only.length === 0) {
  const report = renderReport({ machine, results, failures, short: SHORT, seconds: loadSeconds() });
  // BENCH_OUTPUT lets a smoke run (CI) write its table elsewhere and leave the measured BENCHMARKS.md alone.
  const output = process.env.BENCH_OUTPUT || join(here, '..', 'BENCHMARKS.md');
  mkdirSync(dirname(output), { recursive: true });
  writeFileSync(output, report);
  console.log(`\nwrote ${output}`);
}
process.exitCode = failures.length ? 1 : 0;
