import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import { pino } from 'pino';
import type { Database } from '../../src/db/database.ts';
import { claimFairShare, findJob } from '../../src/queue/jobs.repo.ts';
import { enqueueJob } from '../../src/queue/outbox.ts';
import { Worker } from '../../src/jobs/worker.ts';
import { JobDeferral, type JobHandler } from '../../src/queue/job-handler.ts';
import { engines } from '../support/engines.ts';

/** A clock a minute ahead of the database, so rows defaulting to now() are already due. */
function testClock() {
  let current = Date.now() + 60_000;
  return { now: () => new Date(current), advance: (ms: number) => void (current += ms) };
}

for (const engine of engines()) {
  describe(`lanes, fair shares and deferrals on ${engine.name}`, () => {
    let database: Database;
    let clock: ReturnType<typeof testClock>;
    const accounts = [randomUUID(), randomUUID()];
    const newWorker = (handlers: Record<string, JobHandler>) =>
      new Worker({ database, handlers, logger: pino({ level: 'silent' }), clock: clock.now, pollIntervalMs: 50 });

    before(async () => {
      database = await engine.open();
      for (const id of accounts)
        await database.db
          .insertInto('accounts')
          .values({ id, name: 'Lanes', slug: `lanes-${id}` })
          .execute();
    });
    after(() => database.close());
    beforeEach(async () => {
      await database.db.deleteFrom('jobs').execute();
      clock = testClock();
    });

    test('a deferral gives its attempt back: deferred more often than max_attempts, the job still runs once', async () => {
      let calls = 0;
      const worker = newWorker({
        'turn.wait': async () => {
          if (++calls <= 12) throw new JobDeferral(1_000, 'an earlier job goes first');
        },
      });
      await enqueueJob(database.db, { type: 'turn.wait', payload: {}, maxAttempts: 3 });
      for (let run = 0; run < 12; run++) {
        assert.equal(await worker.runOnce(), 1);
        const job = (await database.db.selectFrom('jobs').selectAll().executeTakeFirstOrThrow())!;
        assert.deepEqual([job.status, job.attempts, job.last_error], ['queued', 0, 'an earlier job goes first']);
        assert.equal(await worker.runOnce(), 0, 'not due before its delay');
        clock.advance(1_000);
      }
      assert.equal(await worker.runOnce(), 1);
      const id = (await database.db.selectFrom('jobs').select('id').executeTakeFirstOrThrow()).id;
      const done = (await findJob(database.db, id))!;
      assert.deepEqual([done.status, done.attempts], ['done', 1]);
    });

    test('a fair claim keeps within the per-endpoint and per-account limits and serves every account', async () => {
      const [busy, quiet] = accounts as [string, string];
      for (const key of ['ep_a1', 'ep_a2', 'ep_a3'])
        for (let i = 0; i < 6; i++)
          await enqueueJob(database.db, {
            type: 'deliver',
            payload: {},
            accountId: busy,
            lane: 'deliveries',
            concurrencyKey: key,
          });
      // Queued last: a claim in queue order would not reach them.
      for (let i = 0; i < 2; i++)
        await enqueueJob(database.db, {
          type: 'deliver',
          payload: {},
          accountId: quiet,
          lane: 'deliveries',
          concurrencyKey: 'ep_b1',
        });
      const claim = () =>
        claimFairShare(database.db, {
          workerId: 'w',
          now: clock.now(),
          lockedUntil: new Date(clock.now().getTime() + 60_000),
          limit: 8,
          lane: 'deliveries',
          perAccount: 4,
          perKey: 2,
        });
      const claimed = await claim();
      const count = (pick: (job: (typeof claimed)[number]) => string | null) =>
        claimed.reduce<Record<string, number>>((counts, job) => {
          const name = pick(job) ?? 'none';
          return { ...counts, [name]: (counts[name] ?? 0) + 1 };
        }, {});
      assert.deepEqual(
        count((job) => (job.account_id === busy ? 'busy' : 'quiet')),
        { busy: 4, quiet: 2 },
      );
      assert.ok(Object.values(count((job) => job.concurrency_key)).every((n) => n <= 2));
      assert.equal((await claim()).length, 0, 'every account and endpoint is at its limit while those run');
      const core = await claimFairShare(database.db, {
        workerId: 'w',
        now: clock.now(),
        lockedUntil: clock.now(),
        limit: 8,
        lane: 'core',
        perAccount: 4,
        perKey: 2,
      });
      assert.equal(core.length, 0, 'a lane claims only its own jobs');
    });

    test('a core job runs while every delivery place is taken by jobs that hang', async () => {
      let release!: () => void;
      const hanging = new Promise<void>((resolve) => (release = resolve));
      let coreDone = false;
      const worker = newWorker({ deliver: () => hanging, 'payment.expire': async () => void (coreDone = true) });
      for (let i = 0; i < 20; i++)
        await enqueueJob(database.db, {
          type: 'deliver',
          payload: {},
          accountId: accounts[0]!,
          lane: 'deliveries',
          concurrencyKey: `ep_${i}`,
        });
      worker.start();
      try {
        await enqueueJob(database.db, { type: 'payment.expire', payload: {} });
        for (let wait = 0; wait < 200 && !coreDone; wait++) await new Promise((resolve) => setTimeout(resolve, 25));
        assert.equal(coreDone, true);
      } finally {
        release();
        await worker.stop();
      }
    });
  });
}
