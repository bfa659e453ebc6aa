import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { malformedIntegerFinder } from '../../src/http/decimal-integers.ts';
import { bearer, useTwoShops, type Tenant } from '../support/app.ts';
import { addPageProduct, insertCheckoutPage, insertPaymentPlan, insertProduct } from '../support/catalog-fixtures.ts';
import { engines } from '../support/engines.ts';

const SHOP = { origin: 'https://shop.example' };
const hex = (n: number) => `0x${n.toString(16)}`;

describe('malformedIntegerFinder', () => {
  const find = (schema: unknown, data: unknown) => {
    const finder = malformedIntegerFinder(schema);
    const found: string[] = [];
    finder?.(data, '', found);
    return found;
  };

  test('a schema without integers needs no check', () => {
    assert.equal(
      malformedIntegerFinder(Type.Object({ q: Type.String(), ids: Type.Array(Type.String()), amount: Type.Number() })),
      undefined,
    );
  });

  test('properties, array items and hash values declared as integers must be decimal digits', () => {
    const schema = Type.Object({
      page: Type.Integer(),
      ids: Type.Array(Type.Integer()),
      products: Type.Record(Type.String({ pattern: '^[1-9][0-9]*$' }), Type.Integer(), { additionalProperties: false }),
      counts: Type.Object({}, { additionalProperties: Type.Integer() }),
      nested: Type.Object({ at: Type.Integer() }),
    });
    assert.deepEqual(
      find(schema, { page: '2', ids: ['1', '-3'], products: { 7: '2' }, counts: { a: '10' }, nested: { at: '4' } }),
      [],
    );
    assert.deepEqual(
      find(schema, {
        page: '0x1',
        ids: ['1', '1e0', ' 2'],
        products: { 7: '0x2', 8: '3' },
        counts: { 'a/b': '1.0' },
        nested: { at: '+4' },
      }),
      ['/page', '/ids/1', '/ids/2', '/products/7', '/counts/a~1b', '/nested/at'],
    );
  });

  test('the shapes coercion accepts are checked too: a lone value for an array, a one-item array for an integer', () => {
    const schema = Type.Object({ page: Type.Integer(), ids: Type.Array(Type.Integer()) });
    assert.deepEqual(find(schema, { page: ['0x1'], ids: '0x1' }), ['/page', '/ids/0']);
  });

  test('keys a hash does not declare are left to the schema', () => {
    const schema = Type.Record(Type.String({ pattern: '^[0-9]+$' }), Type.Integer(), { additionalProperties: false });
    assert.deepEqual(find(schema, { x: '0x1' }), []);
  });
});

for (const engine of engines()) {
  describe(`integers in query strings are decimal digits, in arrays and hashes too, on ${engine.name}`, () => {
    let app: FastifyInstance;
    let shop: Tenant;
    let product: number;
    let page: string;
    useTwoShops(engine, async (setup) => {
      ({ app, shop } = setup);
      product = await insertProduct(setup.database, shop, { name: 'P' });
      page = await insertCheckoutPage(setup.database, shop, {});
      await addPageProduct(setup.database, shop, page, product, { allow_quantity: true, max_quantity: 5 });
      const plan = await insertPaymentPlan(setup.database, shop, { payment_method: 'pix', name: 'Pix' });
      await setup.database.db
        .insertInto('checkout_page_payment_plans')
        .values({ account_id: shop.accountId, checkout_page_id: page, payment_plan_id: plan })
        .execute();
    });

    const get = (url: string, headers: Record<string, string>) => app.inject({ url: `/api/v1${url}`, headers });
    const assertRefused = async (url: string, headers: Record<string, string>, field: string) => {
      const res = await get(url, headers);
      assert.equal(res.statusCode, 422, `${url}: ${res.body}`);
      assert.equal(res.json().code, 'validation_failed');
      assert.ok(
        res.json().details.some((detail: { field: string }) => detail.field === field),
        `${url}: ${res.body}`,
      );
    };

    test('GET /orders company_ids[]', async () => {
      const key = bearer(shop.apiKey);
      for (const spelling of [
        hex(shop.companyId),
        `${shop.companyId}e0`,
        `%20${shop.companyId}`,
        `${shop.companyId}.0`,
      ]) {
        await assertRefused(`/orders?company_ids[]=${spelling}`, key, 'querystring/company_ids/0');
      }
      await assertRefused(
        `/orders?company_ids[]=${shop.companyId}&company_ids[]=${hex(shop.companyId)}`,
        key,
        'querystring/company_ids/1',
      );
      await assertRefused(`/orders?company_ids=${hex(shop.companyId)}`, key, 'querystring/company_ids/0');
      assert.equal((await get(`/orders?company_ids[]=${shop.companyId}`, key)).statusCode, 200);
    });

    test('GET /checkout_pages product_ids[]', async () => {
      const key = bearer(shop.apiKey);
      await assertRefused(`/checkout_pages?product_ids[]=${hex(product)}`, key, 'querystring/product_ids/0');
      const listed = await get(`/checkout_pages?product_ids[]=${product}`, key);
      assert.equal(listed.statusCode, 200, listed.body);
    });

    test('GET /payment_plans products[id] quantities (the spec’s `errors` body)', async () => {
      for (const quantity of ['0x2', '2e0', '%202']) {
        const res = await get(`/payment_plans?checkout_page_id=${page}&products[${product}]=${quantity}`, SHOP);
        assert.equal(res.statusCode, 422, `${quantity}: ${res.body}`);
        assert.deepEqual(res.json(), {
          errors: [`querystring/products/${product} must be an integer in decimal digits`],
        });
      }
      const priced = await get(`/payment_plans?checkout_page_id=${page}&products[${product}]=2`, SHOP);
      assert.equal(priced.statusCode, 200, priced.body);
    });
  });
}
