import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import type { Database } from '../../src/db/database.ts';
import { rotateEndpointSecret, setEndpointEnabled } from '../../src/modules/notifications/endpoints.service.ts';
import { DELIVER_JOB } from '../../src/modules/notifications/notify.ts';
import { isPrivateAddress } from '../../src/modules/notifications/outbound-http.ts';
import { redeliver } from '../../src/modules/notifications/redelivery.ts';
import { transitionOrder } from '../../src/modules/orders/order-status.ts';
import { transitionPayment } from '../../src/modules/payments/settlement/payment-status.ts';
import { createTenant, type Tenant } from '../support/app.ts';
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

test('private, loopback, link-local and mapped addresses are recognised; public ones are not', () => {
  for (const address of [
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '::',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
  ]) {
    assert.equal(isPrivateAddress(address), true, address);
  }
  for (const address of ['8.8.8.8', '172.32.0.1', '2001:4860:4860::8888', '::ffff:8.8.8.8', 'example.com'])
    assert.equal(isPrivateAddress(address), false, address);
});

test('NOTIFICATIONS_ALLOW_PRIVATE_NETWORKS is true, false or unset; anything else stops the start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'checkout-config-'));
  assert.equal(loadConfig({ DATA_DIR: dataDir }).notificationsAllowPrivateNetworks, undefined);
  assert.equal(
    loadConfig({ DATA_DIR: dataDir, NOTIFICATIONS_ALLOW_PRIVATE_NETWORKS: 'true' }).notificationsAllowPrivateNetworks,
    true,
  );
  assert.equal(
    loadConfig({ DATA_DIR: dataDir, NOTIFICATIONS_ALLOW_PRIVATE_NETWORKS: 'false' }).notificationsAllowPrivateNetworks,
    false,
  );
  assert.throws(
    () => loadConfig({ DATA_DIR: dataDir, NOTIFICATIONS_ALLOW_PRIVATE_NETWORKS: 'yes' }),
    (error: Error) => error instanceof ConfigError && /NOTIFICATIONS_ALLOW_PRIVATE_NETWORKS/.test(error.message),
  );
});

