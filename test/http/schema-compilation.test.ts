import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp } from '../../src/app.ts';
import type { Database } from '../../src/db/database.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { bearer, createTenant, testConfig, type Tenant } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import { insertProduct } from '../support/records-fixtures.ts';

// Both ways of compiling the routes' schemas: `eager` (the server) compiles every one before ready, so a broken
// schema anywhere fails here; `lazy` (commands, test apps) compiles each on first use and must answer the same.
for (const engine of engines()) {
  describe(`schema compilation on ${engine.name}`, () => {
    let database: Database;
    let eager: FastifyInstance;
    let lazy: FastifyInstance;
    let shop: Tenant;
    const build = (schemaCompilation: 'eager' | 'lazy') =>
      buildApp({ config: testConfig(), database, logger: createLogger('silent'), schemaCompilation });

    before(async () => {
      database = await engine.open();
      shop = await createTenant(database);
    });
    after(async () => {
      await eager?.close();
      await lazy?.close();
      await database.close();
    });

    test('every route of the eager app compiles its request and response schemas before it is ready', async () => {
      eager = await build('eager');
      await eager.ready();
      lazy = await build('lazy');
      await lazy.ready();
      assert.deepEqual(lazy.printRoutes(), eager.printRoutes(), 'the same routes either way');
    });

    test('the lazy app validates, coerces and serializes as the eager one: errors, created records and reads', async () => {
      const product = await insertProduct(database, shop, { name: 'Curso', valueCents: 12_990 });
      const requests: Array<InjectOptions & { url: string }> = [
        { method: 'POST', url: '/api/v1/customers', headers: bearer(shop.apiKey), payload: { name: 42 } },
        { method: 'GET', url: '/api/v1/orders?limit=abc', headers: bearer(shop.apiKey) },
        { method: 'GET', url: '/api/v1/orders?limit=0x10', headers: bearer(shop.apiKey) },
        { method: 'GET', url: `/api/v1/products/${product}`, headers: bearer(shop.apiKey) },
        { method: 'GET', url: '/api/v1/products?limit=1', headers: bearer(shop.apiKey) },
        { method: 'GET', url: '/api/v1/orders', headers: bearer(shop.apiKey) },
      ];
      for (const request of requests) {
        const [fromLazy, fromEager] = [await lazy.inject(request), await eager.inject(request)];
        assert.equal(fromLazy.statusCode, fromEager.statusCode, `${request.url}: ${fromLazy.body}`);
        assert.deepEqual(withoutRequestIds(fromLazy.json()), withoutRequestIds(fromEager.json()), request.url);
      }
      const read = await lazy.inject(requests[3]!);
      assert.equal(read.statusCode, 200);
      assert.equal(read.json().name, 'Curso');
      assert.equal((await lazy.inject(requests[0]!)).statusCode, 422);
      assert.equal((await lazy.inject(requests[2]!)).statusCode, 422);
    });
  });
}

function withoutRequestIds(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body), (key, value) => (key === 'request_id' ? undefined : value));
}
