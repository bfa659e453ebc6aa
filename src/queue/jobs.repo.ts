import {
  sql,
  type Kysely,
  type OnConflictBuilder,
  type QueryCreator,
  type Selectable,
  type SelectQueryBuilder,
  type Transaction,
} from 'kysely';
import type { DB, Jobs } from '../db/schema.ts';
import type { LaneName } from './lanes.ts';

/** A pool handle or an open transaction: an outbox row is written by whichever caused it. */
export type Executor = Kysely<DB> | Transaction<DB>;
export type JobRow = Selectable<Jobs>;
/** One claim of one job: each claim increments attempts, so (worker, attempts) names it uniquely. */
export type JobClaim = { id: number; attempts: number; workerId: string };

export type NewJob = {
  type: string;
  payload: unknown;
  accountId: string | null;
  runAt: Date | undefined;
  maxAttempts: number | undefined;
  dedupKey: string | null;
  lane: LaneName;
  concurrencyKey: string | null;
};

/** Inserts a job; with a dedup key, does nothing while a live job holds the key. Returns whether a row was written. */
export async function insertJob(executor: Executor, job: NewJob): Promise<boolean> {
  const rows = await executor
    .insertInto('jobs')
    .values({
      type: job.type,
      // Stringified here: pg would send a top-level array as a PostgreSQL array literal.
      payload: JSON.stringify(job.payload ?? {}),
      account_id: job.accountId,
      // The application clock, not SQL now(): workers compare run_at with their own millisecond clock,
      // and a microsecond database timestamp could land just after a claim made in the same millisecond.
      run_at: job.runAt ?? new Date(),
      max_attempts: job.maxAttempts,
      dedup_key: job.dedupKey,
      lane: job.lane,
      concurrency_key: job.concurrencyKey,
    })
    .onConflict(skipWhileLive)
    .returning('id')
    .execute();
  return rows.length > 0;
}

// The predicate repeats jobs_dedup_idx verbatim (no parameters) so PostgreSQL can always infer the partial index.
const skipWhileLive = (oc: OnConflictBuilder<DB, 'jobs'>) =>
  oc
    .column('dedup_key')
    .where(sql<boolean>`dedup_key IS NOT NULL AND status IN ('queued', 'running')`)
    .doNothing();

/**
 * One job per row of `source`, a CTE of the same statement (rows it inserts), with the dedup rule of
 * `insertJob`: `source` gives each job's payload (jsonb) and dedup key, the rest is the same for all.
 */
export function insertJobsFrom(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the CTEs in scope differ per statement
  db: QueryCreator<any>,
  job: { type: string; accountId: string | null; runAt: Date },
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
  source: SelectQueryBuilder<any, any, { payload: unknown; dedup_key: string | null }>,
) {
  const creator = db as QueryCreator<DB>;
  return creator
    .insertInto('jobs')
    .columns(['type', 'payload', 'account_id', 'run_at', 'dedup_key'])
    .expression(
      creator
        .selectFrom(source.as('due'))
        .select([
          sql<string>`${job.type}::text`.as('type'),
          sql.ref<string>('due.payload').as('payload'),
          sql<string | null>`${job.accountId}::uuid`.as('account_id'),
          sql<Date>`${job.runAt}::timestamptz`.as('run_at'),
          sql.ref<string | null>('due.dedup_key').as('dedup_key'),
        ]),
    )
    .onConflict(skipWhileLive);
}

export type ClaimOptions = {
  workerId: string;
  now: Date;
  lockedUntil: Date;
  limit: number;
  /** Default `core`. */
  lane?: LaneName;
  types?: string[];
};

/** Claims up to `limit` due jobs of a lane, longest due first. */
export function claimReadyJobs(db: Kysely<DB>, options: ClaimOptions): Promise<JobRow[]> {
  const types = options.types;
  return db
    .updateTable('jobs')
    .set((eb) => ({
      status: 'running',
      attempts: eb('attempts', '+', 1),
      locked_by: options.workerId,
      locked_until: options.lockedUntil,
    }))
    .where((eb) =>
      eb(
        'id',
        'in',
        eb
          .selectFrom('jobs')
          .select('id')
          .where('lane', '=', options.lane ?? 'core')
          .where('status', '=', 'queued')
          .where('run_at', '<=', options.now)
          .$if(types !== undefined, (qb) => qb.where('type', 'in', types!))
          .orderBy('run_at')
          .orderBy('id')
          .limit(options.limit)
          .forUpdate()
          .skipLocked(),
      ),
    )
    .returningAll()
    .execute();
}

/** How many jobs of one lane may run at once per account, and per concurrency key (a delivery's endpoint). */
export type FairShare = { perAccount: number; perKey: number };
/** Due jobs looked at per fair claim: fairness holds among the longest due of them. */
const FAIR_CLAIM_WINDOW = 2_000;

/**
 * Claims like `claimReadyJobs`, within the running limits of `share` (counting the jobs every worker runs), and
 * round-robin across accounts: each account's first eligible job, then each one's second, and so on. Claims of a
 * lane are serialised by an advisory lock, so two workers cannot both take an endpoint's last free place.
 */
