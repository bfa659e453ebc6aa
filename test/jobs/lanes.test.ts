import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import type { Worker } from '../../src/jobs/worker.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { DELIVER_JOB } from '../../src/modules/notifications/notify.ts';
import { createWorker } from '../../src/runtime.ts';
import { engines } from '../support/engines.ts';
import { ORIGIN } from '../support/pay-fixtures.ts';
import { basic, startWebhookApp, waitFor, type WebhookApp } from '../support/webhooks-fixtures.ts';
import { addEndpoint, insertOrder, moveOrder } from '../notifications/fixtures.ts';

const DEAD_ENDPOINTS = 20;
const QUEUED_DELIVERIES = 1_000;

/** Accepts connections and never answers: every delivery to it lasts its whole timeout. */
async function startHangingServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * One merchant's notification endpoints all hang while a thousand deliveries to them are queued; another
 * merchant's Pix confirmation still marks its order paid at once, because the jobs that move money run in
 * their own lane. (Before lanes, the confirmation waited behind batches of deliveries timing out.)
 */
for (const engine of engines()) {
  describe(`job lanes on ${engine.name}`, { timeout: 180_000 }, () => {
    let database: Database;
    let hooks: WebhookApp;
    let hanging: Awaited<ReturnType<typeof startHangingServer>>;
    let worker: Worker | undefined;

    before(async () => {
      database = await engine.open();
      hooks = await startWebhookApp(database);
      hanging = await startHangingServer();
    });
    after(async () => {
      await hanging.close();
      await worker?.stop();
      await hooks.close();
      await database.close();
    });

    test('a Pix confirmation is applied within 2 s while 20 dead endpoints have 1,000 deliveries queued', async () => {
      const noisy = hooks.other;
      for (let i = 0; i < DEAD_ENDPOINTS; i++)
        await addEndpoint(database, hooks.config.masterKey, noisy, `${hanging.url}/hooks/${i}`);
      for (let i = 0; i < QUEUED_DELIVERIES / DEAD_ENDPOINTS; i++) {
        const order = await insertOrder(database, noisy);
        await moveOrder(database, noisy, order.id, 'paid');
      }
      const queued = await database.db
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('type', '=', DELIVER_JOB)
        .executeTakeFirstOrThrow();
      assert.equal(Number(queued.n), QUEUED_DELIVERIES);

      const payment = await hooks.app.inject({
        method: 'POST',
        url: '/api/v1/payments',
        headers: ORIGIN,
        payload: {
          checkout_page_id: hooks.merchant.pageId,
          products: [{ id: hooks.merchant.productId, quantity: 1 }],
          customer_email: 'lanes@example.com',
          payment_plan_id: `${hooks.merchant.pixPlanId}-1`,
        },
      });
      assert.equal(payment.statusCode, 200, payment.body);
      const gatewayId = payment.json().payments[0] as string;

      worker = createWorker(database, createLogger('silent'), {
        masterKey: hooks.config.masterKey,
        gatewayUrls: hooks.sandboxes.urls,
        clock: () => new Date(),
        notifications: { publicUrl: hooks.config.publicUrl, allowPrivateNetworks: true },
      });
      worker.start();
      // The deliveries are under way (hanging) before the confirmation arrives.
      await waitFor(async () => {
        const running = await database.db
          .selectFrom('jobs')
          .select('id')
          .where('type', '=', DELIVER_JOB)
          .where('status', '=', 'running')
          .execute();
        return running.length > 0 ? true : undefined;
      });

      const started = Date.now();
      const confirmation = await hooks.app.inject({
        method: 'POST',
        url: `/api/v1/webhooks/${hooks.merchant.companyId}/bank`,
        headers: {
          'content-type': 'application/json',
          ...basic(hooks.credentials.bank.username, hooks.credentials.bank.password),
        },
        payload: JSON.stringify({
          id: `bank-${randomUUID()}`,
          type: 'pix.received',
          data: { gateway_id: gatewayId, amount: 10_000, paid_at: new Date().toISOString() },
        }),
      });
      assert.equal(confirmation.statusCode, 200, confirmation.body);
      await waitFor(async () => {
        const order = await database.db
          .selectFrom('payments as p')
          .innerJoin('orders as o', 'o.id', 'p.order_id')
          .select('o.status')
          .where('p.gateway_id', '=', gatewayId)
          .executeTakeFirstOrThrow();
        return order.status === 'paid' ? true : undefined;
      }, 30_000);
      const elapsedMs = Date.now() - started;
      assert.ok(elapsedMs <= 2_000, `the order was paid ${elapsedMs} ms after the confirmation was acknowledged`);
    });
  });
}
