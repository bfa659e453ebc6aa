import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { pino } from 'pino';
import type { Database } from '../../src/db/database.ts';
import { claimReadyJobs, findJob, markJobDone } from '../../src/queue/jobs.repo.ts';
import { maintenanceHandlers, scheduleMaintenance } from '../../src/jobs/maintenance.ts';
import { enqueueJob } from '../../src/queue/outbox.ts';
import { retryDelayMs, Worker, type WorkerOptions } from '../../src/jobs/worker.ts';
import { type Job, type JobHandler } from '../../src/queue/job-handler.ts';
import { engines } from '../support/engines.ts';

const HOUR = 60 * 60_000;

/** A clock a minute ahead of the database, so rows defaulting to now() are already due. */
function testClock() {
  let current = Date.now() + 60_000;
  return { now: () => new Date(current), advance: (ms: number) => void (current += ms) };
}

function captureLogger() {
  const lines: string[] = [];
  return { lines, logger: pino({ level: 'info' }, { write: (line: string) => void lines.push(line) }) };
}

test('retry delay doubles from 5s and is capped at one hour', () => {
  assert.deepEqual([1, 2, 3, 4].map(retryDelayMs), [5_000, 10_000, 20_000, 40_000]);
  assert.equal(retryDelayMs(30), HOUR);
});

