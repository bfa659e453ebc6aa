import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { OPENING_STREAK } from '../../src/modules/notifications/circuit-breaker.ts';
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
} from './fixtures.ts';
import { Receiver } from './receiver.ts';

const DELIVERIES = OPENING_STREAK + 2;

/**
 * An endpoint that keeps failing opens its circuit: the attempts due while it is open are logged as not sent
 * and cost no request; once the open period ends one probe goes out, and its success closes the circuit.
 */
for (const engine of engines()) {
  describe(`the circuit breaker of an endpoint on ${engine.name}`, { timeout: 180_000 }, () => {
    let database: Database;
    let merchant: Receiver;
    const masterKey = randomBytes(32);
    const clock = testClock();

    before(async () => {
      database = await engine.open();
      merchant = new Receiver({ now: () => clock.now(), secrets: [], alwaysAnswer: 503 });
    });
    after(async () => {
      await merchant.close();
      await database.close();
    });

    test(`after ${OPENING_STREAK} failures in a row nothing is sent until one probe succeeds`, async () => {
      const tenant = await createTenant(database);
      const endpoint = await addEndpoint(database, masterKey, tenant, await merchant.start());
      for (let i = 0; i < DELIVERIES; i++) {
        const order = await insertOrder(database, tenant);
        await moveOrder(database, tenant, order.id, 'paid', clock.now());
      }
      const worker = deliveryWorker(database, masterKey, clock);
      while ((await worker.runOnce()) > 0);

      assert.equal(merchant.received.length, OPENING_STREAK, 'the attempts after the circuit opened were not sent');
      const health = await database.db
        .selectFrom('notification_endpoints')
        .select(['failure_streak', 'circuit_open_until'])
        .where('id', '=', endpoint.endpoint.id)
        .executeTakeFirstOrThrow();
      assert.equal(health.failure_streak, OPENING_STREAK);
      assert.ok(health.circuit_open_until && health.circuit_open_until > clock.now());
      const firstAttempts = await Promise.all(
        (await deliveriesOf(database, tenant.accountId)).map(
          async (delivery) => (await attemptsOf(database, delivery.id))[0]!,
        ),
      );
      const notSent = firstAttempts.filter((attempt) => /circuit is open/.test(attempt.error ?? ''));
      assert.equal(notSent.length, DELIVERIES - OPENING_STREAK);
      assert.ok(notSent.every((attempt) => attempt.status_code === null && attempt.duration_ms === 0));

      merchant.options.alwaysAnswer = 200;
      await drainDeliveries(database, worker, clock);
      const deliveries = await deliveriesOf(database, tenant.accountId);
      assert.ok(deliveries.every((delivery) => delivery.status === 'delivered'));
      assert.equal(
        merchant.received.length,
        OPENING_STREAK + DELIVERIES,
        'once recovered, one request per delivery (the probe first)',
      );
      const closed = await database.db
        .selectFrom('notification_endpoints')
        .select(['failure_streak', 'circuit_open_until'])
        .where('id', '=', endpoint.endpoint.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(closed, { failure_streak: 0, circuit_open_until: null });
    });
  });
}
