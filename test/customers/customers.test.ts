import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { bearer, createTenant, type LogCapture, type Tenant } from '../support/app.ts';
import { documentedJson } from '../support/documented-response.ts';
import { engines } from '../support/engines.ts';
import {
  insertCheckoutPage,
  insertCoupon,
  insertProduct,
  orderEvents,
  startRecordsApp,
  VALID_ALPHANUMERIC_CNPJ,
  VALID_CNPJ,
  VALID_CPF,
} from '../support/records-fixtures.ts';

const ALPHA_ORIGIN = { origin: 'https://alpha.example' };

const ADDRESS_UNSET = {
  street: null,
  neighborhood: null,
  number: null,
  complement: null,
  zipcode: null,
  city: null,
  state: null,
};

for (const engine of engines()) {
  describe(`POST /customers on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let logs: LogCapture;
    let alpha: Tenant;
    let beta: Tenant;
    let alphaPage: string;
    let alphaProduct: number;
    let secondCompany: { id: number; slug: string };
    let n = 0;
    const email = () => `person${++n}@example.com`;
    const body = (extra: Record<string, unknown> = {}) => ({
      email: email(),
      name: 'Maria Silva',
      phone: '11987654321',
      ...extra,
    });
    const post = (payload: unknown, headers: Record<string, string> = bearer(alpha.apiKey)) =>
      app.inject({ method: 'POST', url: '/api/v1/customers', headers, payload: payload as object });
    const countByEmail = async (address: string) =>
      (await database.db.selectFrom('customers').select('id').where('email', '=', address).execute()).length;

    before(async () => {
      database = await engine.open();
      ({ app, logs } = await startRecordsApp(database));
      alpha = await createTenant(database, { allowedHosts: ['alpha.example'] });
      beta = await createTenant(database, { allowedHosts: ['beta.example'] });
      alphaPage = await insertCheckoutPage(database, alpha, { title: 'Alpha page' });
      alphaProduct = await insertProduct(database, alpha, { name: 'Curso', valueCents: 20_000 });
      const slug = `${alpha.slug}-two`;
      const company = await database.db
        .insertInto('companies')
        .values({ account_id: alpha.accountId, name: 'Second', slug })
        .returning('id')
        .executeTakeFirstOrThrow();
      secondCompany = { id: company.id, slug };
    });
    after(async () => {
      await app.close();
      await database.close();
    });

    test('creates a customer and answers CustomerResponse exactly', async () => {
      const res = await post(
        body({
          email: 'Ana.Souza@Example.com',
          identification: VALID_CPF,
          street: 'Rua A',
          number: '10',
          neighborhood: 'Centro',
          complement: 'ap 1',
          zipcode: '01310100',
          city: 'São Paulo',
          state: 'sp',
          meta: { origin: 'site' },
        }),
      );
      assert.equal(res.statusCode, 200);
      const customer = res.json();
      assert.deepEqual(Object.keys(customer).sort(), [
        'address',
        'email',
        'foreign',
        'id',
        'identification',
        'meta',
        'name',
        'order_id',
        'phone',
      ]);
      assert.equal(typeof customer.id, 'number');
      assert.equal(customer.email, 'ana.souza@example.com');
      assert.equal(customer.foreign, false);
      assert.equal(customer.order_id, null);
      assert.deepEqual(customer.meta, { origin: 'site' });
      assert.deepEqual(customer.address, {
        street: 'Rua A',
        neighborhood: 'Centro',
        number: '10',
        complement: 'ap 1',
        zipcode: '01310100',
        city: 'São Paulo',
        state: 'SP',
      });
      const row = await database.db
        .selectFrom('customers')
        .selectAll()
        .where('id', '=', customer.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.company_id, alpha.companyId);
      assert.equal(row.account_id, alpha.accountId);
    });

    test('identification is null when unset, and so is every address field', async () => {
      const res = await post({ email: email(), name: 'Sem Documento', phone: '1' });
      assert.equal(res.statusCode, 200);
      const body = documentedJson(app, res);
      assert.equal(body.identification, null);
      assert.deepEqual(body.address, ADDRESS_UNSET);
    });

    test('the same email twice is one customer: same id, fields updated, unsent fields and meta kept', async () => {
      const address = email();
      const first = (
        await post({ email: address, name: 'Primeiro', phone: '1111', city: 'Recife', meta: { a: '1' } })
      ).json();
      const second = (
        await post({
          email: address.toUpperCase(),
          name: 'Segundo',
          phone: '2222',
          meta: { b: '2' },
          auxiliary_emails: ['Extra@Example.com'],
        })
      ).json();
      assert.equal(second.id, first.id);
      assert.equal(second.name, 'Segundo');
      assert.equal(second.phone, '2222');
      assert.equal(second.address.city, 'Recife');
      assert.deepEqual(second.meta, { a: '1', b: '2' });
      assert.equal(await countByEmail(address), 1);
      const row = await database.db
        .selectFrom('customers')
        .select('auxiliary_emails')
        .where('id', '=', first.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(row.auxiliary_emails, ['extra@example.com']);
    });

    test('concurrent upserts of one email converge on one row', async () => {
      const address = email();
      const results = await Promise.all(
        [1, 2, 3, 4, 5].map((i) => post({ email: address, name: `Name ${i}`, phone: String(i) })),
      );
      assert.ok(results.every((res) => res.statusCode === 200));
      assert.equal(new Set(results.map((res) => res.json().id)).size, 1);
      assert.equal(await countByEmail(address), 1);
    });

    test('business customer fields and foreign customers', async () => {
      const res = await post(
        body({
          identification: VALID_ALPHANUMERIC_CNPJ.toLowerCase(),
          social_reason: 'ACME LTDA',
          state_inscription: '123',
          municipal_inscription: '456',
          tags: 'a,b',
          list_ids: '1,2',
          carrier: 'Correios',
          url: 'https://acme.example/x',
          minimum_retention_value: 12.5,
        }),
      );
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().identification, VALID_ALPHANUMERIC_CNPJ);
      const row = await database.db
        .selectFrom('customers')
        .selectAll()
        .where('id', '=', res.json().id)
        .executeTakeFirstOrThrow();
      assert.equal(row.social_reason, 'ACME LTDA');
      assert.equal(row.minimum_retention_cents, 1250);
      assert.equal(row.url, 'https://acme.example/x');
      const foreign = await post(body({ identification: 'P-1234/XYZ', foreign: true }));
      assert.equal(foreign.statusCode, 200);
      assert.equal(foreign.json().identification, 'P-1234/XYZ');
      assert.equal(foreign.json().foreign, true);
    });

    test('a formatted CPF or a bare CNPJ is accepted and stored as its characters', async () => {
      assert.equal((await post(body({ identification: '529.982.247-25' }))).json().identification, VALID_CPF);
      assert.equal((await post(body({ identification: VALID_CNPJ }))).json().identification, VALID_CNPJ);
    });

    const invalid: Array<[string, Record<string, unknown>, string]> = [
      ['missing email', { email: undefined }, 'body/email'],
      ['an invalid email', { email: 'not-an-email' }, 'body/email'],
      ['missing name', { name: undefined }, 'body/name'],
      ['an empty name', { name: '' }, 'body/name'],
      ['missing phone', { phone: undefined }, 'body/phone'],
      ['a phone with non-digits', { phone: '(11) 98765-4321' }, 'body/phone'],
      ['a phone of 12 digits', { phone: '119876543210' }, 'body/phone'],
      ['a CPF with wrong check digits', { identification: '52998224724' }, 'body/identification'],
      ['a CNPJ with wrong check digits', { identification: '11222333000182' }, 'body/identification'],
      ['a document of 12 digits', { identification: '123456789012' }, 'body/identification'],
      [
        'identification over 14 characters even when foreign',
        { identification: '123456789012345', foreign: true },
        'body/identification',
      ],
      ['a meta value that is not a string', { meta: { count: 3 } }, 'body/meta/count'],
      ['an invalid auxiliary email', { auxiliary_emails: ['ok@example.com', 'nope'] }, 'body/auxiliary_emails/1'],
      ['a url that is not a uri', { url: 'not a url' }, 'body/url'],
      ['a state of three letters', { state: 'SPA' }, 'body/state'],
      ['a retention with three decimals', { minimum_retention_value: 1.005 }, 'body/minimum_retention_value'],
      ['an unknown field', { nickname: 'x' }, 'body/nickname'],
      ['a checkout_page_id that is not a uuid', { checkout_page_id: 'abc' }, 'body/checkout_page_id'],
    ];
    for (const [name, change, field] of invalid) {
      test(`422 validation_failed for ${name}`, async () => {
        const payload = { ...body(), ...change };
        const res = await post(JSON.parse(JSON.stringify(payload)));
        assert.equal(res.statusCode, 422);
        assert.equal(res.json().code, 'validation_failed');
        assert.ok(
          res.json().details.some((d: { field: string }) => d.field === field),
          JSON.stringify(res.json().details),
        );
      });
    }

    test('the company comes from the checkout page, the per-company host or the key', async () => {
      const byPage = await post(body({ checkout_page_id: alphaPage }), ALPHA_ORIGIN);
      assert.equal(byPage.statusCode, 200);
      const byHost = await post(body(), { ...ALPHA_ORIGIN, host: `${secondCompany.slug}.pay.test` });
      assert.equal(byHost.statusCode, 200);
      const companies = await database.db
        .selectFrom('customers')
        .select(['id', 'company_id'])
        .where('id', 'in', [byPage.json().id, byHost.json().id])
        .execute();
      assert.equal(companies.find((row) => row.id === byPage.json().id)?.company_id, alpha.companyId);
      assert.equal(companies.find((row) => row.id === byHost.json().id)?.company_id, secondCompany.id);
    });

    test('a caller without the key gets back only what it sent, never what the merchant stored before', async () => {
      const address = email();
      const stored = await post({
        email: address,
        name: 'Vítima',
        phone: '11987654321',
        identification: VALID_CPF,
        street: 'Rua A',
        city: 'São Paulo',
        meta: { note: 'vip' },
      });
      assert.equal(stored.statusCode, 200, stored.body);
      const anonymous = await post(
        {
          email: address,
          name: 'x',
          phone: '1',
          checkout_page_id: alphaPage,
          city: 'Campinas',
          meta: { source: 'page' },
        },
        ALPHA_ORIGIN,
      );
      assert.equal(anonymous.statusCode, 200, anonymous.body);
      const answer = documentedJson(app, anonymous);
      assert.equal(answer.id, stored.json().id);
      assert.equal(answer.identification, null);
      assert.deepEqual(answer.address, { ...ADDRESS_UNSET, city: 'Campinas' });
      assert.deepEqual(answer.meta, { source: 'page' });
      // The merchant, with its key, still sees the whole customer.
      const merchant = await post({ email: address, name: 'x', phone: '1' });
      assert.equal(merchant.json().identification, VALID_CPF);
      assert.deepEqual(merchant.json().address, { ...ADDRESS_UNSET, street: 'Rua A', city: 'Campinas' });
      assert.deepEqual(merchant.json().meta, { note: 'vip', source: 'page' });
    });

    test('one email is a separate customer in each company', async () => {
      const address = email();
      const primary = await post({ email: address, name: 'A', phone: '1' });
      const second = await post(
        { email: address, name: 'B', phone: '2' },
        { ...ALPHA_ORIGIN, host: `${secondCompany.slug}.pay.test` },
      );
      assert.notEqual(primary.json().id, second.json().id);
    });

    test('host restriction: 403 without an owner, from another origin, or with another account’s key', async () => {
      const cases: Array<[string, Record<string, string>, Record<string, unknown>]> = [
        ['no key, no host, no page', ALPHA_ORIGIN, body()],
        ['the page from a foreign origin', { origin: 'https://beta.example' }, body({ checkout_page_id: alphaPage })],
        ['the page with no origin', {}, body({ checkout_page_id: alphaPage })],
        ['the page with another account’s key', bearer(beta.apiKey), body({ checkout_page_id: alphaPage })],
        [
          'the company host from a foreign origin',
          { origin: 'https://beta.example', host: `${alpha.slug}.pay.test` },
          body(),
        ],
        [
          'the company host with another account’s key',
          { ...bearer(beta.apiKey), host: `${alpha.slug}.pay.test` },
          body(),
        ],
        ['an invalid key', bearer('ck_0000000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'), body()],
      ];
      for (const [name, headers, payload] of cases) {
        const res = await post(payload, headers);
        assert.equal(res.statusCode, 403, name);
        assert.equal(res.json().code, 'forbidden', name);
        assert.equal(await countByEmail(payload.email as string), 0, name);
      }
    });

    test('an unknown checkout page is a 422', async () => {
      const res = await post(body({ checkout_page_id: '00000000-0000-4000-8000-000000000000' }), ALPHA_ORIGIN);
      assert.equal(res.statusCode, 422);
      assert.equal(res.json().details[0].field, 'body/checkout_page_id');
    });

    test('another account’s key writes to its own company, never to alpha’s', async () => {
      const res = await post(body(), bearer(beta.apiKey));
      const row = await database.db
        .selectFrom('customers')
        .select('account_id')
        .where('id', '=', res.json().id)
        .executeTakeFirstOrThrow();
      assert.equal(row.account_id, beta.accountId);
    });

    test('create_deal creates an order with the main product, coupon, schedule and observation', async () => {
      await insertCoupon(database, alpha, { code: 'DEAL10', percentage: 10 });
      const res = await post(
        body({
          create_deal: true,
          main_product_id: alphaProduct,
          coupon: 'deal10',
          scheduled_at: '2030-05-01T13:00:00Z',
          observation: 'Ligar antes',
        }),
      );
      assert.equal(res.statusCode, 200);
      const orderId = res.json().order_id;
      assert.equal(typeof orderId, 'number');
      const order = await database.db
        .selectFrom('orders')
        .selectAll()
        .where('id', '=', orderId)
        .executeTakeFirstOrThrow();
      assert.equal(order.customer_id, res.json().id);
      assert.equal(order.coupon_code, 'DEAL10');
      assert.equal(order.discount_cents, 2000);
      assert.equal(order.total_cents, 18_000);
      assert.equal(order.observation, 'Ligar antes');
      assert.equal(order.scheduled_at?.toISOString(), '2030-05-01T13:00:00.000Z');
      const items = await database.db
        .selectFrom('order_items')
        .select(['product_id', 'quantity'])
        .where('order_id', '=', orderId)
        .execute();
      assert.deepEqual(items, [{ product_id: alphaProduct, quantity: 1 }]);
      assert.deepEqual(
        (await orderEvents(database, orderId)).map((e) => e.type),
        ['order.created'],
      );
    });

    test('create_deal that cannot create its order keeps the upsert, answers order_id null and logs why without personal data', async () => {
      await insertCoupon(database, alpha, { code: 'OLD', expiresAt: new Date('2020-01-01T00:00:00Z') });
      for (const change of [
        { coupon: 'OLD', main_product_id: alphaProduct },
        { coupon: 'NOPE' },
        { main_product_id: 999_999 },
      ]) {
        const address = email();
        const before = logs.lines.length;
        const res = await post(body({ email: address, create_deal: true, ...change }));
        assert.equal(res.statusCode, 200);
        assert.equal(res.json().order_id, null);
        assert.equal(await countByEmail(address), 1);
        const warnings = logs.lines.slice(before).filter((line) => line.includes('create_deal'));
        assert.equal(warnings.length, 1);
        assert.ok(!warnings[0]!.includes(address) && !warnings[0]!.includes('Maria'), warnings[0]);
        const orders = await database.db
          .selectFrom('orders')
          .select('id')
          .where('customer_id', '=', res.json().id)
          .execute();
        assert.equal(orders.length, 0);
      }
    });

    test('without create_deal no order is created', async () => {
      const res = await post(body({ main_product_id: alphaProduct, create_deal: false }));
      assert.equal(res.json().order_id, null);
      assert.equal(
        (await database.db.selectFrom('orders').select('id').where('customer_id', '=', res.json().id).execute()).length,
        0,
      );
    });
  });
}
