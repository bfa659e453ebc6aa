import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { findEndpointOfAccount, listEndpoints } from '../../src/modules/notifications/endpoints.repo.ts';
import {
  endListenSession,
  LISTEN_LEASE_MS,
  renewListenSession,
  startListenSession,
} from '../../src/modules/notifications/listen-sessions.ts';
import { createTenant } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import { addEndpoint, deliveriesOf, deliveryWorker, insertOrder, moveOrder, testClock } from './fixtures.ts';
import { Receiver } from './receiver.ts';

for (const engine of engines()) {
  describe(`listen sessions on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    const masterKey = randomBytes(32);
    const receivers: Receiver[] = [];
    before(async () => {
      database = await engine.open();
    });
    after(async () => {
      await Promise.all(receivers.map((receiver) => receiver.close()));
      await database.close();
    });
    const receiver = async () => {
      const merchant = new Receiver({ secrets: [], now: () => new Date() });
      receivers.push(merchant);
      return { merchant, url: await merchant.start() };
    };
    /** Runs the attempts due now with the worker as `serve` runs it: private networks refused for every endpoint. */
    const runDueAttempts = async (clock: ReturnType<typeof testClock>) => {
      const worker = deliveryWorker(database, masterKey, clock, { allowPrivateNetworks: false, timeoutMs: 15_000 });
      for (let runs = 0; runs < 20 && (await worker.runOnce()) > 0; runs++);
    };

    test('a live session reaches its loopback receiver under the production rule; a merchant endpoint to it is still refused', async () => {
      const tenant = await createTenant(database);
      const { merchant, url } = await receiver();
      const started = new Date();
      const session = await startListenSession(
        database.db,
        masterKey,
        { account: tenant.slug, forwardTo: url, eventTypes: [] },
        started,
      );
      merchant.options.secrets = [session.secret];
      // The merchant's own endpoint to the same URL is allowed (sessions do not take the URL) but stays refused.
      const own = await addEndpoint(database, masterKey, tenant, url);
      const order = await insertOrder(database, tenant);
      await moveOrder(database, tenant, order.id, 'paid', started);
      const clock = testClock();
      // Late in the lease, so the jobs written with the wall clock since the start are due.
      clock.set(new Date(started.getTime() + LISTEN_LEASE_MS - 1_000));
      await runDueAttempts(clock);
      assert.equal(merchant.received.length, 1);
      assert.deepEqual(merchant.received[0]!.verifiedBy, [0]);
      const byEndpoint = new Map(
        (await deliveriesOf(database, tenant.accountId)).map((row) => [row.endpoint_id, row] as const),
      );
      assert.equal(byEndpoint.get(session.id)!.status, 'delivered');
      assert.match(byEndpoint.get(own.endpoint.id)!.last_error ?? '', /^refused: /);

      const renewed = await renewListenSession(database.db, session.id, 0, clock.now());
      assert.deepEqual(
        renewed.attempts.map((attempt) => [attempt.type, attempt.status_code]),
        [['order.paid', 200]],
      );
      assert.deepEqual(
        (await renewListenSession(database.db, session.id, renewed.attempts[0]!.id, clock.now())).attempts,
        [],
      );
    });

    test('a session is never listed or reachable with the merchant key; a lapsed lease sends nothing and cannot be renewed', async () => {
      const tenant = await createTenant(database);
      const { merchant, url } = await receiver();
      const started = new Date();
      const session = await startListenSession(
        database.db,
        masterKey,
        { account: tenant.slug, forwardTo: url, eventTypes: ['order.paid', 'order.refunded'] },
        started,
      );
      assert.deepEqual(await listEndpoints(database.db, tenant.accountId), []);
      assert.equal(await findEndpointOfAccount(database.db, tenant.accountId, session.id), undefined);

      // Queued while the session lived, attempted after its CLI vanished without ending it.
      const order = await insertOrder(database, tenant);
      await moveOrder(database, tenant, order.id, 'paid', started);
      const lapsed = new Date(started.getTime() + LISTEN_LEASE_MS + 1_000);
      await moveOrder(database, tenant, order.id, 'refunded', lapsed);
      const clock = testClock();
      clock.set(lapsed);
      await runDueAttempts(clock);
      const deliveries = await deliveriesOf(database, tenant.accountId);
      assert.equal(deliveries.length, 1, 'the refund after the lease made no delivery');
      assert.deepEqual(
        [deliveries[0]!.status, deliveries[0]!.last_error],
        ['failed', 'listen session ended: not sent'],
      );
      assert.equal(merchant.received.length, 0);
      await assert.rejects(renewListenSession(database.db, session.id, 0, lapsed), /has ended/);
      await endListenSession(database.db, session.id, lapsed);
    });

    test('only loopback forward targets and known event types; an unknown account is not found', async () => {
      const tenant = await createTenant(database);
      const start = (forwardTo: string, eventTypes: string[] = [], account = tenant.slug) =>
        startListenSession(database.db, masterKey, { account, forwardTo, eventTypes }, new Date());
      for (const forwardTo of ['https://example.com/hooks', 'http://10.0.0.1/hooks', 'ftp://localhost/x'])
        await assert.rejects(start(forwardTo), (error: { code?: string }) => error.code === 'validation_failed');
      await assert.rejects(start('http://localhost:3000/hooks', ['order.teleported']), /unknown event type/);
      await assert.rejects(start('http://[::1]:3000/hooks', [], 'no-such-account'), /Account not found/);
      for (const forwardTo of ['http://localhost:3000/a', 'http://127.0.0.2:3000/b', 'http://[::1]:3000/c'])
        assert.match((await start(forwardTo)).secret, /^whsec_/);
    });
  });
}
