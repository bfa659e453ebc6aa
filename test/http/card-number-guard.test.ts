import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { bearer } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import { insertCart, ORIGIN, usePayMerchant, type Merchant, type PayApp } from '../support/pay-fixtures.ts';
import { grouped, TEST_CARDS } from '../support/test-cards.ts';

/** A cart id the guard used to read as a card (its all-digit groups 50589732-5864-4002 pass Luhn). */
const CART_ID = '50589732-5864-4002-9a6b-16be86815ffe';
const REFUSED = 'Raw card numbers are not accepted: tokenize the card with the gateway’s client library';

for (const engine of engines()) {
  describe(`the raw-card-number guard over HTTP on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;
    let cartPageId: string;
    usePayMerchant(engine, async (setup) => {
      ({ database, pay, merchant } = setup);
      await insertCart(database, merchant, { id: CART_ID });
      cartPageId = (
        await database.db.selectFrom('carts').select('cart_page_id').where('id', '=', CART_ID).executeTakeFirstOrThrow()
      ).cart_page_id;
    });
    const key = () => bearer(merchant.apiKey);
    const orderCount = async () =>
      (await database.db.selectFrom('orders').select('id').where('account_id', '=', merchant.accountId).execute())
        .length;
    const orderBody = (meta: Record<string, unknown>) => ({
      customer: { email: 'ids@example.com' },
      items: [{ product_id: merchant.productId }],
      meta,
    });

    test('GET /payment_plans?cart_id= of a cart whose id looks like a card answers normally', async () => {
      const res = await pay.app.inject({ url: `/api/v1/payment_plans?cart_id=${CART_ID}`, headers: ORIGIN });
      assert.equal(res.statusCode, 200, res.body);
      assert.ok(Array.isArray(res.json().credit_card) && res.json().credit_card.length > 0, res.body);
      const cart = await pay.app.inject({ url: `/api/v1/carts/${CART_ID}`, headers: ORIGIN });
      assert.equal(cart.statusCode, 200, cart.body);
    });

    test('that UUID and ids the service issues, in a body and a query, are not card numbers', async () => {
      const meta = { external_id: CART_ID, cart: CART_ID.toUpperCase(), key_id: 'ck_4111111111111111' };
      const created = await pay.app.inject({
        method: 'POST',
        url: '/api/v1/orders',
        headers: key(),
        payload: orderBody(meta),
      });
      assert.ok([200, 201].includes(created.statusCode), created.body);
      const cart = await pay.app.inject({
        method: 'POST',
        url: `/api/v1/carts/${cartPageId}`,
        headers: key(),
        payload: {
          payment_method: 'pix',
          items: [{ name: 'Curso', value: 10, external_id: CART_ID }],
          meta: { event: 'evt_5105105105105100', delivery: `dlv_${CART_ID}` },
        },
      });
      assert.ok([200, 201].includes(cart.statusCode), cart.body);
      const search = await pay.app.inject({ url: `/api/v1/orders?q=${CART_ID}`, headers: key() });
      assert.equal(search.statusCode, 200, search.body);
    });

    test('real test cards in their usual groupings are refused in bodies and queries, and nothing is stored', async () => {
      const before = await orderCount();
      for (const { brand, pan, groups } of TEST_CARDS) {
        for (const written of [pan, grouped(pan, groups, ' '), grouped(pan, groups, '-')]) {
          const inQuery = await pay.app.inject({
            url: `/api/v1/orders?q=${encodeURIComponent(written)}`,
            headers: key(),
          });
          assert.equal(inQuery.statusCode, 422, `${brand} ${written} in a query: ${inQuery.body}`);
          assert.equal(inQuery.json().code, 'card_number_refused');
          assert.equal(inQuery.json().message, REFUSED);
          const plans = await pay.app.inject({
            url: `/api/v1/payment_plans?cart_id=${CART_ID}&coupon=${encodeURIComponent(written)}`,
            headers: ORIGIN,
          });
          assert.equal(plans.statusCode, 422, `${brand} ${written} beside the cart id: ${plans.body}`);
          const inBody = await pay.app.inject({
            method: 'POST',
            url: '/api/v1/orders',
            headers: key(),
            payload: orderBody({ note: `cartão ${written}`, external_id: CART_ID }),
          });
          assert.equal(inBody.statusCode, 422, `${brand} ${written} in a body: ${inBody.body}`);
          assert.equal(inBody.json().code, 'card_number_refused');
        }
      }
      assert.equal(await orderCount(), before);
    });
  });
}
