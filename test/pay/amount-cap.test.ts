import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { engines } from '../support/engines.ts';
import { insertPage, insertProduct, ORIGIN, type Merchant, type PayApp, usePayMerchant } from '../support/pay-fixtures.ts';

/** Quantities of an expensive product can add up past what one order may amount to: 422 before anything is stored. */
for (const engine of engines()) {
  describe(`the amount cap on checkout-page payments on ${engine.name}`, { timeout: 60_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;

    usePayMerchant(engine, (setup) => ({ database, pay, merchant } = setup));

    test('a page total above R$ 99,999,999.99 is a 422 on POST /payments and GET /payment_plans; at the cap it is priced', async () => {
      const expensive = await insertProduct(database.db, merchant, 5_000_000_000);
      const pageId = await insertPage(database.db, merchant, { products: [expensive], plans: [merchant.pixPlanId, merchant.boletoPlanId] });
      const res = await pay.app.inject({ method: 'POST', url: '/api/v1/payments', headers: ORIGIN, payload: { checkout_page_id: pageId, products: [{ id: expensive, quantity: 2 }], customer_email: 'rich@example.com', payment_plan_id: `${merchant.pixPlanId}-1` } });
      assert.equal(res.statusCode, 422, res.body);
      assert.match(res.json().message, /exceeds 99999999\.99/);
      assert.equal((await database.db.selectFrom('orders').select('id').where('account_id', '=', merchant.accountId).execute()).length, 0);
      const plans = await pay.app.inject({ url: `/api/v1/payment_plans?checkout_page_id=${pageId}&products[${expensive}]=2`, headers: ORIGIN });
      assert.equal(plans.statusCode, 422, plans.body);
      const one = await pay.app.inject({ url: `/api/v1/payment_plans?checkout_page_id=${pageId}&products[${expensive}]=1`, headers: ORIGIN });
      assert.equal(one.statusCode, 200, one.body);
      assert.equal(one.json().pix[0].value, 50_000_000);
    });
  });
}
