import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { bearer } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import { CARDS, ORIGIN, tokenA, type Merchant, type PayApp, usePayMerchant } from '../support/pay-fixtures.ts';
import { insertCoupon } from '../support/pricing-fixtures.ts';

for (const engine of engines()) {
  describe(`a coupon's use on orders created with it (charges) on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;
    usePayMerchant(engine, (setup) => ({ database, pay, merchant } = setup));

    const usedCount = async (id: number) =>
      (await database.db.selectFrom('coupons').select('used_count').where('id', '=', id).executeTakeFirstOrThrow())
        .used_count;
    const createCharge = (email: string, coupon: string) =>
      pay.app.inject({
        method: 'POST',
        url: '/api/v1/orders',
        headers: bearer(merchant.apiKey),
        payload: { customer: { email, name: 'Buyer' }, items: [{ product_id: merchant.productId }], coupon },
      });
    const payChargeByCard = async (uid: string, card: string = CARDS.approved) =>
      pay.app.inject({
        method: 'POST',
        url: `/api/v1/charges/${uid}/pay`,
        headers: ORIGIN,
        payload: {
          payment_plan_id: `${merchant.cardPlanId}-1`,
          credit_card_0_token: await tokenA(pay.sandboxes, card),
        },
      });

    test('the order holds its use from creation: a single-use coupon goes to one charge only, and checkout refuses it afterwards', async () => {
      const coupon = await insertCoupon(database.db, merchant, { code: 'ONCECHARGE', percentage: 10, usageLimit: 1 });
      const first = await createCharge('first@example.com', 'ONCECHARGE');
      assert.equal(first.statusCode, 201, first.body);
      assert.equal(await usedCount(coupon), 1);
      const second = await createCharge('second@example.com', 'ONCECHARGE');
      assert.equal(second.statusCode, 422, second.body);
      assert.match(second.json().message, /usage limit/);
      const checkout = await pay.app.inject({
        method: 'POST',
        url: '/api/v1/payments',
        headers: ORIGIN,
        payload: {
          checkout_page_id: merchant.pageId,
          products: [{ id: merchant.productId, quantity: 1 }],
          customer_email: 'third@example.com',
          payment_plan_id: `${merchant.pixPlanId}-1`,
          coupon: 'ONCECHARGE',
        },
      });
      assert.equal(checkout.statusCode, 422, checkout.body);
      const paid = await payChargeByCard(first.json().uid);
      assert.equal(paid.statusCode, 200, paid.body);
      assert.equal(paid.json().status, 'paid');
      assert.equal(await usedCount(coupon), 1);
      const redemptions = await database.db
        .selectFrom('coupon_redemptions')
        .select('order_id')
        .where('coupon_id', '=', coupon)
        .execute();
      assert.equal(redemptions.length, 1);
    });

    test('a declined card on the charge keeps the charge’s use: it stays payable with its discount', async () => {
      const coupon = await insertCoupon(database.db, merchant, { code: 'KEEPUSE', percentage: 10, usageLimit: 1 });
      const charge = await createCharge('keep@example.com', 'KEEPUSE');
      assert.equal(charge.statusCode, 201, charge.body);
      const declined = await payChargeByCard(charge.json().uid, CARDS.declined);
      assert.equal(declined.statusCode, 200, declined.body);
      assert.equal(declined.json().status, 'failed');
      assert.equal(await usedCount(coupon), 1);
      const other = await createCharge('other@example.com', 'KEEPUSE');
      assert.equal(other.statusCode, 422, other.body);
      const paid = await payChargeByCard(charge.json().uid);
      assert.equal(paid.json().status, 'paid', paid.body);
      assert.equal(await usedCount(coupon), 1);
    });
  });
}
