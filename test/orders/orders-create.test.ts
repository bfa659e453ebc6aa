import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { bearer, createTenant, type Tenant } from '../support/app.ts';
import { documentedJson } from '../support/documented-response.ts';
import { engines } from '../support/engines.ts';
import {
  insertCoupon,
  insertCustomer,
  insertPaymentPlan,
  insertProduct,
  orderEvents,
  startRecordsApp,
  VALID_CPF,
} from '../support/records-fixtures.ts';

// 02:30 UTC on March 10th is still March 9th in São Paulo.
const NOW = new Date('2024-03-10T02:30:00Z');

for (const engine of engines()) {
  describe(`POST /orders on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let alpha: Tenant;
    let beta: Tenant;
    let course: number;
    let ebook: number;
    let betaProduct: number;
    let n = 0;
    const customer = (extra: Record<string, unknown> = {}) => ({ email: `buyer${++n}@example.com`, ...extra });
    const post = (payload: Record<string, unknown>, tenant = alpha) =>
      app.inject({ method: 'POST', url: '/api/v1/orders', headers: bearer(tenant.apiKey), payload });
    const orderCount = async () =>
      (await database.db.selectFrom('orders').select('id').where('account_id', '=', alpha.accountId).execute()).length;
    const orderRow = (id: number) =>
      database.db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

    before(async () => {
      database = await engine.open();
      ({ app } = await startRecordsApp(database, { clock: () => NOW }));
      alpha = await createTenant(database);
      beta = await createTenant(database);
      course = await insertProduct(database, alpha, { name: 'Curso', valueCents: 29_700, unitName: 'seat' });
      ebook = await insertProduct(database, alpha, { name: 'E-book', valueCents: 4_990 });
      betaProduct = await insertProduct(database, beta, { name: 'Beta', valueCents: 100 });
    });
    after(async () => {
      await app.close();
      await database.close();
    });

    test('creates a pending charge: items priced from the products, date today in the company’s zone, 201 with OrderData', async () => {
      const res = await post({
        customer: customer({
          name: 'Bia',
          identification: VALID_CPF,
          phone: '81999998888',
          city: 'Recife',
          state: 'pe',
        }),
        items: [{ product_id: course, quantity: 2 }, { product_id: ebook }],
      });
      assert.equal(res.statusCode, 201);
      const order = documentedJson(app, res);
      assert.equal(order.status, 'pending');
      assert.equal(order.date, '2024-03-09');
      assert.equal(order.due_date, '2024-03-09');
      assert.equal(order.total, 643.9);
      assert.equal(order.discount, 0);
      assert.equal(order.link, `http://pay.test/pay/charges/${order.uid}`);
      assert.equal(order.created_at, NOW.toISOString());
      assert.deepEqual(
        order.items.map(
          (i: { product_id: number; quantity: number; value: number; total: number; unit_name: string }) => [
            i.product_id,
            i.quantity,
            i.value,
            i.total,
            i.unit_name,
          ],
        ),
        [
          [course, 2, 297, 594, 'seat'],
          [ebook, 1, 49.9, 49.9, 'unit'],
        ],
      );
      assert.deepEqual(order.customer.address, {
        street: null,
        neighborhood: null,
        number: null,
        complement: null,
        zipcode: null,
        city: 'Recife',
        state: 'PE',
      });
      assert.equal(order.customer.identification, VALID_CPF);
      const row = await orderRow(order.id);
      assert.equal(row.source, 'api');
      assert.equal(row.subtotal_cents, 64_390);
      assert.deepEqual(
        (await orderEvents(database, order.id)).map((e) => [e.type, e.to_status, e.cause]),
        [['order.created', 'pending', 'POST /orders']],
      );
    });

    test('records date, schedule, observation, meta, crm_info and flags', async () => {
      const res = await post({
        customer: customer(),
        items: [{ product_id: ebook }],
        date: '2024-04-01',
        scheduled_at: '2024-04-02T10:00:00-03:00',
        observation: 'Entregar',
        meta: { source: 'crm', n: 1 },
        crm_info: { create_deal: true, list_ids: '1,2', url: 'https://crm.example/deal/1', tags: 'vip' },
        skip_content_release: true,
      });
      assert.equal(res.statusCode, 201);
      const body = res.json();
      assert.deepEqual(
        [body.date, body.due_date, body.scheduled_at, body.observation],
        ['2024-04-01', '2024-04-01', '2024-04-02T13:00:00.000Z', 'Entregar'],
      );
      assert.deepEqual(body.meta, { source: 'crm', n: 1 });
      const row = await orderRow(body.id);
      assert.deepEqual(row.crm_info, {
        create_deal: true,
        list_ids: '1,2',
        url: 'https://crm.example/deal/1',
        tags: 'vip',
      });
      assert.equal(row.tags, 'vip');
      assert.equal(row.skip_content_release, true);
      assert.equal(row.calculate_retention, false);
    });

    test('upserts the customer by email with the shared upsert', async () => {
      const email = `known${++n}@example.com`;
      const id = await insertCustomer(database, alpha, { email, name: 'Antigo', city: 'Natal' });
      const res = await post({
        customer: { email: email.toUpperCase(), name: 'Novo', meta: { k: 'v' } },
        items: [{ product_id: ebook }],
      });
      assert.equal(res.statusCode, 201);
      const row = await database.db.selectFrom('customers').selectAll().where('email', '=', email).execute();
      assert.equal(row.length, 1);
      assert.deepEqual([row[0]!.id, row[0]!.name, row[0]!.city, row[0]!.meta], [id, 'Novo', 'Natal', { k: 'v' }]);
      assert.equal((await orderRow(res.json().id)).customer_id, id);
      const fresh = await post({ customer: customer(), items: [{ product_id: ebook }] });
      assert.equal(
        fresh.json().customer.name,
        fresh.json().customer.email,
        'a new customer without a name is named after its email',
      );
    });

    test('main_product_id alone makes the one item', async () => {
      const res = await post({ customer: customer(), main_product_id: course });
      assert.deepEqual(
        res.json().items.map((i: { product_id: number }) => i.product_id),
        [course],
      );
      assert.equal(res.json().total, 297);
    });

    test('a valid coupon gives its discount; an invalid one is a 422 with its message and creates nothing', async () => {
      await insertCoupon(database, alpha, { code: 'TEN', percentage: 10 });
      await insertCoupon(database, alpha, { code: 'OLD', expiresAt: new Date('2024-01-01T00:00:00Z') });
      await insertCoupon(database, alpha, { code: 'USED', usageLimit: 1, usedCount: 1 });
      await insertCoupon(database, alpha, { code: 'EBOOKONLY', amountCents: 500, productIds: [ebook] });
      const ok = await post({ customer: customer(), items: [{ product_id: course }], coupon: 'ten' });
      assert.deepEqual([ok.json().coupon_code, ok.json().discount, ok.json().total], ['TEN', 29.7, 267.3]);
      const ebookOnly = await post({ customer: customer(), items: [{ product_id: ebook }], coupon: 'EBOOKONLY' });
      assert.equal(ebookOnly.json().total, 44.9);
      const before = await orderCount();
      for (const [code, message] of [
        ['NOPE', 'Coupon not found'],
        ['OLD', 'Coupon has expired'],
        ['USED', 'Coupon has reached its usage limit'],
        ['EBOOKONLY', 'Coupon does not apply to these products'],
      ]) {
        const email = `coupon${++n}@example.com`;
        const res = await post({ customer: { email }, items: [{ product_id: course }], coupon: code! });
        assert.equal(res.statusCode, 422, code);
        assert.equal(res.json().message, message);
        assert.equal(res.json().details[0].field, 'body/coupon');
        assert.equal(
          (await database.db.selectFrom('customers').select('id').where('email', '=', email).execute()).length,
          0,
          'the upsert rolled back',
        );
      }
      assert.equal(await orderCount(), before);
    });

    test('payments covering the total make the order paid, with one event per write', async () => {
      const res = await post({
        customer: customer(),
        items: [{ product_id: ebook }],
        payments: [{ gateway: 'acme-pay', gateway_id: 'ext-1', amount: 49.9, type: 'pix' }],
      });
      assert.equal(res.statusCode, 201);
      const order = res.json();
      assert.equal(order.status, 'paid');
      assert.deepEqual(
        order.payments.map((p: Record<string, unknown>) => [
          p.type,
          p.amount,
          p.status,
          p.gateway_id,
          p.installments,
          p.paid_at,
        ]),
        [['pix', 49.9, 'paid', 'ext-1', 1, NOW.toISOString()]],
      );
      const row = await orderRow(order.id);
      assert.deepEqual([row.paid_cents, row.paid_at?.toISOString()], [4_990, NOW.toISOString()]);
      const payment = await database.db
        .selectFrom('payments')
        .select(['gateway', 'amount_cents', 'installment_value_cents'])
        .where('order_id', '=', order.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(payment, { gateway: 'external', amount_cents: 4_990, installment_value_cents: 4_990 });
      assert.deepEqual(
        (await orderEvents(database, order.id)).map((e) => [e.type, e.from_status, e.to_status]),
        [
          ['order.created', null, 'pending'],
          ['payment.attached', null, 'paid'],
          ['order.status_changed', 'pending', 'paid'],
        ],
      );
    });

    test('a partial payment makes it partially_paid; a plan gives the method; our gateways are kept', async () => {
      const plan = await insertPaymentPlan(database, alpha, 'bank_slip', 'Boleto');
      const res = await post({
        customer: customer(),
        items: [{ product_id: course }],
        payments: [
          {
            gateway: 'gateway_a',
            payment_plan_id: plan,
            amount: 100,
            installments: 3,
            paid_at: '2024-03-01T12:00:00Z',
          },
        ],
      });
      assert.equal(res.statusCode, 201);
      assert.equal(res.json().status, 'partially_paid');
      assert.deepEqual(
        res
          .json()
          .payments.map((p: Record<string, unknown>) => [p.type, p.installments, p.installment_value, p.paid_at]),
        [['bank_slip', 3, 33.33, '2024-03-01T12:00:00.000Z']],
      );
      const payment = await database.db
        .selectFrom('payments')
        .select(['gateway', 'payment_plan_id'])
        .where('order_id', '=', res.json().id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(payment, { gateway: 'gateway_a', payment_plan_id: plan });
    });

    test('a paid order with a coupon claims one use of it', async () => {
      const coupon = await insertCoupon(database, alpha, { code: 'ONCE', usageLimit: 1, amountCents: 990 });
      const res = await post({
        customer: customer(),
        items: [{ product_id: ebook }],
        coupon: 'ONCE',
        payments: [{ gateway: 'x', type: 'pix', amount: 40 }],
      });
      assert.equal(res.json().status, 'paid');
      const row = await database.db
        .selectFrom('coupons')
        .select('used_count')
        .where('id', '=', coupon)
        .executeTakeFirstOrThrow();
      assert.equal(row.used_count, 1);
      const again = await post({ customer: customer(), items: [{ product_id: ebook }], coupon: 'ONCE' });
      assert.equal(again.statusCode, 422);
    });

    test('retention pricing withholds the customer’s minimum retention, capped at the total', async () => {
      const email = `retention${++n}@example.com`;
      await insertCustomer(database, alpha, { email, minimumRetentionCents: 1_000 });
      const flagged = await post({ customer: { email }, items: [{ product_id: ebook }], calculate_retention: true });
      assert.equal((await orderRow(flagged.json().id)).retention_cents, 1_000);
      assert.equal((await orderRow(flagged.json().id)).calculate_retention, true);
      const byCustomerFlag = await post({ customer: { email, retention: true }, items: [{ product_id: ebook }] });
      assert.equal((await orderRow(byCustomerFlag.json().id)).retention_cents, 1_000);
      const none = await post({ customer: { email }, items: [{ product_id: ebook }] });
      assert.equal((await orderRow(none.json().id)).retention_cents, 0);
      await insertCustomer(database, alpha, { email: `big${email}`, minimumRetentionCents: 999_999 });
      const capped = await post({
        customer: { email: `big${email}` },
        items: [{ product_id: ebook }],
        calculate_retention: true,
      });
      assert.equal((await orderRow(capped.json().id)).retention_cents, 4_990);
    });

    test('a duplicate gateway_id is a 409 and leaves no order behind', async () => {
      await post({
        customer: customer(),
        items: [{ product_id: ebook }],
        payments: [{ gateway: 'gateway_b', gateway_id: 'dup-1', type: 'pix', amount: 49.9 }],
      });
      const before = await orderCount();
      const res = await post({
        customer: customer(),
        items: [{ product_id: ebook }],
        payments: [{ gateway: 'gateway_b', gateway_id: 'dup-1', type: 'pix', amount: 49.9 }],
      });
      assert.equal(res.statusCode, 409);
      assert.equal(res.json().code, 'conflict');
      assert.equal(await orderCount(), before);
    });

    const invalid: Array<[string, Record<string, unknown>, string]> = [
      ['no customer', { customer: undefined }, 'body/customer'],
      ['a customer without email', { customer: { name: 'X' } }, 'body/customer/email'],
      ['an invalid customer email', { customer: { email: 'nope' } }, 'body/customer/email'],
      [
        'a customer phone of 12 digits',
        { customer: { email: 'p@example.com', phone: '119999999999' } },
        'body/customer/phone',
      ],
      [
        'an invalid CPF',
        { customer: { email: 'p@example.com', identification: '12345678900' } },
        'body/customer/identification',
      ],
      ['a quantity of 0', { items: [{ product_id: 1, quantity: 0 }] }, 'body/items/0/quantity'],
      ['an item without product_id', { items: [{ quantity: 1 }] }, 'body/items/0/product_id'],
      ['an unknown product', { items: [{ product_id: 9_999_999 }] }, 'body/items/0/product_id'],
      ['an unknown main product', { main_product_id: 9_999_999 }, 'body/main_product_id'],
      ['a date that is not a date', { date: '2024-02-30' }, 'body/date'],
      [
        'an unknown payment plan',
        { payments: [{ gateway: 'x', payment_plan_id: 9_999_999, amount: 1 }] },
        'body/payments/0/payment_plan_id',
      ],
      ['a payment without type or plan', { payments: [{ gateway: 'x', amount: 1 }] }, 'body/payments/0/type'],
      [
        'a payment amount with three decimals',
        { payments: [{ gateway: 'x', type: 'pix', amount: 1.001 }] },
        'body/payments/0/amount',
      ],
      ['a payment amount of zero', { payments: [{ gateway: 'x', type: 'pix', amount: 0 }] }, 'body/payments/0/amount'],
      ['an unknown field', { status: 'paid' }, 'body/status'],
      ['an unknown crm_info field', { crm_info: { owner: 'x' } }, 'body/crm_info/owner'],
    ];
    for (const [name, change, field] of invalid) {
      test(`422 for ${name}`, async () => {
        const payload = JSON.parse(JSON.stringify({ customer: customer(), items: [{ product_id: ebook }], ...change }));
        const before = await orderCount();
        const res = await post(payload);
        assert.equal(res.statusCode, 422);
        assert.equal(res.json().code, 'validation_failed');
        assert.ok(
          res.json().details.some((d: { field: string }) => d.field === field),
          JSON.stringify(res.json().details),
        );
        assert.equal(await orderCount(), before);
      });
    }

    test('another account’s product is unknown; a key is required', async () => {
      const res = await post({ customer: customer(), items: [{ product_id: betaProduct }] });
      assert.equal(res.statusCode, 422);
      assert.equal(res.json().details[0].field, 'body/items/0/product_id');
      const deleted = await insertProduct(database, alpha, { deleted: true });
      assert.equal((await post({ customer: customer(), items: [{ product_id: deleted }] })).statusCode, 422);
      const anonymous = await app.inject({
        method: 'POST',
        url: '/api/v1/orders',
        payload: { customer: customer(), items: [{ product_id: ebook }] },
      });
      assert.equal(anonymous.statusCode, 401);
    });

    test('the created order is the caller’s only', async () => {
      const res = await post({ customer: customer(), items: [{ product_id: ebook }] });
      assert.equal(
        (await app.inject({ url: `/api/v1/orders/${res.json().id}`, headers: bearer(beta.apiKey) })).statusCode,
        404,
      );
      assert.equal(
        (await app.inject({ url: `/api/v1/orders/${res.json().id}`, headers: bearer(alpha.apiKey) })).json().uid,
        res.json().uid,
      );
    });
  });
}
