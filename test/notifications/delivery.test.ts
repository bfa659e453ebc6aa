import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { deliverAttempt, retryDelayMs } from '../../src/modules/notifications/delivery.job.ts';
import { MAX_DELIVERY_ATTEMPTS } from '../../src/modules/notifications/notify.ts';
import { redeliver } from '../../src/modules/notifications/redelivery.ts';
import { loadOrderDetails } from '../../src/modules/orders/order-details.repo.ts';
import { toOrderData } from '../../src/modules/orders/order-data.view.ts';
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
  PUBLIC_URL,
  testClock,
  type TestClock,
} from './fixtures.ts';
import { Receiver } from './receiver.ts';

const HOUR = 3_600_000;

test('the retry schedule doubles from 30 s to a 6 h ceiling, adds at most 20% jitter, and 15 attempts span over 24 h', () => {
  assert.deepEqual(
    [1, 2, 3, 4].map((attempt) => retryDelayMs(attempt, () => 0)),
    [30_000, 60_000, 120_000, 240_000],
  );
  assert.equal(
    retryDelayMs(20, () => 0),
    6 * HOUR,
  );
  assert.equal(
    retryDelayMs(1, () => 0.999),
    Math.round(30_000 * 1.1998),
  );
  const span = Array.from({ length: MAX_DELIVERY_ATTEMPTS - 1 }, (_, i) => retryDelayMs(i + 1, () => 0)).reduce(
    (sum, ms) => sum + ms,
    0,
  );
  assert.ok(span >= 24 * HOUR, `the retries span ${span / HOUR} h`);
});

