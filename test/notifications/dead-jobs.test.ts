import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Database } from '../../src/db/database.ts';
import { DELIVER_JOB } from '../../src/modules/notifications/notify.ts';
import { listFailedDeliveries, redeliver } from '../../src/modules/notifications/redelivery.ts';
import { createTenant } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import {
  addEndpoint,
  attemptsOf,
  deliveriesOf,
  deliveryWorker,
  drainDeliveries,
  insertOrder,
  moveOrder,
  testClock,
  type TestClock,
} from './fixtures.ts';
import { Receiver } from './receiver.ts';

/**
 * A delivery whose attempt job the worker gives up on (errors of ours, not the merchant's answer) must not
 * stay pending with nothing scheduled: it is failed, listed and redeliverable. Failures are injected with a
 * database trigger, never by replacing our code.
 */
for (const engine of engines()) {
  describe(`notification deliveries whose job dies on ${engine.name}`, { timeout: 180_000 }, () => {
    const masterKey = randomBytes(32);
    let database: Database;
    let clock: TestClock;
    let receiver: Receiver;
    let url: string;

    before(async () => {
      database = await engine.open();
      clock = testClock();
      receiver = new Receiver({ secrets: [], now: () => clock.now() });
      url = await receiver.start();
      await sql`CREATE FUNCTION test_injected_failure() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected failure'; END $$`.execute(
        database.db,
      );
    });
    after(async () => {
      await receiver.close();
      await database.close();
    });

    const paidOrderDelivery = async () => {
      const tenant = await createTenant(database);
      const endpoint = await addEndpoint(database, masterKey, tenant, url, { eventTypes: ['order.paid'] });
      receiver.options.secrets = [endpoint.secret];
      const order = await insertOrder(database, tenant);
      await moveOrder(database, tenant, order.id, 'paid', clock.now());
      const [delivery] = await deliveriesOf(database, tenant.accountId);
      return { tenant, delivery: delivery! };
    };
    const jobsOf = (deliveryId: string) =>
      database.db
        .selectFrom('jobs')
        .select(['status', 'attempts', 'last_error'])
        .where('type', '=', DELIVER_JOB)
        .where('dedup_key', 'like', `${DELIVER_JOB}:${deliveryId}:%`)
        .orderBy('id')
        .execute();

    test('a delivery job that exhausts its attempts on database errors fails the delivery; it is listed and a redelivery succeeds', async () => {
      const { tenant, delivery } = await paidOrderDelivery();
      const sentBefore = receiver.received.length;
      await sql`CREATE TRIGGER test_fail_attempt_log BEFORE INSERT ON notification_attempts FOR EACH ROW EXECUTE FUNCTION test_injected_failure()`.execute(
        database.db,
      );
      try {
        await drainDeliveries(database, deliveryWorker(database, masterKey, clock), clock);
      } finally {
        await sql`DROP TRIGGER test_fail_attempt_log ON notification_attempts`.execute(database.db);
      }
      const [job] = await jobsOf(delivery.id);
      assert.equal(job!.status, 'dead');
      assert.equal(job!.attempts, 10, 'the worker tried the job until its attempts ran out');
      // Each try did post (the outcome could not be recorded afterwards): at least once, never lost.
      assert.equal(receiver.received.length - sentBefore, 10);
      const [failed] = await deliveriesOf(database, tenant.accountId);
      assert.equal(failed!.status, 'failed');
      assert.equal(failed!.attempts, 0);
      assert.equal(failed!.next_attempt_at, null);
      assert.match(failed!.last_error ?? '', /^attempt 1 could not be completed: .*injected failure/);
      assert.deepEqual(
        (await listFailedDeliveries(database.db, { accountId: tenant.accountId })).map((row) => row.id),
        [delivery.id],
      );

      assert.deepEqual(await redeliver(database.db, delivery.id, clock.now()), [delivery.id]);
      await drainDeliveries(database, deliveryWorker(database, masterKey, clock), clock);
      const [delivered] = await deliveriesOf(database, tenant.accountId);
      assert.deepEqual([delivered!.status, delivered!.attempts], ['delivered', 1]);
      assert.deepEqual(
        (await attemptsOf(database, delivery.id)).map((attempt) => [attempt.attempt, attempt.status_code]),
        [[1, 200]],
      );
      const sent = receiver.received.slice(sentBefore);
      assert.equal(new Set(sent.map((entry) => entry.eventId)).size, 1, 'every post carried the same event id');
      assert.equal(sent.at(-1)!.answered, 200);
    });

    test('a pending delivery whose job is gone is redelivered by id; one whose next attempt is still queued is not queued twice', async () => {
      const { tenant, delivery } = await paidOrderDelivery();
      assert.deepEqual(await redeliver(database.db, delivery.id, clock.now()), [], 'its first attempt is queued');
      // The job died and its dead-job handler never ran (say the database was down then): an orphan.
      await database.db
        .updateTable('jobs')
        .set({ status: 'dead' })
        .where('dedup_key', '=', `${DELIVER_JOB}:${delivery.id}:1`)
        .execute();
      assert.equal((await deliveriesOf(database, tenant.accountId))[0]!.status, 'pending');
      assert.deepEqual(await redeliver(database.db, delivery.id, clock.now()), [delivery.id]);
      assert.deepEqual(await redeliver(database.db, delivery.id, clock.now()), [], 'now it has a live job again');
      await drainDeliveries(database, deliveryWorker(database, masterKey, clock), clock);
      assert.equal((await deliveriesOf(database, tenant.accountId))[0]!.status, 'delivered');
    });
  });
}
