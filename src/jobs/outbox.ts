import { insertJob, type Executor } from './jobs.repo.ts';

export type { Executor } from './jobs.repo.ts';

export type EnqueueJobOptions = {
  type: string;
  payload: unknown;
  accountId?: string | null;
  runAt?: Date;
  maxAttempts?: number;
  /** At most one queued or running job holds a key; later enqueues with it are dropped until it finishes. */
  dedupKey?: string;
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
  });
}
