import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { bearer, createTenant, type Tenant } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import { insertCartPage, insertCoupon, insertProduct, startRecordsApp } from '../support/records-fixtures.ts';

/** Rows an order, a charge or a cart would leave behind, to show a refused creation stored nothing. */
const COUNTED = ['orders', 'order_items', 'order_events', 'payments', 'carts', 'cart_items', 'customers'] as const;

for (const engine of engines()) {
  describe(`nothing worth nothing: orders, charges and carts on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let shop: Tenant;
    let course: number;
    let freebie: number;
    let cartPage: string;
    let n = 0;

    before(async () => {
      database = await engine.open();
      ({ app } = await startRecordsApp(database));
      shop = await createTenant(database);
      course = await insertProduct(database, shop, { name: 'Curso', valueCents: 29_700 });
      freebie = await insertProduct(database, shop, { name: 'Brinde', valueCents: 0 });
      cartPage = await insertCartPage(database, shop);
      await insertCoupon(database, shop, { code: 'TUDO', percentage: 100 });
    });
    after(async () => {
      await app.close();
      await database.close();
    });

    const counts = async () => {
      const result: Record<string, number> = {};
      for (const table of COUNTED)
        result[table] = (
          await database.db.selectFrom(table).select('account_id').where('account_id', '=', shop.accountId).execute()
        ).length;
      return result;
    };
    const postOrder = (payload: Record<string, unknown>) =>
      app.inject({ method: 'POST', url: '/api/v1/orders', headers: bearer(shop.apiKey), payload });
    const postCart = (payload: Record<string, unknown>) =>
      app.inject({ method: 'POST', url: `/api/v1/carts/${cartPage}`, headers: bearer(shop.apiKey), payload });
    const customer = () => ({ email: `nothing${++n}@example.com`, name: 'Ana' });
    const refused = (
      res: { statusCode: number; body: string; json(): any },
      code: string,
      message: string,
      field: string,
    ) => {
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(res.json().code, code, res.body);
      assert.equal(res.json().message, message);
      assert.deepEqual(
        res.json().details.map((detail: { field: string }) => detail.field),
        [field],
      );
    };

    test('POST /orders (a charge) without any item is a 422 validation_failed and stores nothing', async () => {
      const before = await counts();
      for (const body of [{ customer: customer() }, { customer: customer(), items: [] }]) {
        refused(
          await postOrder(body),
          'validation_failed',
          'An order needs at least one item: send items or main_product_id',
          'body/items',
        );
      }
      assert.deepEqual(await counts(), before);
      // main_product_id alone is the order's one item.
      const one = await postOrder({ customer: customer(), items: [], main_product_id: course });
      assert.equal(one.statusCode, 201, one.body);
      assert.equal(one.json().total, 297);
    });

    test('POST /orders with a total of zero (a free product, a coupon taking everything) is a 422 business rule', async () => {
      const before = await counts();
      const message = 'The order’s total must be positive: its items are free or the coupon takes all of it';
      refused(
        await postOrder({ customer: customer(), items: [{ product_id: freebie, quantity: 3 }] }),
        'business_rule_violation',
        message,
        'body/items',
      );
      refused(
        await postOrder({ customer: customer(), items: [{ product_id: course }], coupon: 'TUDO' }),
        'business_rule_violation',
        message,
        'body/items',
      );
      refused(
        await postOrder({
          customer: customer(),
          items: [{ product_id: freebie }],
          payments: [{ gateway: 'till', amount: 1, type: 'pix' }],
        }),
        'business_rule_violation',
        message,
        'body/items',
      );
      assert.deepEqual(await counts(), before, 'no order, item, event, payment, customer or coupon use is left');
      const coupon = await database.db
        .selectFrom('coupons')
        .select('used_count')
        .where('account_id', '=', shop.accountId)
        .where('code', '=', 'TUDO')
        .executeTakeFirstOrThrow();
      assert.equal(coupon.used_count, 0);
      // A free item beside a paid one is fine.
      const mixed = await postOrder({ customer: customer(), items: [{ product_id: freebie }, { product_id: course }] });
      assert.equal(mixed.statusCode, 201, mixed.body);
    });

    test('POST /customers with create_deal and nothing to sell saves the customer and answers order_id null', async () => {
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/customers',
        headers: bearer(shop.apiKey),
        payload: { email: 'deal-nothing@example.com', name: 'Bia', phone: '11987654321', create_deal: true },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().order_id, null);
    });

    test('POST /carts/{id} without items, or with a total of zero, is a 422 and stores nothing', async () => {
      const before = await counts();
      for (const body of [{ payment_method: 'pix' }, { payment_method: 'pix', items: [], total: 10 }]) {
        refused(await postCart(body), 'validation_failed', 'A cart needs at least one item', 'body/items');
      }
      const zero = 'The cart’s total must be positive: its items, total and freight are all zero';
      refused(
        await postCart({ payment_method: 'pix', items: [{ name: 'Grátis', value: 0 }] }),
        'business_rule_violation',
        zero,
        'body/items',
      );
      refused(
        await postCart({ payment_method: 'pix', items: [{ id: freebie, quantity: 2 }] }),
        'business_rule_violation',
        zero,
        'body/items',
      );
      refused(
        await postCart({ payment_method: 'pix', items: [{ id: course }], total: 0 }),
        'business_rule_violation',
        zero,
        'body/total',
      );
      assert.deepEqual(await counts(), before);
      // Free items with freight to pay, or a positive override, still make a cart worth paying.
      const freight = await postCart({ payment_method: 'pix', freight: 15, items: [{ id: freebie }] });
      assert.equal(freight.statusCode, 201, freight.body);
      const override = await postCart({ payment_method: 'pix', total: 5, items: [{ name: 'Brinde', value: 0 }] });
      assert.equal(override.statusCode, 201, override.body);
    });

    test('a cart item named by spaces only is a 422 naming the field', async () => {
      for (const name of [' ', '\u00a0\t\n', '\u200b']) {
        const res = await postCart({ payment_method: 'pix', items: [{ name, value: 10 }] });
        assert.equal(res.statusCode, 422, JSON.stringify(name));
        assert.deepEqual(res.json().details, [
          { field: 'body/items/0/name', message: 'must contain a visible character' },
        ]);
      }
    });
  });
}
