import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { bearer, createTenant, type Tenant } from '../support/app.ts';
import { documentedJson } from '../support/documented-response.ts';
import { engines } from '../support/engines.ts';
import {
  insertCartPage,
  insertGateway,
  insertPaymentPlan,
  insertProduct,
  startRecordsApp,
  VALID_CPF,
} from '../support/records-fixtures.ts';

const ALPHA_ORIGIN = { origin: 'https://alpha.example' };

for (const engine of engines()) {
  describe(`carts on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let alpha: Tenant;
    let beta: Tenant;
    let page: string;
    let plainPage: string;
    let betaPage: string;
    let plan: number;
    let book: number;
    let betaProduct: number;
    const create = (payload: Record<string, unknown>, pageId = page, tenant = alpha) =>
      app.inject({ method: 'POST', url: `/api/v1/carts/${pageId}`, headers: bearer(tenant.apiKey), payload });
    const show = (uid: string, headers: Record<string, string> = ALPHA_ORIGIN) =>
      app.inject({ url: `/api/v1/carts/${uid}`, headers });

    before(async () => {
      database = await engine.open();
      ({ app } = await startRecordsApp(database));
      alpha = await createTenant(database, { allowedHosts: ['alpha.example'] });
      beta = await createTenant(database, { allowedHosts: ['beta.example'] });
      plan = await insertPaymentPlan(database, alpha, 'pix', 'Pix');
      await insertGateway(database, alpha, 'gateway_b', 'pk_b_123');
      page = await insertCartPage(database, alpha, {
        title: 'Carrinho',
        gateway: 'gateway_b',
        mainColor: '#112233',
        logoUrl: 'https://cdn.example/logo.png',
        menus: [{ label: 'Ajuda', url: 'https://x.example' }],
        integrations: { pixel: 'abc' },
        enableCoupons: true,
        enableTwoCards: true,
        customCode: '<script></script>',
        defaultPaymentPlanId: plan,
      });
      plainPage = await insertCartPage(database, alpha, { gateway: 'gateway_c' });
      betaPage = await insertCartPage(database, beta);
      book = await insertProduct(database, alpha, {
        name: 'Livro',
        valueCents: 7_990,
        externalId: 'book-1',
        imageUrl: 'https://cdn.example/book.png',
      });
      betaProduct = await insertProduct(database, beta, { name: 'Beta' });
    });
    after(async () => {
      await app.close();
      await database.close();
    });

    test('POST creates the cart and answers its id and hosted link', async () => {
      const res = await create({ payment_method: 'pix', items: [{ id: book }] });
      assert.equal(res.statusCode, 201);
      const { id, link } = res.json();
      assert.match(id, /^[0-9a-f-]{36}$/);
      assert.equal(link, `http://pay.test/pay/carts/${id}`);
      const row = await database.db.selectFrom('carts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      assert.deepEqual(
        [
          row.account_id,
          row.company_id,
          row.cart_page_id,
          row.payment_method,
          row.freight_cents,
          row.total_override_cents,
        ],
        [alpha.accountId, alpha.companyId, page, 'pix', 0, null],
      );
    });

    test('GET shows the cart with the page’s branding, customer and products', async () => {
      const created = await create({
        payment_method: 'credit_card',
        freight: 15.5,
        meta: { ref: 1 },
        customer: {
          name: 'Ana',
          email: 'Ana@Example.com',
          phone: '81988887777',
          identification: VALID_CPF,
          state: 'pe',
          street: 'Rua C',
          zipcode: '50000000',
          city: 'Recife',
        },
        items: [
          { id: book, quantity: 2 },
          { id: book, value: 70, external_id: 'promo', image: 'https://cdn.example/promo.png' },
          { name: 'Taxa de montagem', value: 12.34, quantity: 3 },
          { name: 'Brinde', value: 10, total: 0 },
        ],
      });
      const res = await show(created.json().id);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(documentedJson(app, res), {
        id: created.json().id,
        gateway: 'gateway_b',
        main_color: '#112233',
        menus: [{ label: 'Ajuda', url: 'https://x.example' }],
        page_title: 'Carrinho',
        public_key: 'pk_b_123',
        logo: 'https://cdn.example/logo.png',
        currency: 'BRL',
        enable_coupons: true,
        enable_two_cards: true,
        company_id: alpha.companyId,
        freight: 15.5,
        customer: {
          name: 'Ana',
          email: 'ana@example.com',
          phone: '81988887777',
          identification: VALID_CPF,
          state: 'PE',
          street: 'Rua C',
          zipcode: '50000000',
          city: 'Recife',
        },
        products: [
          {
            id: book,
            name: 'Livro',
            external_id: 'book-1',
            quantity: 2,
            value: 79.9,
            total: 159.8,
            image: 'https://cdn.example/book.png',
          },
          {
            id: book,
            name: 'Livro',
            external_id: 'promo',
            quantity: 1,
            value: 70,
            total: 70,
            image: 'https://cdn.example/promo.png',
          },
          {
            id: null,
            name: 'Taxa de montagem',
            external_id: null,
            quantity: 3,
            value: 12.34,
            total: 37.02,
            image: null,
          },
          { id: null, name: 'Brinde', external_id: null, quantity: 1, value: 10, total: 0, image: null },
        ],
        custom_code: '<script></script>',
        default_payment_plan: { id: String(plan), name: 'Pix', payment_method: 'pix' },
        integrations: { pixel: 'abc' },
      });
    });

    test('unset branding is null and the public key is empty without a gateway key', async () => {
      const created = await create({ payment_method: 'bank_slip', items: [{ name: 'Aula', value: 10 }] }, plainPage);
      const body = documentedJson(app, await show(created.json().id));
      for (const field of ['logo', 'default_payment_plan']) assert.equal(body[field], null, field);
      assert.deepEqual(
        [
          body.custom_code,
          body.public_key,
          body.gateway,
          body.customer,
          body.products,
          body.menus,
          body.integrations,
          body.freight,
        ],
        [
          '',
          '',
          'gateway_c',
          Object.fromEntries(
            ['identification', 'email', 'phone', 'name', 'state', 'street', 'zipcode', 'city'].map((f) => [f, null]),
          ),
          [{ id: null, name: 'Aula', external_id: null, quantity: 1, value: 10, total: 10, image: null }],
          [],
          {},
          0,
        ],
      );
    });

    test('a total override is stored', async () => {
      const created = await create({ payment_method: 'pix', total: 99.99, items: [{ id: book }] });
      const row = await database.db
        .selectFrom('carts')
        .select('total_override_cents')
        .where('id', '=', created.json().id)
        .executeTakeFirstOrThrow();
      assert.equal(row.total_override_cents, 9_999);
    });

    const invalid: Array<[string, Record<string, unknown>, string]> = [
      ['no payment_method', { payment_method: undefined }, 'body/payment_method'],
      ['an unknown payment_method', { payment_method: 'cash' }, 'body/payment_method'],
      ['an item without id or name', { items: [{ value: 1 }] }, 'body/items/0/name'],
      ['an item by name without value', { items: [{ name: 'x' }] }, 'body/items/0/value'],
      ['an unknown product', { items: [{ id: 9_999_999 }] }, 'body/items/0/id'],
      ['a quantity of 0', { items: [{ id: 1, quantity: 0 }] }, 'body/items/0/quantity'],
      ['a freight with three decimals', { freight: 1.234 }, 'body/freight'],
      ['a negative total', { total: -1 }, 'body/total'],
      ['an item value as a string', { items: [{ name: 'x', value: '10' }] }, 'body/items/0/value'],
      ['an invalid customer email', { customer: { email: 'nope' } }, 'body/customer/email'],
      ['an invalid customer document', { customer: { identification: '11111111111' } }, 'body/customer/identification'],
      ['an unknown customer field', { customer: { age: '3' } }, 'body/customer/age'],
      ['an unknown field', { coupon: 'X' }, 'body/coupon'],
    ];
    for (const [name, change, field] of invalid) {
      test(`422 for ${name}`, async () => {
        const res = await create(JSON.parse(JSON.stringify({ payment_method: 'pix', ...change })));
        assert.equal(res.statusCode, 422);
        assert.equal(res.json().code, 'validation_failed');
        assert.ok(
          res.json().details.some((d: { field: string }) => d.field === field),
          JSON.stringify(res.json().details),
        );
      });
    }

    test('POST: another account’s cart page is 404, its product 422, and a key is required', async () => {
      const foreignPage = await create({ payment_method: 'pix' }, betaPage);
      assert.equal(foreignPage.statusCode, 404);
      assert.equal(foreignPage.json().code, 'not_found');
      assert.equal((await create({ payment_method: 'pix' }, '00000000-0000-4000-8000-000000000000')).statusCode, 404);
      assert.equal((await create({ payment_method: 'pix' }, 'not-a-uuid')).statusCode, 422);
      const foreignProduct = await create({ payment_method: 'pix', items: [{ id: betaProduct }] });
      assert.equal(foreignProduct.statusCode, 422);
      const anonymous = await app.inject({
        method: 'POST',
        url: `/api/v1/carts/${page}`,
        headers: ALPHA_ORIGIN,
        payload: { payment_method: 'pix' },
      });
      assert.equal(anonymous.statusCode, 401);
      const count = await database.db
        .selectFrom('carts')
        .select('id')
        .where('account_id', '=', beta.accountId)
        .execute();
      assert.equal(count.length, 0);
    });

    test('GET is host-restricted to the cart’s account', async () => {
      const uid = (await create({ payment_method: 'pix', items: [{ id: book }] })).json().id;
      assert.equal((await show(uid, bearer(alpha.apiKey))).statusCode, 200);
      const refused: Array<Record<string, string>> = [
        { origin: 'https://beta.example' },
        bearer(beta.apiKey),
        {},
        { referer: 'https://evil.example/x' },
      ];
      for (const headers of refused) {
        const res = await show(uid, headers);
        assert.equal(res.statusCode, 403, JSON.stringify(headers));
        assert.equal(res.json().code, 'forbidden');
      }
      assert.equal((await show('00000000-0000-4000-8000-000000000000')).statusCode, 404);
      assert.equal((await show('abc')).statusCode, 422);
    });
  });
}
