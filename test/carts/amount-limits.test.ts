import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { bearer, createTenant, type Tenant } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import { insertCartPage, insertPaymentPlan, startRecordsApp } from '../support/records-fixtures.ts';

const ORIGIN = { origin: 'https://alpha.example' };
const MAX = 99_999_999.99;

for (const engine of engines()) {
  describe(`POST /carts/{id} amount limit on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let alpha: Tenant;
    let page: string;
    const create = (payload: Record<string, unknown>) =>
      app.inject({ method: 'POST', url: `/api/v1/carts/${page}`, headers: bearer(alpha.apiKey), payload });
    const cartCount = async () =>
      (await database.db.selectFrom('carts').select('id').where('account_id', '=', alpha.accountId).execute()).length;
    const refused = async (payload: Record<string, unknown>, fields: string[]) => {
      const before = await cartCount();
      const res = await create(payload);
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(res.json().code, 'business_rule_violation');
      assert.deepEqual(
        res.json().details.map((d: { field: string }) => d.field),
        fields,
      );
      assert.equal(await cartCount(), before, 'nothing is stored');
    };

    before(async () => {
      database = await engine.open();
      ({ app } = await startRecordsApp(database));
      alpha = await createTenant(database, { allowedHosts: ['alpha.example'] });
      const pix = await insertPaymentPlan(database, alpha, 'pix', 'Pix');
      page = await insertCartPage(database, alpha);
      await database.db
        .insertInto('cart_page_payment_plans')
        .values({ account_id: alpha.accountId, cart_page_id: page, payment_plan_id: pix })
        .execute();
    });
    after(async () => {
      await app.close();
      await database.close();
    });

    test('the audit’s cart (100 × 100 000 × 99 999 999,99) is a 422 and stores nothing', async () => {
      const items = Array.from({ length: 100 }, () => ({ name: 'x', value: MAX, quantity: 100_000 }));
      const before = await cartCount();
      const res = await create({ payment_method: 'pix', items });
      assert.equal(res.statusCode, 422);
      assert.equal(res.json().code, 'business_rule_violation');
      assert.match(res.json().message, /99999999\.99/);
      assert.equal(await cartCount(), before);
    });

    test('one line over the limit, items adding up over it, or freight pushing the total over it', async () => {
      await refused({ payment_method: 'pix', items: [{ name: 'x', value: MAX, quantity: 2 }] }, [
        'body/items/0',
        'body/items',
        'body',
      ]);
      await refused(
        {
          payment_method: 'pix',
          items: [
            { name: 'a', value: 60_000_000 },
            { name: 'b', value: 60_000_000 },
          ],
        },
        ['body/items', 'body'],
      );
      await refused({ payment_method: 'pix', freight: 0.01, items: [{ name: 'x', value: MAX }] }, ['body']);
      await refused({ payment_method: 'pix', freight: 1, total: MAX, items: [{ name: 'x', value: 10 }] }, ['body']);
    });

    test('a given line total within the limit replaces quantity × value', async () => {
      const res = await create({
        payment_method: 'pix',
        items: [{ name: 'x', value: MAX, quantity: 100_000, total: 10 }],
      });
      assert.equal(res.statusCode, 201, res.body);
    });

    test('a cart of exactly the limit is created and can be priced', async () => {
      const res = await create({ payment_method: 'pix', freight: 0.99, items: [{ name: 'x', value: 99_999_999 }] });
      assert.equal(res.statusCode, 201, res.body);
      const plans = await app.inject({ url: `/api/v1/payment_plans?cart_id=${res.json().id}`, headers: ORIGIN });
      assert.equal(plans.statusCode, 200, plans.body);
      assert.equal(plans.json().pix[0].value, MAX);
    });
  });
}
