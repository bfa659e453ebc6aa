import { setTimeout } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { DB } from '../../../src/db/schema.ts';
import { until } from './processes.ts';

const QUIET_MS = 2_000;

/**
 * Waits until no job is running and none is due; resolves with that moment. A job written by a transaction still
 * open at that moment carries the transaction's start as its run_at and is not visible yet: the queue counts as
 * drained only when it still looks so QUIET_MS later (such a job then shows as due, and the wait goes on).
 */
export async function jobQueueDrained(db: Kysely<DB>, timeoutMs: number): Promise<Date> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const at = await until('the job queue to drain', () => emptyAt(db), Math.max(deadline - Date.now(), 1), 250);
    await setTimeout(QUIET_MS);
    if (await emptyAt(db)) return at;
  }
}

async function emptyAt(db: Kysely<DB>): Promise<Date | undefined> {
  const now = new Date();
  const left = await db
    .selectFrom('jobs')
    .select('id')
    .where((eb) =>
      eb.or([eb('status', '=', 'running'), eb.and([eb('status', '=', 'queued'), eb('run_at', '<=', now)])]),
    )
    .execute();
  return left.length === 0 ? now : undefined;
}
