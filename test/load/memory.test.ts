import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MAX_RSS_DRIFT, SHORT_RUN, withinDrift } from '../../bench/memory.bench.ts';
import { runMemoryLoad } from '../../bench/memory-load.ts';

const url = process.env.DATABASE_URL;
if (!url && process.env.CI === 'true')
  throw new Error('CI=true but DATABASE_URL is not set: the memory test needs PostgreSQL');

/**
 * The short variant of `npm run bench -- memory`: a real `checkout serve` process under mixed load
 * (payment plans, orders, Pix and card payments, sandbox-delivered webhooks) for 90 s, its RSS at
 * 60 s of load no more than 10% above its RSS at 20 s (both after 30 s of warm-up). A run over the limit is
 * measured once more, and the second run decides.
 */
describe(
  'API process memory under sustained mixed load',
  { skip: url ? false : 'needs DATABASE_URL (PostgreSQL)', timeout: 360_000 },
  () => {
    test(`RSS after ${SHORT_RUN.totalSeconds} s of load stays within ${MAX_RSS_DRIFT * 100}% of its value after ${SHORT_RUN.firstAtSeconds} s`, async () => {
      let report = await runMemoryLoad({ ...SHORT_RUN, adminDatabaseUrl: url! });
      if (!withinDrift(report.ratio)) {
        // One run's RSS on a shared 2-core machine moves with the allocator (seen once: +10.6% with the post-GC heap
        // flat); a leak grows in a second run too, so only a second run over the limit fails.
        console.error(
          `first run over the limit (ratio ${report.ratio}); measuring again. Samples: ${JSON.stringify(report.samples)}`,
        );
        report = await runMemoryLoad({ ...SHORT_RUN, adminDatabaseUrl: url! });
      }
      const { requests } = report;
      for (const [kind, count] of Object.entries(requests)) assert.ok(count > 0, `${kind}: the mix ran it`);
      assert.ok(
        report.samples.length >= (SHORT_RUN.warmUpSeconds + SHORT_RUN.totalSeconds) / SHORT_RUN.sampleEverySeconds - 2,
        `${report.samples.length} RSS samples`,
      );
      assert.ok(report.rssFirstMb > 20, `a plausible RSS: ${report.rssFirstMb} MB`);
      assert.ok(
        withinDrift(report.ratio),
        `RSS ${report.rssFirstMb} MB at ${SHORT_RUN.firstAtSeconds} s grew to ${report.rssLastMb} MB at ${SHORT_RUN.totalSeconds} s (ratio ${report.ratio}); samples: ${JSON.stringify(report.samples)}`,
      );
    });
  },
);
