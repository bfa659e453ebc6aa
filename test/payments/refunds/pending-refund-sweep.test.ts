import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Database } from '../../../src/db/database.ts';
import { sandboxGatewayUrls } from '../../../src/gateways/sandbox/server.ts';
import { createLogger } from '../../../src/lib/logger.ts';
import { sweepPendingRefunds } from '../../../src/modules/payments/refunds/pending-refund-sweep.ts';
import {
  enqueueRefundReconciliation,
  RECONCILE_REFUND_JOB,
  reconcileRefundKey,
} from '../../../src/modules/payments/refunds/refund-reconciliation.ts';
import { STALE_RESERVATION_MS } from '../../../src/modules/payments/refunds/refund-recording.ts';
import { createWorker } from '../../../src/runtime.ts';
import { engines } from '../../support/engines.ts';
import {
  cardPagesByGateway,
  orderEventsOf,
  type Merchant,
  type PayApp,
  usePayMerchant,
} from '../../support/pay-fixtures.ts';
import { installRefundDeath, paidByCard, refundThatDies as dyingRefund } from './refund-fixtures.ts';

/**
 * Pending refunds with no reconciliation job (a reservation made before the job was written with it, or
 * one whose job ended): the worker's sweep enqueues `refunds.reconcile` for them, once, and the existing
 * reconciliation settles them. As in stale-refunds.test.ts the request "dies" after the gateway refunded,
 * because the database refuses every update of `refunds` while it runs; deleting its job then makes it a
 * reservation from before the job existed. The gateway is gateway_a's sandbox over HTTP.
 */
