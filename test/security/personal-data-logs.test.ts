import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import type { Database } from '../../src/db/database.ts';
import type { Worker } from '../../src/jobs/worker.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { seedDemo, type DemoSeedResult } from '../../src/modules/demo/demo-seed.ts';
import { deliverySettings } from '../../src/modules/notifications/delivery.job.ts';
import { createWorker } from '../../src/runtime.ts';
import { startLocalSandboxes, type LocalSandboxes } from '../../src/sandbox-runtime.ts';
import { bearer, LogCapture, testConfig } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import { waitFor } from '../support/webhooks-fixtures.ts';

/**
 * The demo merchant at the most verbose log level, with its worker and sandboxes, through every path that
 * handles a buyer's personal data or a key: the demo seed, a customer upsert, order searches by CPF, e-mail,
 * phone and name, a Pix payment confirmed by the gateway's webhook, keys in paths and query strings, and
 * refused requests that quote them. Then every log line is searched for every one of those values, raw and
 * URL-encoded.
 */
const BUYER = {
  name: 'Joana Registro Sigiloso',
  email: 'joana.registro@example.com',
  phone: '21987651234',
  identification: '11144477735',
};

for (const engine of engines()) {
  describe(`no personal data or key in any log line on ${engine.name}`, { timeout: 180_000 }, () => {
    let database: Database;
    let config: Config;
    let app: FastifyInstance;
    let sandboxes: LocalSandboxes;
    let worker: Worker;
    let demo: DemoSeedResult;
    const logs = new LogCapture();
    /** Every value that must not be logged, by what it is. */
    const handled = new Map<string, string>();
    const use = (what: string, value: string) => {
      handled.set(value, what);
      return value;
    };
    let requests = 0;
    const send = async (options: InjectOptions) => {
      requests++;
      return app.inject(options);
    };

    before(async () => {
      database = await engine.open();
      config = testConfig({ LOG_LEVEL: 'trace' });
      const logger = createLogger('trace', logs);
      demo = await seedDemo(database, config, new Date());
      let url: string | undefined;
      sandboxes = await startLocalSandboxes(database, config, () => url);
      app = await buildApp({ config, database, logger, gatewayUrls: sandboxes.urls });
      url = await app.listen({ port: 0, host: '127.0.0.1' });
      worker = createWorker(database, logger, {
        masterKey: config.masterKey,
        gatewayUrls: sandboxes.urls,
        clock: () => new Date(),
        notifications: deliverySettings(config),
      });
      worker.start();
    });
    after(async () => {
      await app.close();
      await worker.stop();
      await sandboxes.close();
      await database.close();
    });

    test('a run through the demo with personal data and keys everywhere a client puts them', async () => {
      const key = use('demo API key', demo.api_key);
      use('demo API key secret part', key.split('_').slice(2).join('_'));
      use('other account API key', demo.other_account.api_key);
      use('demo customer CPF', '52998224725');
      use('demo customer e-mail', 'cliente.demo@example.com');
      use('demo customer name', 'Cliente Demo');
      use('demo customer phone', '11987654321');
      for (const [field, value] of Object.entries(BUYER)) use(`buyer ${field}`, value);
      for (const credential of Object.values(demo.webhook_credentials))
        for (const secret of [credential.password, credential.secret]) if (secret) use('webhook credential', secret);
      const origin = { origin: demo.allowed_origin };

      // A customer upsert with every personal field, by key and from the allowed origin.
      const upsert = await send({ method: 'POST', url: '/api/v1/customers', headers: bearer(key), payload: BUYER });
      assert.equal(upsert.statusCode, 200, upsert.body);
      const deal = await send({
        method: 'POST',
        url: '/api/v1/customers',
        headers: origin,
        payload: {
          ...BUYER,
          create_deal: true,
          main_product_id: demo.products.ebook,
          checkout_page_id: demo.checkout_pages.ebook,
        },
      });
      assert.equal(deal.statusCode, 200, deal.body);
      // Searches by CPF, e-mail (raw and encoded), phone and name; a CPF formatted; an e-mail in a meta filter.
      for (const q of [
        '52998224725',
        '529.982.247-25',
        'cliente.demo@example.com',
        encodeURIComponent(BUYER.email),
        BUYER.phone,
        'Cliente+Demo',
        encodeURIComponent(BUYER.name),
      ]) {
        const res = await send({ url: `/api/v1/orders?q=${q}`, headers: bearer(key) });
        assert.equal(res.statusCode, 200, `${q}: ${res.body}`);
      }
      assert.equal(
        (await send({ url: `/api/v1/orders?meta[]=email:${BUYER.email}`, headers: bearer(key) })).statusCode,
        200,
      );
      use('formatted CPF', '529.982.247-25');
      // An order created with the buyer, and one refused (unknown product) that quotes the same data.
      const order = await send({
        method: 'POST',
        url: '/api/v1/orders',
        headers: bearer(key),
        payload: { customer: BUYER, items: [{ product_id: demo.products.course }] },
      });
      assert.equal(order.statusCode, 201, order.body);
      const refused = await send({
        method: 'POST',
        url: '/api/v1/orders',
        headers: bearer(key),
        payload: { customer: BUYER, items: [{ product_id: 999_999 }] },
      });
      assert.equal(refused.statusCode, 422, refused.body);
      // Keys where they do not belong: in a path, in a query string, another account's.
      assert.equal((await send({ url: `/api/v1/orders/${key}`, headers: bearer(key) })).statusCode, 422);
      assert.equal((await send({ url: `/api/v1/products/${demo.other_account.api_key}` })).statusCode, 422);
      assert.equal((await send({ url: `/api/v1/products?q=${key}`, headers: bearer(key) })).statusCode, 200);
      assert.equal((await send({ url: `/api/v1/orders?key_id=${key}`, headers: bearer(key) })).statusCode, 422);
      // A Pix payment of the demo page by the buyer, confirmed by the gateway's webhook, applied by the worker.
      const pix = await send({
        method: 'POST',
        url: '/api/v1/payments',
        headers: origin,
        payload: {
          checkout_page_id: demo.checkout_pages.ebook,
          products: [{ id: demo.products.ebook, quantity: 1 }],
          customer_email: BUYER.email,
          customer_phone: BUYER.phone,
          payment_plan_id: `${demo.payment_plans.pix}-1`,
        },
      });
      assert.equal(pix.statusCode, 200, pix.body);
      const gatewayId = pix.json().payments[0] as string;
      const confirmed = await fetch(`${sandboxes.urls.gateway_a}/sandbox/charges/${gatewayId}/confirm`, {
        method: 'POST',
      });
      assert.equal(confirmed.status, 200);
      await waitFor(async () => {
        const row = await database.db
          .selectFrom('payments as p')
          .innerJoin('orders as o', 'o.id', 'p.order_id')
          .select('o.status')
          .where('p.gateway_id', '=', gatewayId)
          .executeTakeFirstOrThrow();
        return row.status === 'paid' ? true : undefined;
      });
      await waitFor(async () => {
        const pending = await database.db
          .selectFrom('jobs')
          .select('id')
          .where('status', 'in', ['queued', 'running'])
          .where('run_at', '<=', new Date())
          .execute();
        return pending.length === 0 ? true : undefined;
      }, 20_000);
    });

    test('not one log line holds any of those values, raw or URL-encoded', () => {
      assert.ok(handled.size >= 12, `${handled.size} values`);
      for (const [value, what] of handled) {
        for (const written of new Set([value, encodeURIComponent(value), value.replaceAll(' ', '+')])) {
          const line = logs.lines.find((candidate) => candidate.includes(written));
          assert.equal(line, undefined, `${what} appears in a log line: ${line?.slice(0, 300)}`);
        }
      }
      // The scan read the run's logs: every request is there, its URL masked where it had to be.
      assert.ok(logs.lines.filter((line) => line.includes('"incoming request"')).length >= requests, 'request lines');
      assert.ok(logs.lines.some((line) => line.includes('/api/v1/orders?q=[Redacted]')));
      assert.ok(logs.lines.some((line) => line.includes('/api/v1/orders/[Redacted]')));
      assert.ok(
        logs.lines.some((line) => line.includes('"job done"')),
        'the worker logged its jobs',
      );
    });
  });
}
