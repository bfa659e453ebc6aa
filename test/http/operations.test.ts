import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { companyFromHost } from '../../src/modules/accounts/authentication.ts';
import { bearer, createTenant, startTestApp, type Tenant } from '../support/app.ts';
import { engines } from '../support/engines.ts';

for (const engine of engines()) {
  describe(`operations on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let shop: Tenant;

    before(async () => {
      database = await engine.open();
      ({ app } = await startTestApp(database, { METRICS_TOKEN: 'metrics-secret-token' }));
      shop = await createTenant(database);
    });
    after(async () => {
      await app.close();
      await database.close();
    });

    test('/healthz and /readyz answer', async () => {
      assert.deepEqual((await app.inject('/healthz')).json(), { status: 'ok' });
      const ready = await app.inject('/readyz');
      assert.equal(ready.statusCode, 200);
      assert.deepEqual(ready.json(), { status: 'ready' });
    });

    test('/metrics requires its token and reports latency per route pattern and the pool', async () => {
      await app.inject({ url: '/api/v1/products', headers: bearer(shop.apiKey) });
      assert.equal((await app.inject('/metrics')).statusCode, 401);
      const res = await app.inject({ url: '/metrics', headers: { authorization: 'Bearer metrics-secret-token' } });
      assert.equal(res.statusCode, 200);
      assert.match(
        res.body,
        /http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/products",status_code="200"\} 1/,
      );
      assert.match(res.body, /db_pool_connections\{state="total"\}/);
    });

    test('the OpenAPI 3.1 document describes the routes, their schemas and the error body', async () => {
      const res = await app.inject('/api/v1/openapi.json');
      assert.equal(res.statusCode, 200);
      const doc = res.json();
      assert.equal(doc.openapi, '3.1.0');
      assert.ok(doc.paths['/products'].get && doc.paths['/products'].post);
      assert.ok(doc.paths['/products/{id}'].get);
      assert.ok(doc.paths['/checkout_pages'].get);
      assert.ok(!doc.paths['/healthz'] && !doc.paths['/metrics']);
      assert.ok(JSON.stringify(doc).includes('card_number_refused'));
      assert.equal(doc.servers[0].url, 'http://pay.test/api/v1');
    });

    test('/docs serves the interactive reference with local assets', async () => {
      const res = await app.inject('/docs/');
      assert.equal(res.statusCode, 200);
      assert.match(res.headers['content-type'] as string, /text\/html/);
      assert.match(res.body, /\.\/static\/swagger-ui-bundle\.js/);
      assert.doesNotMatch(res.body, /https?:\/\//, 'no asset comes from another origin');
      const initializer = await app.inject('/docs/static/swagger-initializer.js');
      assert.equal(initializer.statusCode, 200);
      assert.match(initializer.body, /\.\/json/);
      const document = await app.inject('/docs/json');
      assert.equal(document.json().openapi, '3.1.0');
      assert.equal((await app.inject('/docs/static/swagger-ui-bundle.js')).statusCode, 200);
    });

    test('the per-company host form resolves the company; other hosts do not', async () => {
      assert.equal((await companyFromHost(database.db, `${shop.slug}.pay.test`, 'pay.test'))?.id, shop.companyId);
      assert.equal(
        (await companyFromHost(database.db, `${shop.slug}.pay.test:8080`, 'pay.test'))?.account_id,
        shop.accountId,
      );
      assert.equal(await companyFromHost(database.db, 'pay.test', 'pay.test'), undefined);
      assert.equal(await companyFromHost(database.db, `${shop.slug}.evil.test`, 'pay.test'), undefined);
      assert.equal(await companyFromHost(database.db, 'unknown-company.pay.test', 'pay.test'), undefined);
    });

    test('the order event log is append-only', async () => {
      const order = await database.db
        .insertInto('orders')
        .values({ uid: crypto.randomUUID(), account_id: shop.accountId, company_id: shop.companyId, source: 'api' })
        .returning('id')
        .executeTakeFirstOrThrow();
      await database.db
        .insertInto('order_events')
        .values({ account_id: shop.accountId, order_id: order.id, type: 'order.created', cause: 'test' })
        .execute();
      await assert.rejects(
        database.db.updateTable('order_events').set({ cause: 'rewritten' }).where('order_id', '=', order.id).execute(),
        /append-only/,
      );
      await assert.rejects(
        database.db.deleteFrom('order_events').where('order_id', '=', order.id).execute(),
        /append-only/,
      );
      const rows = await database.db
        .selectFrom('order_events')
        .select('cause')
        .where('order_id', '=', order.id)
        .execute();
      assert.deepEqual(rows, [{ cause: 'test' }]);
    });
  });
}