for (const engine of engines()) {
  describe(`pending refunds without a reconciliation job, swept on ${engine.name}`, { timeout: 180_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;
    let pageId: string;

    usePayMerchant(engine, async (setup) => {
      ({ database, pay, merchant } = setup);
      pageId = (await cardPagesByGateway(database, merchant)).gateway_a;
      await installRefundDeath(database);
    });

    type Pending = { uid: string; created_at: Date; paymentId: number; orderUid: string };
    /** A refund of `amount` reais whose request died after the gateway refunded it: pending, with its job. */
    const refundThatDies = async (amount: number): Promise<Pending> => {
      const paid = await paidByCard(pay, database, merchant, pageId, 'gateway_a');
      const row = await dyingRefund(pay, database, merchant, paid.paymentId, amount);
      return { uid: row.uid, created_at: row.created_at, paymentId: paid.paymentId, orderUid: paid.orderUid };
    };
    /** The same, made before reservations carried their job: it has none. */
    const orphanedRefund = async (amount: number): Promise<Pending> => {
      const pending = await refundThatDies(amount);
      const removed = await database.db
        .deleteFrom('jobs')
        .where('dedup_key', '=', reconcileRefundKey(pending.uid))
        .returning('id')
        .execute();
      assert.equal(removed.length, 1, 'the reservation wrote its job');
      return pending;
    };
    const jobsOf = (uid: string) =>
      database.db
        .selectFrom('jobs')
        .select(['id', 'type', 'status', 'dedup_key', 'payload', 'account_id', 'run_at'])
        .where('type', '=', RECONCILE_REFUND_JOB)
        .where(sql<string>`payload->>'refund_uid'`, '=', uid)
        .orderBy('id')
        .execute();
    const staleAt = (pending: Pending) => new Date(pending.created_at.getTime() + STALE_RESERVATION_MS + 1_000);
    const refundRow = (uid: string) =>
      database.db
        .selectFrom('refunds')
        .select(['status', 'gateway_refund_id'])
        .where('uid', '=', uid)
        .executeTakeFirstOrThrow();
    const payment = (id: number) =>
      database.db
        .selectFrom('payments')
        .select(['status', 'refunded_cents'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();

    test('a pending refund that has a queued or running reconcile job, or is not yet stale, is left alone; one whose job died gets a new one', async () => {
      const withJob = await refundThatDies(10);
      const at = staleAt(withJob);
      assert.equal(await sweepPendingRefunds(database.db, at), 0, 'its own job is queued');
      const [own] = await jobsOf(withJob.uid);
      await database.db
        .updateTable('jobs')
        .set({
          status: 'running',
          attempts: 1,
          locked_by: 'another-worker',
          locked_until: new Date(at.getTime() + 60_000),
        })
        .where('id', '=', own!.id)
        .execute();
      assert.equal(await sweepPendingRefunds(database.db, at), 0, 'its own job is running');
      // A job that ran too early leaves one under its second key for later.
      await database.db
        .updateTable('jobs')
        .set({ status: 'done', finished_at: at })
        .where('id', '=', own!.id)
        .execute();
      assert.equal(
        await enqueueRefundReconciliation(
          database.db,
          { accountId: merchant.accountId, refundUid: withJob.uid },
          withJob.created_at,
          1,
        ),
        true,
      );
      assert.equal(await sweepPendingRefunds(database.db, at), 0, 'the later job is queued');

      const recent = await orphanedRefund(10);
      assert.equal(
        await sweepPendingRefunds(database.db, new Date(recent.created_at.getTime() + 60_000)),
        0,
        'not yet stale: its request may still be running',
      );
      assert.deepEqual(await jobsOf(recent.uid), []);

      // A job dead after its last attempt (a gateway unreachable for a day) leaves the refund pending: it is tried again.
      await database.db
        .updateTable('jobs')
        .set({ status: 'dead', finished_at: at })
        .where('dedup_key', '=', reconcileRefundKey(withJob.uid, 1))
        .execute();
      assert.equal(
        await sweepPendingRefunds(database.db, staleAt(recent)),
        2,
        'the orphan, now stale, and the refund whose job died',
      );
      assert.deepEqual(
        (await jobsOf(recent.uid)).map((job) => [job.status, job.dedup_key]),
        [['queued', reconcileRefundKey(recent.uid)]],
      );
      assert.deepEqual(
        (await jobsOf(withJob.uid)).map((job) => job.status),
        ['done', 'dead', 'queued'],
      );
      assert.equal(await sweepPendingRefunds(database.db, staleAt(recent)), 0);
    });

    test("a stale pending refund with no job gets the reservation's own job, once, however many sweeps run", async () => {
      const orphan = await orphanedRefund(30);
      const at = staleAt(orphan);
      const [first, second] = await Promise.all([
        sweepPendingRefunds(database.db, at),
        sweepPendingRefunds(database.db, at),
      ]);
      assert.equal(first + second, 1, 'two sweeps at once enqueue one job');
      assert.equal(await sweepPendingRefunds(database.db, at), 0, 'a third finds it queued');
      const jobs = await jobsOf(orphan.uid);
      assert.equal(jobs.length, 1);
      assert.deepEqual(
        {
          status: jobs[0]!.status,
          dedup_key: jobs[0]!.dedup_key,
          payload: jobs[0]!.payload,
          account_id: jobs[0]!.account_id,
        },
        {
          status: 'queued',
          dedup_key: reconcileRefundKey(orphan.uid),
          payload: { account_id: merchant.accountId, refund_uid: orphan.uid },
          account_id: merchant.accountId,
        },
      );
      assert.equal(
        jobs[0]!.run_at.getTime(),
        orphan.created_at.getTime() + STALE_RESERVATION_MS,
        "due as the reservation's job would have been: now",
      );
      assert.equal((await refundRow(orphan.uid)).status, 'pending', 'the sweep only enqueues');
    });

    test("the worker's tick sweeps an orphaned refund and the existing reconciliation records the refund the gateway made", async () => {
      const orphan = await orphanedRefund(25);
      assert.deepEqual(
        await payment(orphan.paymentId),
        { status: 'paid', refunded_cents: 2_500 },
        'the amount stays reserved',
      );
      const at = staleAt(orphan);
      const worker = createWorker(
        database,
        createLogger('silent'),
        {
          masterKey: pay.config.masterKey,
          gatewayUrls: sandboxGatewayUrls(pay.sandboxes),
          clock: () => at,
          notifications: { publicUrl: 'http://127.0.0.1', allowPrivateNetworks: true },
        },
        { pollIntervalMs: 50 },
      );
      worker.start();
      try {
        const deadline = Date.now() + 20_000;
        while ((await refundRow(orphan.uid)).status === 'pending' && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 100));
      } finally {
        await worker.stop();
      }
      const settled = await refundRow(orphan.uid);
      assert.equal(settled.status, 'succeeded');
      assert.match(String(settled.gateway_refund_id), /./, "with the gateway's refund id");
      assert.deepEqual(await payment(orphan.paymentId), { status: 'partially_refunded', refunded_cents: 2_500 });
      assert.equal(
        (await orderEventsOf(database, orphan.orderUid)).filter((event) => event.type === 'refund.succeeded').length,
        1,
      );
      assert.deepEqual(
        (await jobsOf(orphan.uid)).map((job) => job.status),
        ['done'],
        'one job, run once',
      );
    });
  });
}