export function claimFairShare(db: Kysely<DB>, options: ClaimOptions & FairShare): Promise<JobRow[]> {
  const lane = options.lane ?? 'core';
  const typeFilter =
    options.types === undefined ? sql`` : sql`AND type IN (${sql.join(options.types.map((type) => sql`${type}`))})`;
  return db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(hashtext('jobs.lane'), hashtext(${lane}))`.execute(trx);
    // A new statement, so its snapshot sees the claims committed by whoever held the lock before.
    const claimed = await sql<JobRow>`
      WITH running AS (
        SELECT account_id, concurrency_key FROM jobs WHERE status = 'running' AND lane = ${lane}
      ),
      candidates AS (
        SELECT id, account_id, concurrency_key, run_at FROM jobs
        WHERE status = 'queued' AND lane = ${lane} AND run_at <= ${options.now} ${typeFilter}
        ORDER BY run_at, id
        LIMIT ${FAIR_CLAIM_WINDOW}
      ),
      by_key AS (
        SELECT c.*,
          row_number() OVER (PARTITION BY c.concurrency_key ORDER BY c.run_at, c.id)
            + (SELECT count(*) FROM running r WHERE r.concurrency_key = c.concurrency_key) AS key_place
        FROM candidates c
      ),
      by_account AS (
        SELECT k.id, k.run_at,
          row_number() OVER (PARTITION BY k.account_id ORDER BY k.run_at, k.id)
            + (SELECT count(*) FROM running r WHERE r.account_id IS NOT DISTINCT FROM k.account_id) AS account_place
        FROM by_key k
        WHERE k.concurrency_key IS NULL OR k.key_place <= ${options.perKey}
      ),
      chosen AS (
        SELECT id FROM by_account
        WHERE account_place <= ${options.perAccount}
        ORDER BY account_place, run_at, id
        LIMIT ${options.limit}
      )
      UPDATE jobs
      SET status = 'running', attempts = attempts + 1, locked_by = ${options.workerId},
          locked_until = ${options.lockedUntil}
      WHERE id IN (SELECT id FROM jobs WHERE id IN (SELECT id FROM chosen) AND status = 'queued' FOR UPDATE SKIP LOCKED)
      RETURNING *`.execute(trx);
    return claimed.rows;
  });
}

export function markJobDone(db: Kysely<DB>, claim: JobClaim, now: Date): Promise<boolean> {
  return updateClaimed(db, claim, { status: 'done', finished_at: now, last_error: null });
}

export function requeueJob(db: Kysely<DB>, claim: JobClaim, runAt: Date, error: string): Promise<boolean> {
  return updateClaimed(db, claim, { status: 'queued', run_at: runAt, last_error: error });
}

/** Back to the queue without spending the claim's attempt: the job could not run yet, which is no failure. */
export function deferClaimedJob(db: Kysely<DB>, claim: JobClaim, runAt: Date, reason: string): Promise<boolean> {
  return updateClaimed(db, claim, {
    status: 'queued',
    run_at: runAt,
    last_error: reason,
    attempts: claim.attempts - 1,
  });
}

export function markJobDead(db: Kysely<DB>, claim: JobClaim, now: Date, error: string): Promise<boolean> {
  return updateClaimed(db, claim, { status: 'dead', finished_at: now, last_error: error });
}

/**
 * Only the current claim may settle a job: a worker whose lease expired and was reclaimed changes nothing.
 * Counted through RETURNING because the PGlite driver reports no affected-row count for UPDATE.
 */
async function updateClaimed(
  db: Kysely<DB>,
  claim: JobClaim,
  values: { status: string; finished_at?: Date; run_at?: Date; last_error: string | null; attempts?: number },
): Promise<boolean> {
  const updated = await db
    .updateTable('jobs')
    .set({ ...values, locked_by: null, locked_until: null })
    .where('id', '=', claim.id)
    .where('status', '=', 'running')
    .where('locked_by', '=', claim.workerId)
    .where('attempts', '=', claim.attempts)
    .returning('id')
    .execute();
  return updated.length > 0;
}

/**
 * Running jobs whose lease ended go back to the queue, or to 'dead' once their attempts are spent.
 * Returns them with their new status, so the worker can bury the dead ones.
 */
export async function reclaimExpiredLeases(db: Kysely<DB>, now: Date): Promise<JobRow[]> {
  // Cast: inside CASE an untyped parameter would resolve to text, which timestamptz does not accept.
  const finishedAt = sql<Date>`cast(${now} as timestamptz)`;
  return db
    .updateTable('jobs')
    .set((eb) => ({
      status: eb.case().when('attempts', '>=', eb.ref('max_attempts')).then('dead').else('queued').end(),
      finished_at: eb.case().when('attempts', '>=', eb.ref('max_attempts')).then(finishedAt).else(null).end(),
      last_error: 'lease expired before the job finished',
      locked_by: null,
      locked_until: null,
    }))
    .where('status', '=', 'running')
    .where('locked_until', '<', now)
    .returningAll()
    .execute();
}

export function findJob(db: Kysely<DB>, id: number): Promise<JobRow | undefined> {
  return db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
}
