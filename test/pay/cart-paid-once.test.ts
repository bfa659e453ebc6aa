import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { engines } from '../support/engines.ts';
import { CARDS, insertCart, ORIGIN, tokenA, type Merchant, type PayApp, usePayMerchant } from '../support/pay-fixtures.ts';

/** A cart is one purchase: once paid it refuses another payment; until then (declined, pix unpaid) it can be paid. */
for (const engine of engines()) {
  describe(`a cart is paid once on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;

    usePayMerchant(engine, (setup) => ({ database, pay, merchant } = setup));

    const post = (path: string, payload: Record<string, unknown>) => pay.app.inject({ method: 'POST', url: `/api/v1${path}`, headers: ORIGIN, payload });
    const ordersOf = (cartId: string) => database.db.selectFrom('orders').select('status').where('cart_id', '=', cartId).orderBy('id').execute();

    test('a paid cart answers 422 to another payment and charges nothing', async () => {
      const cartId = await insertCart(database, merchant);
      const first = await post(`/carts/${cartId}/pay`, { payment_plan_id: `${merchant.cardPlanId}-1`, credit_card_0_token: await tokenA(pay.sandboxes) });
      assert.equal(first.statusCode, 200, first.body);
      assert.equal(first.json().order_status, 'paid');
      const again = await post(`/carts/${cartId}/pay`, { payment_plan_id: `${merchant.cardPlanId}-1`, credit_card_0_token: await tokenA(pay.sandboxes) });
      assert.equal(again.statusCode, 422, again.body);
      assert.match(again.json().message, /already paid/);
      const pix = await post(`/carts/${cartId}/pay`, { payment_plan_id: `${merchant.pixPlanId}-1` });
      assert.equal(pix.statusCode, 422, pix.body);
      assert.deepEqual(await ordersOf(cartId), [{ status: 'paid' }]);
    });

    test('a cart whose card was declined, or whose pix is unpaid, can still be paid', async () => {
      const cartId = await insertCart(database, merchant);
      const declined = await post(`/carts/${cartId}/pay`, { payment_plan_id: `${merchant.cardPlanId}-1`, credit_card_0_token: await tokenA(pay.sandboxes, CARDS.declined) });
      assert.equal(declined.statusCode, 422, declined.body);
      const pix = await post(`/carts/${cartId}/pay`, { payment_plan_id: `${merchant.pixPlanId}-1` });
      assert.equal(pix.statusCode, 200, pix.body);
      const card = await post(`/carts/${cartId}/pay`, { payment_plan_id: `${merchant.cardPlanId}-1`, credit_card_0_token: await tokenA(pay.sandboxes) });
      assert.equal(card.statusCode, 200, card.body);
      assert.equal(card.json().order_status, 'paid');
    });
  });
}
