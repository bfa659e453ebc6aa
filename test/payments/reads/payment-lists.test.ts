import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../../src/db/database.ts';
import { RECENT_PAYMENTS_LIMIT } from '../../../src/modules/payments/reads/payment-reads.schemas.ts';
import { bearer, type Tenant, useTwoShops } from '../../support/app.ts';
import {
  insertCart,
  insertCartPage,
  insertCheckoutPage,
  insertOrder,
  insertPayment,
} from '../../support/catalog-fixtures.ts';
import { engines } from '../../support/engines.ts';

const SHOP = { origin: 'https://shop.example' };
const START = Date.parse('2030-01-01T00:00:00Z');
const minute = (n: number) => new Date(START + n * 60_000);

for (const engine of engines()) {
  describe(`payment lists without ids on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let shop: Tenant;
    let other: Tenant;

    useTwoShops(engine, (setup) => ({ database, app, shop, other } = setup));

    /** `count` payments on `orderId`, one a minute, named `${prefix}_${i}`; the last is the most recent. */
    const insertPayments = async (tenant: Tenant, orderId: number, prefix: string, count: number) => {
      for (let i = 0; i < count; i++)
        await insertPayment(database, tenant, orderId, {
          gateway_id: `${prefix}_${i}`,
          status: 'paid',
          created_at: minute(i),
        });
    };

    test(`a checkout page: its ${RECENT_PAYMENTS_LIMIT} most recent payments, newest first, over all its orders`, async () => {
      const page = await insertCheckoutPage(database, shop);
      const first = await insertOrder(database, shop, { checkout_page_id: page, source: 'checkout_page' });
      const second = await insertOrder(database, shop, { checkout_page_id: page, source: 'checkout_page' });
      await insertPayments(shop, first.id, 'pg', RECENT_PAYMENTS_LIMIT + 1);
      // Same creation time as the newest: the later id comes first.
      await insertPayment(database, shop, second.id, {
        gateway_id: 'pg_tie',
        status: 'failed',
        created_at: minute(RECENT_PAYMENTS_LIMIT),
      });
      const res = await app.inject({ url: `/api/v1/checkout_pages/${page}/payments`, headers: bearer(shop.apiKey) });
      assert.equal(res.statusCode, 200);
      const listed = res.json() as Array<{ gateway_id: string; status: string }>;
      assert.equal(listed.length, RECENT_PAYMENTS_LIMIT);
      assert.deepEqual(listed.slice(0, 3), [
        { gateway_id: 'pg_tie', status: 'failed' },
        { gateway_id: `pg_${RECENT_PAYMENTS_LIMIT}`, status: 'paid' },
        { gateway_id: `pg_${RECENT_PAYMENTS_LIMIT - 1}`, status: 'paid' },
      ]);
      assert.equal(listed.at(-1)!.gateway_id, 'pg_2', 'the two oldest are past the cap');
      // The ids filter still reaches past the cap, in creation order.
      const named = await app.inject({
        url: `/api/v1/checkout_pages/${page}/payments?ids[]=pg_tie&ids[]=pg_0`,
        headers: bearer(shop.apiKey),
      });
      assert.deepEqual(named.json(), [
        { gateway_id: 'pg_0', status: 'paid' },
        { gateway_id: 'pg_tie', status: 'failed' },
      ]);
    });

    test('a cart: its payments only, not another account’s on an order naming the same cart; 204 when it has none', async () => {
      const cartPage = await insertCartPage(database, shop);
      const cart = await insertCart(database, shop, cartPage);
      const order = await insertOrder(database, shop, { cart_id: cart, cart_page_id: cartPage, source: 'cart' });
      await insertPayments(shop, order.id, 'ct', 3);
      const foreign = await insertOrder(database, other, { cart_id: cart, source: 'cart' });
      await insertPayment(database, other, foreign.id, {
        gateway_id: 'foreign',
        status: 'paid',
        created_at: minute(10),
      });
      const res = await app.inject({ url: `/api/v1/carts/${cart}/payments`, headers: SHOP });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(
        res.json(),
        ['ct_2', 'ct_1', 'ct_0'].map((id) => ({ gateway_id: id, status: 'paid' })),
      );

      const empty = await insertCart(database, shop, cartPage);
      await insertOrder(database, shop, { cart_id: empty, source: 'cart' });
      const none = await app.inject({ url: `/api/v1/carts/${empty}/payments`, headers: SHOP });
      assert.equal(none.statusCode, 204);
      assert.equal(none.body, '');
    });

    test('access is checked as before: another account’s origin is 403 on a cart, its key 404 on a page', async () => {
      const page = await insertCheckoutPage(database, shop);
      await insertPayment(database, shop, (await insertOrder(database, shop, { checkout_page_id: page })).id, {
        gateway_id: 'guarded',
        status: 'paid',
      });
      assert.equal(
        (await app.inject({ url: `/api/v1/checkout_pages/${page}/payments`, headers: bearer(other.apiKey) }))
          .statusCode,
        404,
      );
      const cart = await insertCart(database, shop, await insertCartPage(database, shop));
      await insertPayment(database, shop, (await insertOrder(database, shop, { cart_id: cart })).id, {
        gateway_id: 'guarded_cart',
        status: 'paid',
      });
      assert.equal(
        (await app.inject({ url: `/api/v1/carts/${cart}/payments`, headers: { origin: 'https://other.example' } }))
          .statusCode,
        403,
      );
    });
  });
}
