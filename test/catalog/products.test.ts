import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { bearer, type Tenant, useTwoShops } from '../support/app.ts';
import { insertCompany, insertGateway, insertProduct } from '../support/catalog-fixtures.ts';
import { documentedJson } from '../support/documented-response.ts';
import { engines } from '../support/engines.ts';

const SHOP = { origin: 'https://shop.example' };

for (const engine of engines()) {
  describe(`products on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let shop: Tenant;
    let other: Tenant;

    useTwoShops(engine, (setup) => ({ database, app, shop, other } = setup));

    const list = (query: string, key = shop.apiKey) =>
      app.inject({ url: `/api/v1/products${query}`, headers: bearer(key) });
    const create = (payload: object, key = shop.apiKey) =>
      app.inject({ method: 'POST', url: '/api/v1/products', headers: bearer(key), payload });

    describe('GET /products', () => {
      let live: number;
      let gone: number;
      let plan: number;
      before(async () => {
        live = await insertProduct(database, shop, {
          name: 'Curso de Violão',
          value_cents: 12_990,
          product_type: 'service',
        });
        gone = await insertProduct(database, shop, { name: 'Violão antigo', deleted_at: new Date() });
        plan = await insertProduct(database, shop, { name: 'Clube', subscription: true, interval: 'month' });
        await insertProduct(database, other, { name: 'Violão de outro' });
      });

      test('every ProductSummary field, live products only, in id order', async () => {
        const res = await list('');
        assert.equal(res.statusCode, 200);
        assert.deepEqual(documentedJson(app, res), [
          {
            id: live,
            name: 'Curso de Violão',
            type: 'service',
            company_id: shop.companyId,
            value: 129.9,
            deleted: false,
            subscription: false,
          },
          {
            id: plan,
            name: 'Clube',
            type: 'digital',
            company_id: shop.companyId,
            value: 10,
            deleted: false,
            subscription: true,
          },
        ]);
      });

      test('deleted=true adds the soft-deleted ones, marked; deleted=false is the default', async () => {
        const all = await list('?deleted=true');
        assert.deepEqual(
          all.json().map((p: { id: number; deleted: boolean }) => [p.id, p.deleted]),
          [
            [live, false],
            [gone, true],
            [plan, false],
          ],
        );
        assert.deepEqual(
          (await list('?deleted=false')).json().map((p: { id: number }) => p.id),
          [live, plan],
        );
      });

      test('q filters by name, case-insensitively, alone and with deleted', async () => {
        assert.deepEqual(
          (await list('?q=VIOLÃO')).json().map((p: { id: number }) => p.id),
          [live],
        );
        assert.deepEqual(
          (await list('?q=viol&deleted=true')).json().map((p: { id: number }) => p.id),
          [live, gone],
        );
        assert.deepEqual((await list('?q=nothing-like-this')).json(), []);
      });

      test('another account sees none of them; bad queries are 422; no key is 401', async () => {
        assert.deepEqual(
          (await list('?q=Curso', other.apiKey)).json().map((p: { name: string }) => p.name),
          [],
        );
        assert.equal((await list('?deleted=maybe')).statusCode, 422);
        assert.equal((await list('?sort=name')).json().code, 'validation_failed');
        assert.equal((await app.inject({ url: '/api/v1/products' })).statusCode, 401);
      });
    });

    describe('POST /products', () => {
      test('every field of ProductCreateResponse, with tax configuration and financial account when set', async () => {
        const tax = await database.db
          .insertInto('tax_configurations')
          .values({ account_id: shop.accountId, company_id: shop.companyId, name: 'Simples' })
          .returning('id')
          .executeTakeFirstOrThrow();
        const fin = await database.db
          .insertInto('financial_accounts')
          .values({ account_id: shop.accountId, company_id: shop.companyId, name: 'Receitas' })
          .returning('id')
          .executeTakeFirstOrThrow();
        const res = await create({
          name: 'Livro',
          value: 59.9,
          description: 'Capa dura',
          short_description: 'Livro',
          tax_description: 'Livros',
          unit_name: 'book',
          weight: 450,
          ncm: '49019900',
          external_id: 'book-1',
          tax_configuration_id: tax.id,
          financial_account_id: fin.id,
        });
        assert.equal(res.statusCode, 200);
        const body = documentedJson(app, res);
        assert.equal(typeof body.id, 'number');
        assert.deepEqual(body, {
          id: body.id,
          name: 'Livro',
          description: 'Capa dura',
          value: 59.9,
          tax_description: 'Livros',
          ncm: '49019900',
          unit: { name: 'book' },
          company: { id: shop.companyId, name: `Company ${shop.slug}` },
          tax_configuration: { id: tax.id, name: 'Simples' },
          financial_account: { id: fin.id, name: 'Receitas' },
        });
        const stored = await database.db
          .selectFrom('products')
          .selectAll()
          .where('id', '=', body.id)
          .executeTakeFirstOrThrow();
        assert.equal(stored.value_cents, 5990);
        assert.equal(stored.weight_grams, 450);
      });

      test('a minimal body: primary company, default unit, empty texts, no tax configuration or financial account', async () => {
        const res = await create({ name: 'Aula', value: 10 });
        assert.equal(res.statusCode, 200);
        const body = documentedJson(app, res);
        assert.deepEqual(body, {
          id: body.id,
          name: 'Aula',
          description: '',
          value: 10,
          tax_description: '',
          ncm: '',
          unit: { name: 'unit' },
          company: { id: shop.companyId, name: `Company ${shop.slug}` },
        });
        assert.equal('tax_configuration' in body, false);
        assert.equal('financial_account' in body, false);
      });

      test('the short description stands in for a missing description', async () => {
        assert.equal(
          (await create({ name: 'Resumo', value: 1, short_description: 'Curto' })).json().description,
          'Curto',
        );
      });

      test('company_id names another company of the account; another account’s is refused', async () => {
        const branch = await insertCompany(database, shop, { name: 'Filial' });
        assert.deepEqual((await create({ name: 'Filial item', value: 1, company_id: branch })).json().company, {
          id: branch,
          name: 'Filial',
        });
        const foreign = await create({ name: 'Intruso', value: 1, company_id: other.companyId });
        assert.equal(foreign.statusCode, 422);
        assert.equal(foreign.json().details[0].field, 'body/company_id');
      });

      test('a tax configuration or financial account of another account is refused', async () => {
        const tax = await database.db
          .insertInto('tax_configurations')
          .values({ account_id: other.accountId, company_id: other.companyId, name: 'X' })
          .returning('id')
          .executeTakeFirstOrThrow();
        const fin = await database.db
          .insertInto('financial_accounts')
          .values({ account_id: other.accountId, company_id: other.companyId, name: 'Y' })
          .returning('id')
          .executeTakeFirstOrThrow();
        assert.equal(
          (await create({ name: 'A', value: 1, tax_configuration_id: tax.id })).json().details[0].field,
          'body/tax_configuration_id',
        );
        assert.equal(
          (await create({ name: 'A', value: 1, financial_account_id: fin.id })).json().details[0].field,
          'body/financial_account_id',
        );
      });

      test('validation: each rule answers 422 with the field', async () => {
        const cases: Array<[object, string]> = [
          [{ value: 1 }, 'body/name'],
          [{ name: 'A' }, 'body/value'],
          [{ name: 'A', value: '12' }, 'body/value'],
          [{ name: 'A', value: 1.234 }, 'body/value'],
          [{ name: 'A', value: -1 }, 'body/value'],
          [{ name: 'A', value: 1, ncm: '123' }, 'body/ncm'],
          [{ name: 'A', value: 1, color: 'red' }, 'body/color'],
          [{ name: '', value: 1 }, 'body/name'],
        ];
        for (const [payload, field] of cases) {
          const res = await create(payload);
          assert.equal(res.statusCode, 422, JSON.stringify(payload));
          assert.equal(res.json().code, 'validation_failed');
          assert.ok(
            res.json().details.some((d: { field: string }) => d.field === field),
            `${JSON.stringify(payload)} → ${field}`,
          );
        }
      });

      test('a repeated external_id in the company is a conflict', async () => {
        assert.equal((await create({ name: 'Um', value: 1, external_id: 'dup' })).statusCode, 200);
        const again = await create({ name: 'Dois', value: 1, external_id: 'dup' });
        assert.equal(again.statusCode, 409);
        assert.equal(again.json().code, 'conflict');
      });
    });

    describe('GET /products/{id}', () => {
      test('ProductShow from an allowed origin; weight and image only when set', async () => {
        const bare = await insertProduct(database, shop, { name: 'Bare', description: 'Texto', value_cents: 2550 });
        const full = await insertProduct(database, shop, {
          name: 'Full',
          weight_grams: 300,
          image_url: 'https://img.example/full.png',
          subscription: true,
          interval: 'year',
        });
        const bareRes = await app.inject({ url: `/api/v1/products/${bare}`, headers: SHOP });
        assert.equal(bareRes.statusCode, 200);
        assert.deepEqual(bareRes.json(), {
          id: bare,
          name: 'Bare',
          description: 'Texto',
          subscription: false,
          value: 25.5,
        });
        const fullRes = await app.inject({ url: `/api/v1/products/${full}`, headers: SHOP });
        assert.deepEqual(fullRes.json(), {
          id: full,
          name: 'Full',
          description: '',
          subscription: true,
          value: 10,
          weight: 300,
          image: 'https://img.example/full.png',
        });
      });

      test('the owner’s key also reads it; a soft-deleted or unknown product is 404; a bad id is 422', async () => {
        const id = await insertProduct(database, shop);
        assert.equal(
          (await app.inject({ url: `/api/v1/products/${id}`, headers: bearer(shop.apiKey) })).statusCode,
          200,
        );
        const gone = await insertProduct(database, shop, { deleted_at: new Date() });
        assert.equal((await app.inject({ url: `/api/v1/products/${gone}`, headers: SHOP })).statusCode, 404);
        assert.equal((await app.inject({ url: '/api/v1/products/99999999', headers: SHOP })).statusCode, 404);
        assert.equal((await app.inject({ url: '/api/v1/products/abc', headers: SHOP })).statusCode, 422);
        // Only decimal digits name a product: hex, exponent or padded forms are not another spelling of an id.
        const sold = await insertProduct(database, shop);
        for (const spelling of [`0x${sold.toString(16)}`, `%20${sold}`, `${sold}e0`, `${sold}.0`]) {
          const res = await app.inject({ url: `/api/v1/products/${spelling}`, headers: SHOP });
          assert.equal(res.statusCode, 422, `${spelling}: ${res.body}`);
          assert.equal(res.json().code, 'validation_failed');
        }
        assert.equal((await app.inject({ url: `/api/v1/products/${sold}`, headers: SHOP })).statusCode, 200);
      });

      test('another account’s origin or key, or no origin at all, is 403', async () => {
        const id = await insertProduct(database, shop);
        for (const headers of [{ origin: 'https://other.example' }, bearer(other.apiKey), {}]) {
          assert.equal(
            (await app.inject({ url: `/api/v1/products/${id}`, headers })).statusCode,
            403,
            JSON.stringify(headers),
          );
        }
      });
    });

    describe('GET /products/{id}/gateway_a_public_key', () => {
      let withKey: number;
      let branchProduct: number;
      before(async () => {
        await insertGateway(database, shop, 'gateway_a', 'pk_shop_a');
        await insertGateway(database, shop, 'gateway_b', 'pk_shop_b');
        withKey = await insertProduct(database, shop);
        const branch = await insertCompany(database, shop);
        await database.db
          .insertInto('company_gateways')
          .values({ account_id: shop.accountId, company_id: branch, gateway: 'gateway_b', public_key: 'pk_b' })
          .execute();
        branchProduct = await insertProduct(database, shop, { company_id: branch });
      });
      const url = (id: number) => `/api/v1/products/${id}/gateway_a_public_key`;

      test('the gateway_a publishable key of the product’s company', async () => {
        const res = await app.inject({ url: url(withKey), headers: SHOP });
        assert.equal(res.statusCode, 200);
        assert.deepEqual(res.json(), { public_key: 'pk_shop_a' });
      });

      test('a company without an enabled gateway_a integration is 422', async () => {
        const res = await app.inject({ url: url(branchProduct), headers: SHOP });
        assert.equal(res.statusCode, 422);
        assert.equal(res.json().code, 'business_rule_violation');
        const disabledCompany = await insertCompany(database, shop);
        await database.db
          .insertInto('company_gateways')
          .values({
            account_id: shop.accountId,
            company_id: disabledCompany,
            gateway: 'gateway_a',
            public_key: 'pk_off',
            enabled: false,
          })
          .execute();
        const disabled = await insertProduct(database, shop, { company_id: disabledCompany });
        assert.equal((await app.inject({ url: url(disabled), headers: SHOP })).statusCode, 422);
      });

      test('a deleted or unknown product is 404; a bad id is 422', async () => {
        const gone = await insertProduct(database, shop, { deleted_at: new Date() });
        assert.equal((await app.inject({ url: url(gone), headers: SHOP })).statusCode, 404);
        assert.equal((await app.inject({ url: url(99999999), headers: SHOP })).statusCode, 404);
        assert.equal(
          (await app.inject({ url: '/api/v1/products/x/gateway_a_public_key', headers: SHOP })).statusCode,
          422,
        );
      });

      test('another account’s origin or key, or no origin, is 403', async () => {
        for (const headers of [{ origin: 'https://other.example' }, bearer(other.apiKey), {}]) {
          const res = await app.inject({ url: url(withKey), headers });
          assert.equal(res.statusCode, 403, JSON.stringify(headers));
          assert.equal(res.json().code, 'forbidden');
        }
        assert.equal((await app.inject({ url: url(withKey), headers: bearer(shop.apiKey) })).statusCode, 200);
      });
    });
  });
}