for (const engine of engines()) {
  describe(`notification safety on ${engine.name}`, { timeout: 120_000 }, () => {
    const masterKey = randomBytes(32);
    let database: Database;
    let clock: TestClock;
    const closers: Array<() => Promise<void>> = [];
    const receiver = async (options: Partial<ConstructorParameters<typeof Receiver>[0]> = {}) => {
      const created = new Receiver({ secrets: [], now: () => clock.now(), ...options });
      closers.push(() => created.close());
      return { receiver: created, url: await created.start() };
    };
    // Retries left queued by a test would run (and wait on timeouts) in the next test's drain.
    const dropQueuedDeliveries = (tenant: Tenant) =>
      database.db
        .deleteFrom('jobs')
        .where('account_id', '=', tenant.accountId)
        .where('type', '=', DELIVER_JOB)
        .execute();
    const eventsOf = (tenant: Tenant) =>
      database.db
        .selectFrom('notification_events')
        .selectAll()
        .where('account_id', '=', tenant.accountId)
        .orderBy('created_at')
        .execute();

    before(async () => {
      database = await engine.open();
      clock = testClock();
    });
    after(async () => {
      await Promise.all(closers.map((close) => close()));
      await database.close();
    });

    test('an event exists only if its cause committed: a rolled-back transition leaves no event, delivery or job', async () => {
      const tenant = await createTenant(database);
      await addEndpoint(database, masterKey, tenant, (await receiver()).url);
      const order = await insertOrder(database, tenant);
      await assert.rejects(
        database.db.transaction().execute(async (trx) => {
          const moved = await transitionOrder(trx, {
            accountId: tenant.accountId,
            orderId: order.id,
            to: 'paid',
            cause: 'test',
            at: new Date(),
          });
          assert.equal(moved.changed, true);
          throw new Error('rollback');
        }),
        /rollback/,
      );
      assert.equal((await eventsOf(tenant)).length, 0);
      assert.equal((await deliveriesOf(database, tenant.accountId)).length, 0);
      const jobs = await database.db
        .selectFrom('jobs')
        .select('id')
        .where('account_id', '=', tenant.accountId)
        .where('type', '=', DELIVER_JOB)
        .execute();
      assert.equal(jobs.length, 0);
      await moveOrder(database, tenant, order.id, 'paid');
      assert.deepEqual(
        (await eventsOf(tenant)).map((event) => event.type),
        ['order.paid'],
      );
    });

    test('an account without endpoints records nothing', async () => {
      const tenant = await createTenant(database);
      const order = await insertOrder(database, tenant);
      await moveOrder(database, tenant, order.id, 'paid');
      assert.equal((await eventsOf(tenant)).length, 0);
    });

    test('payment.failed carries the order as the transaction left it; a chargeback is order.chargeback on a paid order', async () => {
      const tenant = await createTenant(database);
      await addEndpoint(database, masterKey, tenant, (await receiver()).url);
      const order = await insertOrder(database, tenant);
      const payment = async (status: string) =>
        (
          await database.db
            .insertInto('payments')
            .values({
              uid: randomUUID(),
              account_id: tenant.accountId,
              company_id: tenant.companyId,
              order_id: order.id,
              gateway: 'gateway_a',
              method: 'pix',
              status,
              amount_cents: 10_000,
              installment_value_cents: 10_000,
            })
            .returning('id')
            .executeTakeFirstOrThrow()
        ).id;
      const pix = await payment('waiting_payment');
      await moveOrder(database, tenant, order.id, 'waiting_payment');
      await database.db.transaction().execute(async (trx) => {
        await transitionPayment(trx, {
          accountId: tenant.accountId,
          paymentId: pix,
          to: 'failed',
          cause: 'test',
          at: new Date(),
        });
        await transitionOrder(trx, {
          accountId: tenant.accountId,
          orderId: order.id,
          to: 'pending',
          cause: 'test',
          at: new Date(),
        });
      });
      const [failed] = await eventsOf(tenant);
      const failedOrder = (failed!.data as { order: { status: string; payments: Array<{ status: string }> } }).order;
      assert.equal(failed!.type, 'payment.failed');
      assert.equal(failedOrder.status, 'pending', 'the snapshot was refreshed by the later transition');
      assert.deepEqual(
        failedOrder.payments.map((row) => row.status),
        ['failed'],
      );

      const card = await payment('paid');
      await moveOrder(database, tenant, order.id, 'paid');
      await database.db.transaction().execute((trx) =>
        transitionPayment(trx, {
          accountId: tenant.accountId,
          paymentId: card,
          to: 'charged_back',
          cause: 'test',
          at: new Date(),
        }),
      );
      const chargeback = (await eventsOf(tenant)).find((event) => event.type === 'order.chargeback');
      const chargebackOrder = (chargeback!.data as { order: { status: string; payments: Array<{ status: string }> } })
        .order;
      assert.equal(chargebackOrder.status, 'paid');
      assert.deepEqual(
        chargebackOrder.payments.map((row) => row.status),
        ['failed', 'charged_back'],
      );
    });

    test('secret rotation: during the grace period both secrets sign (two v1 values); after it only the new one', async () => {
      const tenant = await createTenant(database);
      const { receiver: merchant, url } = await receiver();
      const created = await addEndpoint(database, masterKey, tenant, url);
      const rotated = await rotateEndpointSecret(database.db, masterKey, created.endpoint.id, 3600, clock.now());
      assert.notEqual(rotated.secret, created.secret);
      merchant.options.secrets = [created.secret, rotated.secret];
      const order = await insertOrder(database, tenant);
      await moveOrder(database, tenant, order.id, 'paid');
      await drainDeliveries(database, deliveryWorker(database, masterKey, clock), clock);
      assert.equal(merchant.received.length, 1);
      assert.deepEqual(merchant.received[0]!.verifiedBy, [0, 1], 'a receiver holding either secret accepts it');
      assert.equal(String(merchant.received[0]!.headers['checkout-signature']).match(/v1=/g)!.length, 2);

      clock.advance(2 * 3_600_000);
      await moveOrder(database, tenant, order.id, 'refunded');
      await drainDeliveries(database, deliveryWorker(database, masterKey, clock), clock);
      assert.equal(merchant.received.length, 2);
      assert.deepEqual(merchant.received[1]!.verifiedBy, [1], 'the old secret no longer signs');
      assert.equal(String(merchant.received[1]!.headers['checkout-signature']).match(/v1=/g)!.length, 1);
    });

    test('loopback is refused unless allowed: by address literal and by a name that resolves to it', async () => {
      const tenant = await createTenant(database);
      const { receiver: merchant, url } = await receiver();
      await addEndpoint(database, masterKey, tenant, url);
      await addEndpoint(database, masterKey, tenant, url.replace('127.0.0.1', 'localhost'), {
        eventTypes: ['order.paid'],
      });
      const order = await insertOrder(database, tenant);
      await moveOrder(database, tenant, order.id, 'paid');
      const worker = deliveryWorker(database, masterKey, clock, { allowPrivateNetworks: false });
      await worker.runOnce();
      assert.equal(merchant.received.length, 0, 'nothing reached the loopback receiver');
      for (const delivery of await deliveriesOf(database, tenant.accountId)) {
        const [attempt] = await attemptsOf(database, delivery.id);
        assert.match(attempt!.error!, /^refused: .*private address/);
        assert.equal(attempt!.status_code, null);
        assert.equal(delivery.status, 'pending', 'a refused attempt is retried like any failure');
      }
      await dropQueuedDeliveries(tenant);
    });

    test('a redirect is not followed; a hanging endpoint times out; both are logged and retried', async () => {
      const tenant = await createTenant(database);
      const target = await receiver();
      const redirecting = await receiver({ alwaysAnswer: 302, extraHeaders: { location: target.url } });
      const hanging = createServer(() => {});
      await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
      closers.push(async () => {
        hanging.closeAllConnections();
        await new Promise((resolve) => hanging.close(resolve));
      });
      await addEndpoint(database, masterKey, tenant, redirecting.url);
      await addEndpoint(
        database,
        masterKey,
        tenant,
        `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/slow`,
      );
      const order = await insertOrder(database, tenant);
      await moveOrder(database, tenant, order.id, 'paid');
      await deliveryWorker(database, masterKey, clock, { timeoutMs: 300 }).runOnce();
      assert.equal(redirecting.receiver.received.length, 1);
      assert.equal(target.receiver.received.length, 0, 'the redirect target was never called');
      const outcomes = await Promise.all(
        (await deliveriesOf(database, tenant.accountId)).map(async (delivery) => ({
          delivery,
          attempt: (await attemptsOf(database, delivery.id))[0]!,
        })),
      );
      const redirected = outcomes.find((entry) => entry.attempt.status_code === 302);
      const timedOut = outcomes.find((entry) => entry.attempt.error?.startsWith('timed out'));
      assert.ok(redirected && timedOut, JSON.stringify(outcomes.map((entry) => entry.attempt)));
      assert.equal(redirected.delivery.status, 'pending');
      assert.equal(timedOut.attempt.error, 'timed out after 300 ms');
      assert.ok(timedOut.delivery.next_attempt_at! > clock.now());
      await dropQueuedDeliveries(tenant);
    });

    test('a disabled endpoint gets no new events and its pending deliveries fail unsent; enabled again, a redelivery reaches it', async () => {
      const tenant = await createTenant(database);
      const { receiver: merchant, url } = await receiver();
      const endpoint = await addEndpoint(database, masterKey, tenant, url);
      const order = await insertOrder(database, tenant);
      await moveOrder(database, tenant, order.id, 'paid');
      await setEndpointEnabled(database.db, endpoint.endpoint.id, false, new Date());
      await moveOrder(database, tenant, order.id, 'refunded');
      await drainDeliveries(database, deliveryWorker(database, masterKey, clock), clock);
      const [delivery, ...others] = await deliveriesOf(database, tenant.accountId);
      assert.equal(others.length, 0, 'the refund after disabling made no delivery');
      assert.deepEqual([delivery!.status, delivery!.last_error], ['failed', 'endpoint disabled: not sent']);
      assert.equal(merchant.received.length, 0);
      await setEndpointEnabled(database.db, endpoint.endpoint.id, true, new Date());
      assert.deepEqual(await redeliver(database.db, delivery!.event_id, clock.now()), [delivery!.id]);
      await drainDeliveries(database, deliveryWorker(database, masterKey, clock), clock);
      assert.equal(merchant.received.length, 1);
      assert.equal((await deliveriesOf(database, tenant.accountId))[0]!.status, 'delivered');
    });
  });
}
