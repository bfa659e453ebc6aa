import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { bearer } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import {
  addCompany,
  createPricingMerchant,
  insertCoupon,
  insertProduct,
  startPricingApp,
  type PricingMerchant,
} from '../support/pricing-fixtures.ts';

const NOW = new Date('2026-03-15T15:00:00Z');
const ALPHA = { origin: 'https://alpha.example' };

for (const engine of engines()) {
  describe(`GET /coupons/{code}/validate on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let setNow: (now: Date) => void;
    let alpha: PricingMerchant;
    let beta: PricingMerchant;
    let sisterProduct: number;

    const validate = (code: string, productIds?: string, headers: Record<string, string> = ALPHA) =>
      app.inject({
        url: `/api/v1/coupons/${code}/validate${productIds === undefined ? '' : `?product_id=${productIds}`}`,
        headers,
      });

    before(async () => {
      database = await engine.open();
      ({ app, setNow } = await startPricingApp(database, NOW));
      alpha = await createPricingMerchant(database, ['alpha.example']);
      beta = await createPricingMerchant(database, ['beta.example']);
      await insertCoupon(database.db, alpha.tenant, { code: 'REMOVED', percentage: 5, deleted: true });
      await insertCoupon(database.db, alpha.tenant, {
        code: 'UNTIL',
        percentage: 7.5,
        expiresAt: new Date('2026-03-20T00:00:00Z'),
      });
      const sister = await addCompany(database.db, alpha.tenant, `${alpha.tenant.slug}-b`);
      sisterProduct = await insertProduct(database.db, sister, 300, { companyId: sister.companyId });
    });
    after(async () => {
      await app.close();
      await database.close();
    });

    test('a percentage coupon: the code as stored, the percent, the type', async () => {
      const res = await validate('ten', String(alpha.products.course));
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { code: 'TEN', value: 10, type: 'percentage' });
      assert.deepEqual((await validate('UNTIL', String(alpha.products.course))).json(), {
        code: 'UNTIL',
        value: 7.5,
        type: 'percentage',
      });
    });

    test('a price coupon: the amount in major units', async () => {
      assert.deepEqual((await validate('MINUS20', String(alpha.products.course))).json(), {
        code: 'MINUS20',
        value: 20,
        type: 'price',
      });
    });

    test('a restricted coupon applies only when every listed product is one of its own', async () => {
      assert.equal((await validate('EBOOKONLY', String(alpha.products.ebook))).statusCode, 200);
      assert.equal((await validate('EBOOKONLY', `${alpha.products.ebook},${alpha.products.ebook}`)).statusCode, 200);
      const mixed = await validate('EBOOKONLY', `${alpha.products.ebook}, ${alpha.products.course}`);
      assert.equal(mixed.statusCode, 422);
      assert.deepEqual(mixed.json(), { error: 'Coupon does not apply to these products' });
      assert.deepEqual((await validate('EBOOKONLY', undefined, bearer(alpha.tenant.apiKey))).json(), {
        error: 'Coupon does not apply to these products',
      });
    });

    for (const [code, error] of [
      ['NOPE', 'Coupon not found'],
      ['REMOVED', 'Coupon not found'],
      ['OLD', 'Coupon has expired'],
      ['GONE', 'Coupon has reached its usage limit'],
    ] as [string, string][]) {
      test(`${code}: 422 { error: "${error}" }`, async () => {
        const res = await validate(code, String(alpha.products.course));
        assert.equal(res.statusCode, 422);
        assert.deepEqual(res.json(), { error });
      });
    }

    test('expiry is judged at the app clock', async () => {
      setNow(new Date('2026-03-20T00:00:00Z'));
      try {
        assert.deepEqual((await validate('UNTIL', String(alpha.products.course))).json(), {
          error: 'Coupon has expired',
        });
      } finally {
        setNow(NOW);
      }
    });

    test('a malformed product list or query: 422 { error }', async () => {
      for (const list of ['abc', '1,,2', '1,', '0', '-1', '1;2', `${'1,'.repeat(100)}1`]) {
        const res = await validate('TEN', encodeURIComponent(list));
        assert.equal(res.statusCode, 422, list);
        assert.deepEqual(Object.keys(res.json()), ['error'], list);
      }
      const unknownParam = await app.inject({
        url: `/api/v1/coupons/TEN/validate?product_id=${alpha.products.course}&x=1`,
        headers: ALPHA,
      });
      assert.equal(unknownParam.statusCode, 422);
      assert.equal(typeof unknownParam.json().error, 'string');
    });

    test('unknown products, or products of two companies: 422', async () => {
      assert.deepEqual((await validate('TEN', '999999')).json(), { error: 'Product not found' });
      assert.deepEqual((await validate('TEN', `${alpha.products.course},${sisterProduct}`)).json(), {
        error: 'The products belong to different companies',
      });
    });

    test('the company comes from the products: another company’s code is not found', async () => {
      assert.deepEqual((await validate('TEN', String(sisterProduct))).json(), { error: 'Coupon not found' });
    });

    test('the company comes from the per-company host, whose products alone are accepted', async () => {
      const host = { ...ALPHA, host: `${alpha.tenant.slug}.pay.test` };
      assert.deepEqual((await validate('TEN', undefined, host)).json(), { code: 'TEN', value: 10, type: 'percentage' });
      assert.deepEqual((await validate('TEN', String(beta.products.course), host)).json(), {
        error: 'Product not found',
      });
    });

    test('the company comes from the API key when nothing else names it; neither: 422', async () => {
      assert.equal((await validate('TEN', undefined, bearer(alpha.tenant.apiKey))).statusCode, 200);
      assert.deepEqual((await validate('TEN')).json(), {
        error: 'Send product_id, an API key, or use the company’s own host',
      });
    });

    test('403 with no body: no origin, another account’s origin, host or key, an invalid key', async () => {
      const course = String(alpha.products.course);
      for (const [productIds, headers] of [
        [course, {}],
        [course, { origin: 'https://beta.example' }],
        [course, bearer(beta.tenant.apiKey)],
        [course, { ...ALPHA, ...bearer('ck_0000000000000000_invalid') }],
        [undefined, { ...ALPHA, host: `${beta.tenant.slug}.pay.test` }],
      ] as [string | undefined, Record<string, string>][]) {
        const res = await validate('TEN', productIds, headers);
        assert.equal(res.statusCode, 403, JSON.stringify(headers));
        assert.equal(res.body, '');
      }
    });

    test('each account sees its own coupon under the same code', async () => {
      await database.db
        .updateTable('coupons')
        .set({ percentage: 25 })
        .where('account_id', '=', beta.tenant.accountId)
        .where('code', '=', 'TEN')
        .returning('id')
        .execute();
      const betaView = await validate('TEN', String(beta.products.course), { origin: 'https://beta.example' });
      assert.deepEqual(betaView.json(), { code: 'TEN', value: 25, type: 'percentage' });
      assert.deepEqual((await validate('TEN', String(alpha.products.course))).json(), {
        code: 'TEN',
        value: 10,
        type: 'percentage',
      });
    });
  });
}
