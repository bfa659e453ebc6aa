import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Database } from '../db/database.ts';
import {
  claimReadyJobs,
  markJobDead,
  markJobDone,
  reclaimExpiredLeases,
  requeueJob,
  type JobClaim,
  type JobRow,
} from './jobs.repo.ts';
import { onJobsDue } from './wake.ts';

export type Job = { id: number; type: string; payload: unknown; accountId: string | null; attempts: number };
export type JobHandler = (job: Job, context: { database: Database }) => Promise<void>;
/**
 * Called once a job of its type is dead (its last attempt failed, or its lease expired with no attempt
 * left), so the module that owns the job can record that the work will not happen by itself.
 */
export type DeadJobHandler = (job: Job, context: { database: Database; error: string }) => Promise<void>;

type LogFn = (fields: object, message?: string) => void;
/** The subset of pino the worker uses; a pino Logger fits. */
export type WorkerLogger = { info: LogFn; warn: LogFn; error: LogFn; child(bindings: object): WorkerLogger };

export type WorkerOptions = {
  database: Database;
  handlers: Record<string, JobHandler>;
  /** Per job type, what to do when such a job is dead. */
  deadJobHandlers?: Record<string, DeadJobHandler>;
  logger: WorkerLogger;
  workerId?: string;
  pollIntervalMs?: number;
  /** Jobs claimed per run; they run concurrently, so this is also the worker's concurrency. */
  batchSize?: number;
  /** A job still running after this long is presumed lost and handed to another worker. */
  leaseMs?: number;
  clock?: () => Date;
  /** Called before every run of the `start()` loop, e.g. to schedule recurring jobs. */
  onTick?: () => Promise<unknown>;
  /** Only jobs of these types are claimed (default: every type). */
  types?: string[];
};

const MAX_ERROR_LENGTH = 1000;
const BASE_BACKOFF_MS = 5_000;
const MAX_BACKOFF_MS = 60 * 60_000;

// Deterministic (no jitter) so tests can step the clock: min(5s * 2^(attempts - 1), 1h).
export function retryDelayMs(attempts: number): number {
  return Math.min(BASE_BACKOFF_MS * 2 ** Math.max(attempts - 1, 0), MAX_BACKOFF_MS);
}

export class Worker {
  readonly workerId: string;
  private readonly database: Database;
  private readonly handlers: Record<string, JobHandler>;
  private readonly deadJobHandlers: Record<string, DeadJobHandler>;
  private readonly logger: WorkerLogger;
  private readonly pollIntervalMs: number;
  private readonly batchSize: number;
  private readonly leaseMs: number;
  private readonly clock: () => Date;
  private readonly onTick: (() => Promise<unknown>) | undefined;
  private readonly types: string[] | undefined;
  private loop: Promise<void> | undefined;
  private stopping = false;
  private wake: (() => void) | undefined;
  /** A nudge that came while no sleep was in progress: the next sleep is skipped. */
  private nudged = false;
  private unsubscribe: (() => void) | undefined;

  constructor(options: WorkerOptions) {
    this.database = options.database;
    this.handlers = options.handlers;
    this.deadJobHandlers = options.deadJobHandlers ?? {};
    this.workerId = options.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.logger = options.logger.child({ workerId: this.workerId });
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.batchSize = options.batchSize ?? 10;
    this.leaseMs = options.leaseMs ?? 5 * 60_000;
    this.clock = options.clock ?? (() => new Date());
    this.onTick = options.onTick;
    this.types = options.types;
  }

  /** Reclaims expired leases, claims one batch and runs it; returns how many jobs were processed. */
  async runOnce(): Promise<number> {
    const db = this.database.db;
    const reclaimed = await reclaimExpiredLeases(db, this.clock());
    if (reclaimed.length > 0) this.logger.warn({ reclaimed: reclaimed.length }, 'reclaimed jobs whose lease expired');
    for (const row of reclaimed) if (row.status === 'dead') await this.bury(row, row.last_error ?? 'lease expired');
    const now = this.clock();
    const jobs = await claimReadyJobs(db, {
      workerId: this.workerId,
      now,
      lockedUntil: new Date(now.getTime() + this.leaseMs),
      limit: this.batchSize,
      ...(this.types ? { types: this.types } : {}),
    });
    await Promise.all(jobs.map((job) => this.runJob(job)));
    return jobs.length;
  }

