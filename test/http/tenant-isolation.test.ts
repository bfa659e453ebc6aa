import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { bearer, createTenant, startTestApp, type Tenant } from '../support/app.ts';
import { engines } from '../support/engines.ts';

/** Each resource kind with an endpoint: another account's key never reads or changes it. */
for (const engine of engines()) {
  describe(`tenant isolation on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let alpha: Tenant;
    let beta: Tenant;
    let alphaProductId: number;
    let alphaPageId: string;

    before(async () => {
      database = await engine.open();
      ({ app } = await startTestApp(database));
      alpha = await createTenant(database, { allowedHosts: ['alpha.example'] });
      beta = await createTenant(database, { allowedHosts: ['beta.example'] });
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/products',
        headers: bearer(alpha.apiKey),
        payload: { name: 'Alpha course', value: 99.9 },
      });
      alphaProductId = res.json().id;
      alphaPageId = randomUUID();
      await database.db
        .insertInto('checkout_pages')
        .values({ id: alphaPageId, account_id: alpha.accountId, company_id: alpha.companyId, page_title: 'Alpha page' })
        .execute();
      await database.db
        .insertInto('checkout_page_products')
        .values({ account_id: alpha.accountId, checkout_page_id: alphaPageId, product_id: alphaProductId })
        .execute();
    });
    after(async () => {
      await app.close();
      await database.close();
    });

    test('products: the list shows only the caller’s own', async () => {
      const list = await app.inject({ url: '/api/v1/products', headers: bearer(beta.apiKey) });
      assert.deepEqual(list.json(), []);
      const own = await app.inject({ url: '/api/v1/products', headers: bearer(alpha.apiKey) });
      assert.equal(own.json().length, 1);
    });

    test('products: another account’s key or origin cannot read one', async () => {
      assert.equal(
        (await app.inject({ url: `/api/v1/products/${alphaProductId}`, headers: bearer(beta.apiKey) })).statusCode,
        403,
      );
      assert.equal(
        (await app.inject({ url: `/api/v1/products/${alphaProductId}`, headers: { origin: 'https://beta.example' } }))
          .statusCode,
        403,
      );
      assert.equal(
        (await app.inject({ url: `/api/v1/products/${alphaProductId}`, headers: { origin: 'https://alpha.example' } }))
          .statusCode,
        200,
      );
    });

    test('products: another account’s company cannot be written to', async () => {
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/products',
        headers: bearer(beta.apiKey),
        payload: { name: 'Intruder', value: 1, company_id: alpha.companyId },
      });
      assert.equal(res.statusCode, 422);
      assert.equal(res.json().code, 'validation_failed');
      const names = await database.db
        .selectFrom('products')
        .select('name')
        .where('company_id', '=', alpha.companyId)
        .execute();
      assert.deepEqual(
        names.map((r) => r.name),
        ['Alpha course'],
      );
    });

    test('search text is matched literally: % and _ are not wildcards', async () => {
      for (const url of ['/api/v1/products?q=%25', '/api/v1/products?q=_', '/api/v1/checkout_pages?q=%25']) {
        const res = await app.inject({ url, headers: bearer(alpha.apiKey) });
        assert.equal(res.statusCode, 200);
        assert.deepEqual(res.json(), [], url);
      }
      const hit = await app.inject({ url: '/api/v1/products?q=alpha%20COURSE', headers: bearer(alpha.apiKey) });
      assert.equal(hit.json().length, 1);
    });

    test('checkout pages: the list shows only the caller’s own, whatever the filters', async () => {
      const own = await app.inject({ url: '/api/v1/checkout_pages', headers: bearer(alpha.apiKey) });
      assert.deepEqual(
        own.json().map((p: { id: string }) => p.id),
        [alphaPageId],
      );
      for (const query of ['', `?product_ids[]=${alphaProductId}`, '?q=Alpha', '?has_products=true']) {
        const res = await app.inject({ url: `/api/v1/checkout_pages${query}`, headers: bearer(beta.apiKey) });
        assert.equal(res.statusCode, 200);
        assert.deepEqual(res.json(), [], query);
      }
    });
  });
}
