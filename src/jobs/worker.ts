import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Database } from '../db/database.ts';
import {
  claimFairShare,
  claimReadyJobs,
  deferClaimedJob,
  markJobDead,
  markJobDone,
  reclaimExpiredLeases,
  requeueJob,
  type JobClaim,
  type JobRow,
} from '../queue/jobs.repo.ts';
import { DEFAULT_LANES, LANE_NAMES, type LaneName, type LaneSettings } from '../queue/lanes.ts';
import { onJobsDue } from '../queue/wake.ts';
import {
  JobDeferral,
  type DeadJobHandler,
  type Job,
  type JobHandler,
  type WorkerLogger,
} from '../queue/job-handler.ts';

export type WorkerOptions = {
  database: Database;
  handlers: Record<string, JobHandler>;
  /** Per job type, what to do when such a job is dead. */
  deadJobHandlers?: Record<string, DeadJobHandler>;
  logger: WorkerLogger;
  workerId?: string;
  pollIntervalMs?: number;
  /** Jobs of the core lane claimed per run; they run concurrently, so this is also that lane's concurrency. */
  batchSize?: number;
  /** Per lane, settings replacing the defaults of lanes.ts (the core lane's concurrency is `batchSize`). */
  lanes?: Partial<Record<LaneName, Partial<LaneSettings>>>;
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

type Lane = {
  name: LaneName;
  settings: LaneSettings;
  wake: (() => void) | undefined;
  /** A nudge that came while no sleep was in progress: the next sleep is skipped. */
  nudged: boolean;
};

export class Worker {
  readonly workerId: string;
  private readonly database: Database;
  private readonly handlers: Record<string, JobHandler>;
  private readonly deadJobHandlers: Record<string, DeadJobHandler>;
  private readonly logger: WorkerLogger;
  private readonly pollIntervalMs: number;
  private readonly lanes: Lane[];
  private readonly leaseMs: number;
  private readonly clock: () => Date;
  private readonly onTick: (() => Promise<unknown>) | undefined;
  private readonly types: string[] | undefined;
  private loops: Promise<void>[] | undefined;
  private stopping = false;
  private unsubscribe: (() => void) | undefined;

  constructor(options: WorkerOptions) {
    this.database = options.database;
    this.handlers = options.handlers;
    this.deadJobHandlers = options.deadJobHandlers ?? {};
    this.workerId = options.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.logger = options.logger.child({ workerId: this.workerId });
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.lanes = LANE_NAMES.map((name) => {
      const settings = { ...DEFAULT_LANES[name], ...options.lanes?.[name] };
      if (name === 'core' && options.batchSize !== undefined) settings.concurrency = options.batchSize;
      return { name, settings, wake: undefined, nudged: false };
    });
    this.leaseMs = options.leaseMs ?? 5 * 60_000;
    this.clock = options.clock ?? (() => new Date());
    this.onTick = options.onTick;
    this.types = options.types;
  }

  /** Reclaims expired leases, then claims one batch of every lane and runs them; returns how many jobs were processed. */
  async runOnce(): Promise<number> {
    await this.reclaim();
    const processed = await Promise.all(this.lanes.map((lane) => this.runLane(lane)));
    return processed.reduce((sum, count) => sum + count, 0);
  }

  private async reclaim(): Promise<void> {
    const reclaimed = await reclaimExpiredLeases(this.database.db, this.clock());
    if (reclaimed.length > 0) this.logger.warn({ reclaimed: reclaimed.length }, 'reclaimed jobs whose lease expired');
    for (const row of reclaimed) if (row.status === 'dead') await this.bury(row, row.last_error ?? 'lease expired');
  }

  /** Claims one batch of the lane (within its fair share, when it has one) and runs it. */
  private async runLane(lane: Lane): Promise<number> {
    const now = this.clock();
    const claim = {
      workerId: this.workerId,
      now,
      lockedUntil: new Date(now.getTime() + this.leaseMs),
      limit: lane.settings.concurrency,
      lane: lane.name,
      ...(this.types ? { types: this.types } : {}),
    };
    const share = lane.settings.fairShare;
    const jobs = share
      ? await claimFairShare(this.database.db, { ...claim, ...share })
      : await claimReadyJobs(this.database.db, claim);
    await Promise.all(jobs.map((job) => this.runJob(job)));
    return jobs.length;
  }

  /**
   * Polls every lane in its own loop until `stop()`; a full batch is followed at once by the next, errors are
   * logged and the loop goes on. Jobs announced due in this process (`announceJobsDue`) wake the loops before
   * their poll interval ends. The core lane's loop also reclaims expired leases and runs `onTick`.
   */
  start(): void {
    if (this.loops) return;
    this.stopping = false;
    this.unsubscribe = onJobsDue(() => this.nudge());
    this.loops = this.lanes.map((lane) => this.poll(lane));
  }

  /** Resolves once the batches in progress have finished. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    for (const lane of this.lanes) lane.wake?.();
    await Promise.all(this.loops ?? []);
    this.loops = undefined;
  }

  /** Runs the next batches now instead of after the poll interval; a nudge during a batch runs another one after it. */
  nudge(): void {
    for (const lane of this.lanes) {
      if (lane.wake) lane.wake();
      else lane.nudged = true;
    }
  }

  private async poll(lane: Lane): Promise<void> {
    const core = lane.name === 'core';
    while (!this.stopping) {
      let processed = 0;
      if (core) {
        try {
          await this.onTick?.();
        } catch (error) {
          this.logger.error({ err: error }, 'worker tick hook failed');
        }
      }
      // Jobs announced before this point are seen by this run's claim; a later nudge runs another batch.
      lane.nudged = false;
      try {
        if (core) await this.reclaim();
        processed = await this.runLane(lane);
      } catch (error) {
        this.logger.error({ err: error, lane: lane.name }, 'worker run failed');
      }
      if (processed < lane.settings.concurrency) await this.sleep(lane, this.pollIntervalMs);
    }
  }

  private sleep(lane: Lane, ms: number): Promise<void> {
    if (this.stopping || lane.nudged) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => lane.wake?.(), ms);
      lane.wake = () => {
        clearTimeout(timer);
        lane.wake = undefined;
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
      if (failure instanceof JobDeferral) {
        const runAt = new Date(now.getTime() + failure.delayMs);
        await this.record(
          log,
          () => deferClaimedJob(db, claim, runAt, error),
          'info',
          'job deferred, no attempt spent',
          {
            reason: error,
            runAt,
          },
        );
        return;
      }
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
      await handler(jobOf(row), { database: this.database, error, logger: this.logger });
    } catch (failure) {
      this.logger.error({ err: failure, jobId: row.id, jobType: row.type }, 'dead-job handler failed');
    }
  }
}

function jobOf(row: JobRow): Job {
  return { id: row.id, type: row.type, payload: row.payload, accountId: row.account_id, attempts: row.attempts };
}