  /**
   * Polls until `stop()`; a full batch is followed at once by the next, errors are logged and the loop goes on.
   * Jobs announced due in this process (`announceJobsDue`) wake it before its poll interval ends.
   */
  start(): void {
    if (this.loop) return;
    this.stopping = false;
    this.unsubscribe = onJobsDue(() => this.nudge());
    this.loop = this.poll();
  }

  /** Resolves once the batch in progress has finished. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.wake?.();
    await this.loop;
    this.loop = undefined;
  }

  /** Runs the next batch now instead of after the poll interval; a nudge during a batch runs another one after it. */
  nudge(): void {
    if (this.wake) this.wake();
    else this.nudged = true;
  }

  private async poll(): Promise<void> {
    while (!this.stopping) {
      let processed = 0;
      try {
        await this.onTick?.();
      } catch (error) {
        this.logger.error({ err: error }, 'worker tick hook failed');
      }
      // Jobs announced before this point are seen by this run's claim; a later nudge runs another batch.
      this.nudged = false;
      try {
        processed = await this.runOnce();
      } catch (error) {
        this.logger.error({ err: error }, 'worker run failed');
      }
      if (processed < this.batchSize) await this.sleep(this.pollIntervalMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopping || this.nudged) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.wake?.(), ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
    });
  }

  private async runJob(row: JobRow): Promise<void> {
    const claim: JobClaim = { id: row.id, attempts: row.attempts, workerId: this.workerId };
    const log = this.logger.child({ jobId: row.id, jobType: row.type, attempt: row.attempts });
    const db = this.database.db;
    try {
      const handler = this.handlers[row.type];
      if (!handler) throw new Error(`no handler for job type "${row.type}"`);
      await handler(jobOf(row), { database: this.database });
    } catch (failure) {
      const error = (failure instanceof Error ? failure.message : String(failure)).slice(0, MAX_ERROR_LENGTH);
      const now = this.clock();
      if (row.attempts >= row.max_attempts) {
        const dead = await this.record(
          log,
          () => markJobDead(db, claim, now, error),
          'error',
          'job dead after its last attempt',
          { error },
        );
        if (dead) await this.bury(row, error);
        return;
      }
      const retryAt = new Date(now.getTime() + retryDelayMs(row.attempts));
      await this.record(log, () => requeueJob(db, claim, retryAt, error), 'warn', 'job failed, retry scheduled', {
        error,
        retryAt,
      });
      return;
    }
    await this.record(log, () => markJobDone(db, claim, this.clock()), 'info', 'job done');
  }

  /** Writes an outcome and logs it with the job's id and type (bound in `log`), never its payload; true when written. */
  private async record(
    log: WorkerLogger,
    write: () => Promise<boolean>,
    level: 'info' | 'warn' | 'error',
    outcome: string,
    fields: object = {},
  ): Promise<boolean> {
    try {
      if (await write()) {
        log[level](fields, outcome);
        return true;
      }
      log.warn(fields, `${outcome}: discarded, the lease was lost to another claim`);
    } catch (error) {
      // Left running: the lease expires and the job runs again.
      log.error({ err: error }, `could not record outcome: ${outcome}`);
    }
    return false;
  }

  /** Runs the dead-job handler of the job's type; a failure of the handler is logged, and the job stays dead. */
  private async bury(row: JobRow, error: string): Promise<void> {
    const handler = this.deadJobHandlers[row.type];
    if (!handler) return;
    try {
      await handler(jobOf(row), { database: this.database, error });
    } catch (failure) {
      this.logger.error({ err: failure, jobId: row.id, jobType: row.type }, 'dead-job handler failed');
    }
  }
}

function jobOf(row: JobRow): Job {
  return { id: row.id, type: row.type, payload: row.payload, accountId: row.account_id, attempts: row.attempts };
}
