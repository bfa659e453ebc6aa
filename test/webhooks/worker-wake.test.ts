import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import type { Worker } from '../../src/jobs/worker.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { createWorker } from '../../src/runtime.ts';
import { engines } from '../support/engines.ts';
import { ORIGIN } from '../support/pay-fixtures.ts';
import { basic, startWebhookApp, waitFor, type WebhookApp } from '../support/webhooks-fixtures.ts';

/**
 * A receiver acknowledges before anything is applied; the worker of the same process (as `checkout serve`
 * runs it) is woken by the acknowledgement instead of waiting out its poll interval. The interval here is
 * a minute, far longer than any wait below, so an effect that lands came from the wake.
 */
for (const engine of engines()) {
  describe(
    `the receiving process's worker is woken by an acknowledged event on ${engine.name}`,
    { timeout: 120_000 },
    () => {
      let database: Database;
      let hooks: WebhookApp;
      let worker: Worker;

      before(async () => {
        database = await engine.open();
        hooks = await startWebhookApp(database);
        worker = createWorker(
          database,
          createLogger('silent'),
          {
            masterKey: hooks.config.masterKey,
            gatewayUrls: hooks.sandboxes.urls,
            clock: () => new Date(),
            notifications: { publicUrl: hooks.config.publicUrl, allowPrivateNetworks: false },
          },
          { pollIntervalMs: 60_000 },
        );
      });
      after(async () => {
        await worker.stop();
        await hooks.close();
        await database.close();
      });

      const payPix = async () => {
        const res = await hooks.app.inject({
          method: 'POST',
          url: '/api/v1/payments',
          headers: ORIGIN,
          payload: {
            checkout_page_id: hooks.merchant.pageId,
            products: [{ id: hooks.merchant.productId, quantity: 1 }],
            customer_email: 'wake@example.com',
            payment_plan_id: `${hooks.merchant.pixPlanId}-1`,
          },
        });
        assert.equal(res.statusCode, 200, res.body);
        return res.json().payments[0] as string;
      };
      const orderStatus = async (gatewayId: string) =>
        (
          await database.db
            .selectFrom('payments as p')
            .innerJoin('orders as o', 'o.id', 'p.order_id')
            .select('o.status')
            .where('p.gateway_id', '=', gatewayId)
            .executeTakeFirstOrThrow()
        ).status;
      const bankPaid = async (gatewayId: string) => {
        const res = await hooks.app.inject({
          method: 'POST',
          url: `/api/v1/webhooks/${hooks.merchant.companyId}/bank`,
          headers: basic(hooks.credentials.bank.username, hooks.credentials.bank.password),
          payload: {
            id: `wake-${randomUUID()}`,
            type: 'pix.received',
            data: { gateway_id: gatewayId, amount: 10_000, paid_at: new Date().toISOString() },
          },
        });
        assert.equal(res.statusCode, 200);
        assert.deepEqual(res.json(), { status: 'received' });
      };
      const paid = (gatewayId: string) =>
        waitFor(async () => ((await orderStatus(gatewayId)) === 'paid' ? true : undefined), 30_000);

      test('an event acknowledged while the worker sleeps out a one-minute poll interval is applied without waiting for it', async () => {
        const first = await payPix();
        await bankPaid(first);
        // The worker's first run applies what is already due, then it sleeps for its interval.
        worker.start();
        await paid(first);

        for (let round = 0; round < 3; round++) {
          const gatewayId = await payPix();
          await bankPaid(gatewayId);
          await paid(gatewayId);
        }
      });

      test('with the worker stopped an acknowledged event waits; started again, the worker applies it and is woken as before', async () => {
        await worker.stop();
        const waiting = await payPix();
        await bankPaid(waiting);
        assert.equal(await orderStatus(waiting), 'waiting_payment');
        worker.start();
        await paid(waiting);
        const next = await payPix();
        await bankPaid(next);
        await paid(next);
      });
    },
  );
}