for (const engine of engines()) {
  describe(`jobs on ${engine.name}`, () => {
    let database: Database;
    let clock: ReturnType<typeof testClock>;
    let logs: ReturnType<typeof captureLogger>;
    const accountId = randomUUID();
    const newWorker = (handlers: Record<string, JobHandler>, options: Partial<WorkerOptions> = {}) =>
      new Worker({ database, handlers, logger: logs.logger, clock: clock.now, leaseMs: 30_000, ...options });
    const job = async (id: number) => (await findJob(database.db, id))!;
    const onlyJobId = async () => (await database.db.selectFrom('jobs').select('id').executeTakeFirstOrThrow()).id;
    const countJobs = async () => (await database.db.selectFrom('jobs').select('id').execute()).length;

    before(async () => {
      database = await engine.open();
      await database.db
        .insertInto('accounts')
        .values({ id: accountId, name: 'Jobs', slug: `jobs-${accountId}` })
        .execute();
    });
    after(() => database.close());
    beforeEach(async () => {
      await database.db.deleteFrom('jobs').execute();
      clock = testClock();
      logs = captureLogger();
    });

    test('a job enqueued in a transaction that rolls back leaves no row; a committed one stays', async () => {
      const rollback = new Error('rollback');
      await assert.rejects(
        database.db.transaction().execute(async (trx) => {
          assert.equal(await enqueueJob(trx, { type: 'email.send', payload: {} }), true);
          throw rollback;
        }),
        rollback,
      );
      assert.equal(await countJobs(), 0);
      await database.db.transaction().execute((trx) => enqueueJob(trx, { type: 'email.send', payload: {} }));
      assert.equal(await countJobs(), 1);
    });

    test('a dedup key allows one live job, and another once the first is done', async () => {
      const options = { type: 'payment.expire', payload: { paymentId: 7 }, dedupKey: 'payment.expire:7' };
      assert.equal(await enqueueJob(database.db, options), true);
      assert.equal(await enqueueJob(database.db, options), false);
      assert.equal(await countJobs(), 1);
      assert.equal(await newWorker({ 'payment.expire': async () => {} }).runOnce(), 1);
      assert.equal(await enqueueJob(database.db, options), true);
      assert.equal(await countJobs(), 2);
    });

    test('a job runs once, is marked done, and its payload stays out of the logs', async () => {
      const seen: Job[] = [];
      await enqueueJob(database.db, { type: 'email.send', payload: { email: 'secret@customer.example' }, accountId });
      const worker = newWorker({ 'email.send': async (received) => void seen.push(received) });
      assert.equal(await worker.runOnce(), 1);
      assert.equal(await worker.runOnce(), 0);
      assert.equal(seen.length, 1);
      assert.deepEqual(seen[0]?.payload, { email: 'secret@customer.example' });
      assert.equal(seen[0]?.accountId, accountId);
      assert.equal(seen[0]?.attempts, 1);
      const row = await job(seen[0]!.id);
      assert.equal(row.status, 'done');
      assert.ok(row.finished_at);
      assert.equal(row.locked_by, null);
      assert.equal(row.locked_until, null);
      const done = logs.lines.map((line) => JSON.parse(line)).find((entry) => entry.msg === 'job done');
      assert.equal(done?.jobId, row.id);
      assert.equal(done?.jobType, 'email.send');
      assert.ok(!logs.lines.some((line) => line.includes('secret@customer.example')));
    });

    test('a failing job is retried with backoff, then dead after max attempts with its error', async () => {
      let calls = 0;
      const worker = newWorker({
        flaky: async () => {
          calls++;
          throw new Error(`boom ${'x'.repeat(2000)}`);
        },
      });
      await enqueueJob(database.db, { type: 'flaky', payload: {}, maxAttempts: 3 });
      const id = await onlyJobId();
      assert.equal(await worker.runOnce(), 1);
      let row = await job(id);
      assert.equal(row.status, 'queued');
      assert.equal(row.attempts, 1);
      assert.equal(row.run_at.getTime(), clock.now().getTime() + 5_000);
      assert.equal(row.last_error?.length, 1000);
      assert.match(row.last_error ?? '', /^boom x/);
      assert.ok(logs.lines.some((line) => line.includes('job failed, retry scheduled')));
      clock.advance(4_999);
      assert.equal(await worker.runOnce(), 0, 'not due before its backoff');
      clock.advance(1);
      assert.equal(await worker.runOnce(), 1);
      assert.equal((await job(id)).run_at.getTime(), clock.now().getTime() + 10_000);
      clock.advance(10_000);
      assert.equal(await worker.runOnce(), 1);
      row = await job(id);
      assert.equal(calls, 3);
      assert.equal(row.status, 'dead');
      assert.equal(row.attempts, 3);
      assert.ok(row.finished_at);
      assert.match(row.last_error ?? '', /^boom/);
      clock.advance(HOUR);
      assert.equal(await worker.runOnce(), 0, 'a dead job never runs again');
    });

    test('a job with no handler fails and goes dead after its attempts', async () => {
      await enqueueJob(database.db, { type: 'nobody.handles', payload: {}, maxAttempts: 2 });
      const id = await onlyJobId();
      const worker = newWorker({});
      assert.equal(await worker.runOnce(), 1);
      assert.equal((await job(id)).status, 'queued');
      clock.advance(5_000);
      assert.equal(await worker.runOnce(), 1);
      const row = await job(id);
      assert.equal(row.status, 'dead');
      assert.match(row.last_error ?? '', /no handler for job type "nobody.handles"/);
    });

    test('an expired lease is reclaimed and the job runs again; the lost claim cannot settle it', async () => {
      await enqueueJob(database.db, { type: 'email.send', payload: {} });
      const now = clock.now();
      const [crashed] = await claimReadyJobs(database.db, {
        workerId: 'crashed',
        now,
        lockedUntil: new Date(now.getTime() + 30_000),
        limit: 5,
      });
      assert.ok(crashed);
      let staleWriteApplied: boolean | undefined;
      const worker = newWorker({
        'email.send': async () => {
          staleWriteApplied = await markJobDone(
            database.db,
            { id: crashed.id, attempts: 1, workerId: 'crashed' },
            clock.now(),
          );
        },
      });
      assert.equal(await worker.runOnce(), 0, 'the lease still holds');
      clock.advance(30_001);
      assert.equal(await worker.runOnce(), 1);
      assert.ok(
        logs.lines.some((line) => JSON.parse(line).reclaimed === 1),
        'the reclaim is logged with its count',
      );
      assert.equal(staleWriteApplied, false);
      const row = await job(crashed.id);
      assert.equal(row.status, 'done');
      assert.equal(row.attempts, 2);
    });

    test('an expired lease on a job with no attempts left makes it dead', async () => {
      await enqueueJob(database.db, { type: 'email.send', payload: {}, maxAttempts: 1 });
      const now = clock.now();
      await claimReadyJobs(database.db, { workerId: 'crashed', now, lockedUntil: now, limit: 5 });
      clock.advance(1);
      assert.equal(await newWorker({ 'email.send': async () => {} }).runOnce(), 0);
      const row = await job(await onlyJobId());
      assert.equal(row.status, 'dead');
      assert.match(row.last_error ?? '', /lease expired/);
    });

    test("a dead job is handed to its type's dead-job handler once, after its last attempt or an expired last lease; a failing handler is logged", async () => {
      const buried: Array<{ type: string; payload: unknown; error: string }> = [];
      const deadJobHandlers = {
        flaky: async (dead: Job, context: { error: string }) =>
          void buried.push({ type: dead.type, payload: dead.payload, error: context.error }),
        'email.send': async (dead: Job, context: { error: string }) =>
          void buried.push({ type: dead.type, payload: dead.payload, error: context.error }),
        broken: async () => assert.fail('the handler itself fails'),
      };
      const worker = newWorker(
        { flaky: async () => assert.fail('always'), broken: async () => assert.fail('always') },
        { deadJobHandlers },
      );
      await enqueueJob(database.db, { type: 'flaky', payload: { n: 1 }, maxAttempts: 2 });
      assert.equal(await worker.runOnce(), 1);
      assert.deepEqual(buried, [], 'a job with attempts left is not dead');
      clock.advance(5_000);
      assert.equal(await worker.runOnce(), 1);
      assert.deepEqual(buried, [{ type: 'flaky', payload: { n: 1 }, error: 'always' }]);

      await enqueueJob(database.db, { type: 'email.send', payload: { n: 2 }, maxAttempts: 1 });
      const now = clock.now();
      await claimReadyJobs(database.db, { workerId: 'crashed', now, lockedUntil: now, limit: 5 });
      clock.advance(1);
      assert.equal(await worker.runOnce(), 0);
      assert.deepEqual(buried.at(-1), {
        type: 'email.send',
        payload: { n: 2 },
        error: 'lease expired before the job finished',
      });

      await enqueueJob(database.db, { type: 'broken', payload: {}, maxAttempts: 1 });
      assert.equal(await worker.runOnce(), 1);
      assert.equal(buried.length, 2);
      assert.ok(logs.lines.some((line) => JSON.parse(line).msg === 'dead-job handler failed'));
      assert.deepEqual(
        (await database.db.selectFrom('jobs').select('status').orderBy('id').execute()).map((row) => row.status),
        ['dead', 'dead', 'dead'],
      );
    });

    test(
      'start() runs due jobs and calls onTick; stop() waits for the batch in flight',
      { timeout: 10_000 },
      async () => {
        let ticks = 0;
        let release!: () => void;
        const handlerGate = new Promise<void>((open) => (release = open));
        let handlerStarted!: () => void;
        const started = new Promise<void>((resolve) => (handlerStarted = resolve));
        const worker = newWorker(
          { slow: async () => (handlerStarted(), await handlerGate) },
          { pollIntervalMs: 5, onTick: async () => void (ticks++, assert.fail('tick failed')) },
        );
        worker.start();
        let stopped = false;
        try {
          while (ticks < 3) await delay(5);
          await enqueueJob(database.db, { type: 'slow', payload: {} });
          await started;
          const stopping = worker.stop().then(() => (stopped = true));
          await delay(20);
          assert.equal(stopped, false, 'stop waits for the running handler');
          release();
          await stopping;
        } finally {
          release();
          await worker.stop();
        }
        assert.equal((await job(await onlyJobId())).status, 'done');
        assert.ok(ticks >= 3, 'the loop goes on after onTick throws');
        assert.ok(logs.lines.some((line) => line.includes('tick failed')));
      },
    );

    // PGlite is one session, so concurrent claims cannot race there; the property is PostgreSQL's.
    if (engine.name === 'postgres')
      test('two workers running concurrently process each of 50 jobs exactly once', async () => {
        for (let n = 0; n < 50; n++) await enqueueJob(database.db, { type: 'count', payload: { n } });
        const invocations = new Map<number, number>();
        const count: JobHandler = async ({ id }) => {
          invocations.set(id, (invocations.get(id) ?? 0) + 1);
          await delay(2);
        };
        const workers = [newWorker({ count }, { batchSize: 5 }), newWorker({ count }, { batchSize: 5 })];
        const processedBy = [0, 0];
        for (;;) {
          const processed = await Promise.all(workers.map((worker) => worker.runOnce()));
          processed.forEach((n, i) => (processedBy[i]! += n));
          if (processed.every((n) => n === 0)) break;
        }
        assert.equal(invocations.size, 50);
        assert.ok(
          [...invocations.values()].every((n) => n === 1),
          'no job ran twice',
        );
        assert.ok(
          processedBy.every((n) => n > 0),
          `both workers claimed jobs: ${processedBy}`,
        );
        const done = await database.db.selectFrom('jobs').select('id').where('status', '=', 'done').execute();
        assert.equal(done.length, 50);
      });

    test('maintenance is scheduled once per purge and deletes only expired rows', async () => {
      const company = await database.db
        .insertInto('companies')
        .values({ account_id: accountId, name: 'Shop', slug: `shop-${accountId.slice(0, 8)}` })
        .returning('id')
        .executeTakeFirstOrThrow();
      const at = (offsetMs: number) => new Date(clock.now().getTime() + offsetMs);
      const idempotencyKey = (key: string, expiresAt: Date) => ({
        account_id: accountId,
        key,
        request_method: 'POST',
        request_path: '/orders',
        request_hash: 'h',
        expires_at: expiresAt,
      });
      await database.db
        .insertInto('idempotency_keys')
        .values([idempotencyKey('expired', at(-1_000)), idempotencyKey('live', at(HOUR))])
        .execute();
      let nextKeyId = 1;
      const cardKey = (pem: string, expiresAt: Date) => ({
        account_id: accountId,
        company_id: company.id,
        gateway_key_id: nextKeyId++,
        public_key_pem: pem,
        created_at: new Date(expiresAt.getTime() - 5 * 60_000),
        expires_at: expiresAt,
      });
      await database.db
        .insertInto('card_hash_keys')
        .values([cardKey('old', at(-25 * HOUR)), cardKey('grace', at(-HOUR)), cardKey('live', at(HOUR))])
        .execute();

      assert.equal(await scheduleMaintenance(database, clock.now), 2);
      assert.equal(await scheduleMaintenance(database, clock.now), 0, 'one live job per purge');
      const worker = newWorker(maintenanceHandlers(clock.now));
      assert.equal(await worker.runOnce(), 0, 'scheduled an interval ahead');
      clock.advance(HOUR);
      assert.equal(await worker.runOnce(), 2);

      const keys = await database.db.selectFrom('idempotency_keys').select('key').execute();
      assert.deepEqual(
        keys.map((row) => row.key),
        ['live'],
      );
      const cards = await database.db
        .selectFrom('card_hash_keys')
        .select('public_key_pem')
        .orderBy('gateway_key_id')
        .execute();
      assert.deepEqual(
        cards.map((row) => row.public_key_pem),
        ['grace', 'live'],
      );
      assert.equal(await scheduleMaintenance(database, clock.now), 2, 'rescheduled once the previous run is done');
    });
  });
}
