import { insertJob, type Executor } from './jobs.repo.ts';
import type { LaneName } from './lanes.ts';

export type { Executor } from './jobs.repo.ts';

export type EnqueueJobOptions = {
  type: string;
  payload: unknown;
  accountId?: string | null;
  runAt?: Date;
  maxAttempts?: number;
  /** At most one queued or running job holds a key; later enqueues with it are dropped until it finishes. */
  dedupKey?: string;
  /** The lane that runs it (default `core`, the jobs that move money); see lanes.ts. */
  lane?: LaneName;
  /** Jobs sharing a key are limited together within their lane (a delivery's endpoint). */
  concurrencyKey?: string;
};

/**
 * Writes a job through `executor`; pass the transaction that causes the side effect so both commit or neither does.
 * Returns false when a live job already holds `dedupKey`.
 */
export function enqueueJob(executor: Executor, options: EnqueueJobOptions): Promise<boolean> {
  return insertJob(executor, {
    type: options.type,
    payload: options.payload,
    accountId: options.accountId ?? null,
    runAt: options.runAt,
    maxAttempts: options.maxAttempts,
    dedupKey: options.dedupKey ?? null,
    lane: options.lane ?? 'core',
    concurrencyKey: options.concurrencyKey ?? null,
  });
}
