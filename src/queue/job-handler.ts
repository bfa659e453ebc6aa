import type { Database } from '../db/database.ts';

/** What a job handler is given and may throw: the contract between the modules that own jobs and the worker. */
export type Job = { id: number; type: string; payload: unknown; accountId: string | null; attempts: number };
export type JobHandler = (job: Job, context: { database: Database }) => Promise<void>;
/**
 * Called once a job of its type is dead (its last attempt failed, or its lease expired with no attempt
 * left), so the module that owns the job can record that the work will not happen by itself.
 */
export type DeadJobHandler = (
  job: Job,
  context: { database: Database; error: string; logger: WorkerLogger },
) => Promise<void>;

type LogFn = (fields: object, message?: string) => void;
/** The subset of pino the worker uses; a pino Logger fits. */
export type WorkerLogger = { info: LogFn; warn: LogFn; error: LogFn; child(bindings: object): WorkerLogger };

/**
 * Thrown by a handler whose job cannot run yet for a reason that is no failure of its own (it waits its turn):
 * the job is queued again `delayMs` from now and the claim's attempt is given back.
 */
export class JobDeferral extends Error {
  constructor(
    readonly delayMs: number,
    reason: string,
  ) {
    super(reason);
    this.name = 'JobDeferral';
  }
}