for (const engine of engines()) {
  describe(`notification delivery on ${engine.name}`, { timeout: 120_000 }, () => {
    const masterKey = randomBytes(32);
    let database: Database;
    let clock: TestClock;
    const receivers: Receiver[] = [];
    const receiver = async (options: Partial<ConstructorParameters<typeof Receiver>[0]> & { secrets: string[] }) => {
      const created = new Receiver({ now: () => clock.now(), ...options });
      receivers.push(created);
      return { receiver: created, url: await created.start() };
    };

    before(async () => {
      database = await engine.open();
      clock = testClock();
    });
    after(async () => {
      await Promise.all(receivers.map((entry) => entry.close()));
      await database.close();
    });

    test('order.paid arrives signed with the order as GET /orders/{id} shows it, after retries with growing delays; every attempt is logged', async () => {
      const tenant = await createTenant(database);
      const { receiver: merchant, url } = await receiver({ secrets: [], failFirst: 3, failureBody: 'x'.repeat(5000) });
      const endpoint = await addEndpoint(database, masterKey, tenant, url);
      merchant.options.secrets = [endpoint.secret];
      assert.match(endpoint.secret, /^whsec_[A-Za-z0-9_-]{43}$/);

      const order = await insertOrder(database, tenant);
      await moveOrder(database, tenant, order.id, 'paid', clock.now());
      const [snapshot] = await loadOrderDetails(database.db, tenant.accountId, [order.id]);
      const expectedOrder = toOrderData(snapshot!, PUBLIC_URL);

      const runs = await drainDeliveries(database, deliveryWorker(database, masterKey, clock), clock);
      assert.equal(runs.length, 4);
      assert.deepEqual(
        merchant.received.map((entry) => entry.answered),
        [500, 500, 500, 200],
      );
      for (const request of merchant.received) {
        assert.deepEqual(request.verifiedBy, [0], 'every attempt carries a valid signature');
        assert.equal(request.headers['checkout-event-type'], 'order.paid');
        assert.equal(request.headers['content-type'], 'application/json');
      }
      const bodies = new Set(merchant.received.map((entry) => entry.body));
      assert.equal(bodies.size, 1, 'every attempt sends the same bytes');
      const body = JSON.parse([...bodies][0]!);
      assert.deepEqual(Object.keys(body), ['id', 'type', 'created_at', 'data']);
      assert.match(body.id, /^evt_[0-9a-f]{24}$/);
      assert.equal(merchant.received[0]!.headers['checkout-event-id'], body.id);
      assert.equal(body.type, 'order.paid');
      assert.ok(!Number.isNaN(Date.parse(body.created_at)));
      assert.deepEqual(body.data, { order: expectedOrder });
      assert.equal(body.data.order.status, 'paid');
      assert.equal(body.data.order.link, `${PUBLIC_URL}/pay/charges/${order.uid}`);

      const [delivery] = await deliveriesOf(database, tenant.accountId);
      assert.equal(delivery!.status, 'delivered');
      assert.equal(delivery!.attempts, 4);
      const attempts = await attemptsOf(database, delivery!.id);
      assert.deepEqual(
        attempts.map((row) => [row.attempt, row.status_code]),
        [
          [1, 500],
          [2, 500],
          [3, 500],
          [4, 200],
        ],
      );
      assert.equal(attempts[0]!.response_body!.length, 1024, 'the logged answer is truncated to 1 KB');
      assert.equal(attempts[3]!.response_body, 'ok');
      assert.ok(attempts.every((row) => row.duration_ms >= 0 && row.error === null));
      const gaps = attempts.slice(1).map((row, i) => row.started_at.getTime() - attempts[i]!.started_at.getTime());
      assert.ok(
        gaps[0]! >= 30_000 && gaps[1]! > gaps[0]! && gaps[2]! > gaps[1]!,
        `the delays grow: ${gaps.join(', ')} ms`,
      );
    });

    test('every event arrives; deduplicated by event id the merchant has exactly one of each; a re-run job sends nothing more', async () => {
      const own = await createTenant(database);
      const { receiver: merchant, url } = await receiver({ secrets: [], failFirst: 1 });
      merchant.options.secrets = [(await addEndpoint(database, masterKey, own, url)).secret];
      const orders = await Promise.all([1, 2, 3].map(() => insertOrder(database, own)));
      for (const order of orders) await moveOrder(database, own, order.id, 'paid', clock.now());
      await moveOrder(database, own, orders[0]!.id, 'partially_refunded', clock.now());
      await moveOrder(database, own, orders[0]!.id, 'refunded', clock.now());
      await moveOrder(database, own, orders[1]!.id, 'billed', clock.now());
      const events = await database.db
        .selectFrom('notification_events')
        .select(['id', 'type'])
        .where('account_id', '=', own.accountId)
        .execute();
      assert.deepEqual(events.map((event) => event.type).sort(), [
        'order.billed',
        'order.paid',
        'order.paid',
        'order.paid',
        'order.partially_refunded',
        'order.refunded',
      ]);

      const worker = deliveryWorker(database, masterKey, clock);
      await drainDeliveries(database, worker, clock);
      const accepted = merchant.acceptedByEventId();
      assert.deepEqual([...accepted.keys()].sort(), events.map((event) => event.id).sort());
      for (const [id, copies] of accepted) assert.equal(copies.length, 1, `${id} accepted once`);
      assert.equal(merchant.received.length, 12, 'one refused and one accepted request per event');
      assert.ok(merchant.received.every((entry) => entry.verifiedBy.length === 1));

      // A job for an attempt that is already recorded (a worker re-run after a lost lease) does nothing.
      const [delivery] = await deliveriesOf(database, own.accountId);
      await deliverAttempt(
        database.db,
        { publicUrl: PUBLIC_URL, allowPrivateNetworks: true, masterKey, clock: clock.now },
        { delivery_id: delivery!.id, attempt: 1 },
      );
      await deliverAttempt(
        database.db,
        { publicUrl: PUBLIC_URL, allowPrivateNetworks: true, masterKey, clock: clock.now },
        { delivery_id: delivery!.id, attempt: 2 },
      );
      assert.equal(merchant.received.length, 12);
      assert.equal((await attemptsOf(database, delivery!.id)).length, 2);
    });

    test('exhausting the attempts marks the delivery failed after more than 24 h; a redelivery then succeeds with the same event id', async () => {
      const own = await createTenant(database);
      const { receiver: merchant, url } = await receiver({ secrets: [], alwaysAnswer: 503 });
      const endpoint = await addEndpoint(database, masterKey, own, url, { eventTypes: ['order.cancelled'] });
      merchant.options.secrets = [endpoint.secret];
      const order = await insertOrder(database, own);
      await moveOrder(database, own, order.id, 'cancelled', clock.now());
      await drainDeliveries(database, deliveryWorker(database, masterKey, clock), clock);

      const [delivery] = await deliveriesOf(database, own.accountId);
      assert.equal(delivery!.status, 'failed');
      assert.equal(delivery!.attempts, MAX_DELIVERY_ATTEMPTS);
      assert.equal(delivery!.last_status_code, 503);
      assert.equal(delivery!.last_error, 'HTTP 503');
      const attempts = await attemptsOf(database, delivery!.id);
      assert.equal(attempts.length, MAX_DELIVERY_ATTEMPTS);
      const span = attempts.at(-1)!.started_at.getTime() - attempts[0]!.started_at.getTime();
      assert.ok(span >= 24 * HOUR, `attempts span ${(span / HOUR).toFixed(1)} h`);
      assert.equal(merchant.received.length, MAX_DELIVERY_ATTEMPTS);

      merchant.options.alwaysAnswer = 200;
      assert.deepEqual(await redeliver(database.db, delivery!.id, clock.now()), [delivery!.id]);
      assert.deepEqual(
        await redeliver(database.db, delivery!.id, clock.now()),
        [],
        'a delivery already pending is not queued twice',
      );
      await drainDeliveries(database, deliveryWorker(database, masterKey, clock), clock);
      const after = (await deliveriesOf(database, own.accountId))[0]!;
      assert.deepEqual([after.status, after.attempts], ['delivered', MAX_DELIVERY_ATTEMPTS + 1]);
      assert.equal(new Set(merchant.received.map((entry) => entry.eventId)).size, 1);
      assert.equal(new Set(merchant.received.map((entry) => entry.body)).size, 1);
    });

    test('tenant isolation and subscriptions: another account, another company and other event types never receive our event', async () => {
      const own = await createTenant(database);
      const other = await createTenant(database);
      const secondCompany = await database.db
        .insertInto('companies')
        .values({ account_id: own.accountId, name: 'Filial', slug: `filial-${randomBytes(4).toString('hex')}` })
        .returning('id')
        .executeTakeFirstOrThrow();
      const all = await receiver({ secrets: [] });
      const foreign = await receiver({ secrets: [] });
      const otherCompany = await receiver({ secrets: [] });
      const refundsOnly = await receiver({ secrets: [] });
      await addEndpoint(database, masterKey, own, all.url);
      await addEndpoint(database, masterKey, other, foreign.url);
      await addEndpoint(database, masterKey, own, otherCompany.url, { companyId: secondCompany.id });
      await addEndpoint(database, masterKey, own, refundsOnly.url, { eventTypes: ['order.refunded'] });
      const disabled = await receiver({ secrets: [] });
      await addEndpoint(database, masterKey, own, disabled.url, { enabled: false });

      const order = await insertOrder(database, own);
      await moveOrder(database, own, order.id, 'paid', clock.now());
      await drainDeliveries(database, deliveryWorker(database, masterKey, clock), clock);
      assert.deepEqual(
        all.receiver.received.map((entry) => entry.headers['checkout-event-type']),
        ['order.paid'],
      );
      assert.equal(foreign.receiver.received.length, 0);
      assert.equal(otherCompany.receiver.received.length, 0);
      assert.equal(refundsOnly.receiver.received.length, 0);
      assert.equal(disabled.receiver.received.length, 0);
      assert.equal((await deliveriesOf(database, other.accountId)).length, 0);

      const branchOrder = await insertOrder(database, own, secondCompany.id);
      await moveOrder(database, own, branchOrder.id, 'paid', clock.now());
      await drainDeliveries(database, deliveryWorker(database, masterKey, clock), clock);
      assert.equal(otherCompany.receiver.received.length, 1, 'the company endpoint receives its own company');
      assert.equal(all.receiver.received.length, 2);
      assert.equal(foreign.receiver.received.length, 0);
    });
  });
}
