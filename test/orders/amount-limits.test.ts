import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { MAX_AMOUNT_CENTS } from '../../src/http/amount-limits.ts';
import { bearer, createTenant, type Tenant } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import { insertCoupon, insertProduct, startRecordsApp } from '../support/records-fixtures.ts';

const NOW = new Date('2024-03-10T15:00:00Z');

for (const engine of engines()) {
  describe(`POST /orders amount limit on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let alpha: Tenant;
    let priciest: number;
    let half: number;
    let n = 0;
    const email = () => `limit${++n}@example.com`;
    const post = (payload: Record<string, unknown>) =>
      app.inject({ method: 'POST', url: '/api/v1/orders', headers: bearer(alpha.apiKey), payload });
    const get = (url: string) => app.inject({ url: `/api/v1${url}`, headers: bearer(alpha.apiKey) });
    const stored = async () => ({
      orders: (await database.db.selectFrom('orders').select('id').where('account_id', '=', alpha.accountId).execute())
        .length,
      customers: (
        await database.db.selectFrom('customers').select('id').where('account_id', '=', alpha.accountId).execute()
      ).length,
    });

    before(async () => {
      database = await engine.open();
      ({ app } = await startRecordsApp(database, { clock: () => NOW }));
      alpha = await createTenant(database);
      priciest = await insertProduct(database, alpha, { name: 'Máximo', valueCents: MAX_AMOUNT_CENTS });
      half = await insertProduct(database, alpha, { name: 'Metade', valueCents: 5_000_000_000 });
    });
    after(async () => {
      await app.close();
      await database.close();
    });

    test('the audit’s order (10 × 100 000 × 99 999 999,99) is a 422 and stores nothing; the account’s lists keep working', async () => {
      const before = await stored();
      const res = await post({
        customer: { email: email() },
        items: Array.from({ length: 10 }, () => ({ product_id: priciest, quantity: 100_000 })),
      });
      assert.equal(res.statusCode, 422, res.body);
      const body = res.json();
      assert.equal(body.code, 'business_rule_violation');
      assert.match(body.message, /99999999\.99/);
      assert.ok(body.details.some((d: { field: string }) => d.field === 'body/items/0/quantity'));
      assert.ok(body.details.some((d: { field: string }) => d.field === 'body/items'));
      assert.deepEqual(await stored(), before, 'neither the order nor the customer upsert is kept');
      for (const url of ['/orders', '/orders?limit=3', `/orders?q=limit${n}@example.com`]) {
        assert.equal((await get(url)).statusCode, 200, url);
      }
    });

    test('attached payments adding up to more than the limit, or split into sub-cent installments, are a 422 and store nothing', async () => {
      const before = await stored();
      const oversized = await post({
        customer: { email: email() },
        items: [{ product_id: half }],
        payments: [
          { gateway: 'x', type: 'pix', amount: 99_999_999.99 },
          { gateway: 'x', type: 'pix', amount: 99_999_999.99 },
        ],
      });
      assert.equal(oversized.statusCode, 422, oversized.body);
      assert.deepEqual(
        oversized.json().details.map((d: { field: string }) => d.field),
        ['body/payments'],
      );
      const crumbs = await post({
        customer: { email: email() },
        items: [{ product_id: half }],
        payments: [{ gateway: 'x', type: 'credit_card', amount: 0.01, installments: 24 }],
      });
      assert.equal(crumbs.statusCode, 422, crumbs.body);
      assert.deepEqual(
        crumbs.json().details.map((d: { field: string }) => d.field),
        ['body/payments/0/installments'],
      );
      assert.deepEqual(await stored(), before);
    });

    test('a total just over the limit is refused even when each line is within it', async () => {
      const res = await post({ customer: { email: email() }, items: [{ product_id: half }, { product_id: half }] });
      assert.equal(res.statusCode, 422);
      assert.deepEqual(
        res.json().details.map((d: { field: string }) => d.field),
        ['body/items'],
      );
    });

    test('the refusal comes before the coupon: a 100% coupon does not let an oversized subtotal through', async () => {
      await insertCoupon(database, alpha, { code: 'ALL', percentage: 100 });
      const res = await post({
        customer: { email: email() },
        coupon: 'ALL',
        items: [{ product_id: half, quantity: 3 }],
      });
      assert.equal(res.statusCode, 422);
      assert.equal(res.json().details[0].field, 'body/items/0/quantity');
    });

    test('an order of exactly the limit is created and reads back in the list and by id', async () => {
      const res = await post({ customer: { email: email() }, items: [{ product_id: priciest }] });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().total, 99_999_999.99);
      const shown = await get(`/orders/${res.json().id}`);
      assert.equal(shown.statusCode, 200);
      assert.equal(shown.json().total, 99_999_999.99);
      const list = await get('/orders');
      assert.equal(list.statusCode, 200);
      assert.ok(list.json().data.some((order: { id: number }) => order.id === res.json().id));
    });

    test('the item quantity keeps its own schema cap', async () => {
      const res = await post({ customer: { email: email() }, items: [{ product_id: half, quantity: 100_001 }] });
      assert.equal(res.statusCode, 422);
      assert.equal(res.json().code, 'validation_failed');
    });
  });
}
