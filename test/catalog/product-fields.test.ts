import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import {
  MerchantDocumentError,
  parseMerchantDocument,
  validateMerchantDocument,
} from '../../src/modules/merchant-file/merchant-document.ts';
import { bearer, type Tenant, useTwoShops } from '../support/app.ts';
import { engines } from '../support/engines.ts';

for (const engine of engines()) {
  describe(`POST /products: names that show and weights in whole grams on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let shop: Tenant;
    useTwoShops(engine, (setup) => ({ database, app, shop } = setup));

    const create = (payload: object) =>
      app.inject({ method: 'POST', url: '/api/v1/products', headers: bearer(shop.apiKey), payload });
    const productCount = async () =>
      (await database.db.selectFrom('products').select('id').where('account_id', '=', shop.accountId).execute()).length;

    test('a name without a visible character is a 422 naming the field; nothing is stored', async () => {
      const before = await productCount();
      // Spaces, a no-break space and a tab, a zero-width space, a lone combining accent, an ideographic space.
      for (const name of [' ', '   ', '\u00a0\t', '\u200b\u200b', '\u0301', '\u3000', '\n']) {
        const res = await create({ name, value: 10 });
        assert.equal(res.statusCode, 422, JSON.stringify(name));
        assert.equal(res.json().code, 'validation_failed');
        assert.deepEqual(res.json().details, [{ field: 'body/name', message: 'must contain a visible character' }]);
      }
      assert.equal(await productCount(), before);
      for (const name of [' Café ', 'é', '🎸', '課程', '-']) {
        const res = await create({ name, value: 10 });
        assert.equal(res.statusCode, 200, `${name}: ${res.body}`);
        assert.equal(res.json().name, name);
      }
    });

    test('weight is whole grams: 1e-7 and 450.5 are refused, 0 and 450 (also written 450.0) are stored', async () => {
      const before = await productCount();
      for (const weight of [1e-7, 0.5, 450.5, 999_999.999]) {
        const res = await create({ name: 'Livro', value: 10, weight });
        assert.equal(res.statusCode, 422, `${weight}: ${res.body}`);
        assert.deepEqual(res.json().details, [{ field: 'body/weight', message: 'must be a whole number' }]);
      }
      assert.equal(await productCount(), before);
      for (const [raw, grams] of [
        ['0', 0],
        ['450', 450],
        ['450.0', 450],
        ['1000000', 1_000_000],
      ] as const) {
        const res = await app.inject({
          method: 'POST',
          url: '/api/v1/products',
          headers: { ...bearer(shop.apiKey), 'content-type': 'application/json' },
          payload: `{"name":"Livro","value":10,"weight":${raw}}`,
        });
        assert.equal(res.statusCode, 200, `${raw}: ${res.body}`);
        const stored = await database.db
          .selectFrom('products')
          .select('weight_grams')
          .where('id', '=', res.json().id)
          .executeTakeFirstOrThrow();
        assert.equal(stored.weight_grams, grams);
      }
    });
  });
}

describe('a merchant file’s product names show too', () => {
  test('a product named by spaces only is a problem naming its path', () => {
    const document = parseMerchantDocument(
      readFileSync(new URL('../../examples/merchant.yaml', import.meta.url), 'utf8'),
      'merchant.yaml',
    );
    document.companies[0]!.products![0]!.name = ' \u200b ';
    assert.throws(
      () => validateMerchantDocument(document, 'edited'),
      (error: unknown) =>
        error instanceof MerchantDocumentError &&
        /companies\[0\]\.products\[0\]\.name: must contain a visible character/.test(error.message),
    );
  });
});
