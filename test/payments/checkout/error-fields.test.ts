import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../../src/db/database.ts';
import { seal } from '../../../src/lib/crypto.ts';
import { engines } from '../../support/engines.ts';
import {
  CARDS,
  confirmationTokenB,
  insertCart,
  insertPage,
  insertProduct,
  ORIGIN,
  tokenA,
  type Merchant,
  type PayApp,
  usePayMerchant,
} from '../../support/pay-fixtures.ts';

/** The detail fields of a 422: each names the field of the request that was actually sent. */
for (const engine of engines()) {
  describe(`error details name the field sent on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;
    let offPage: number;

    usePayMerchant(engine, async (setup) => {
      ({ database, pay, merchant } = setup);
      offPage = await insertProduct(database.db, merchant, 500, { name: 'Fora da página' });
    });

    const post = (url: string, payload: Record<string, unknown>) =>
      pay.app.inject({ method: 'POST', url: `/api/v1${url}`, headers: ORIGIN, payload });
    const payOnPage = (fields: Record<string, unknown>) =>
      post('/payments', {
        checkout_page_id: merchant.pageId,
        customer_email: 'fields@example.com',
        payment_plan_id: `${merchant.pixPlanId}-1`,
        ...fields,
      });

    test('POST /payments: a product not on the page names the body field (main_product_id, products/N/id), not the query string', async () => {
      const main = await payOnPage({ main_product_id: offPage });
      assert.equal(main.statusCode, 422, main.body);
      assert.deepEqual(main.json().details, [
        { field: 'body/main_product_id', message: 'is not a product of this checkout page' },
      ]);
      const listed = await payOnPage({
        products: [
          { id: merchant.productId, quantity: 1 },
          { id: offPage, quantity: 2 },
        ],
      });
      assert.equal(listed.statusCode, 422, listed.body);
      assert.deepEqual(listed.json().details, [
        { field: 'body/products/1/id', message: 'is not a product of this checkout page' },
      ]);
      const tooMany = await payOnPage({ products: [{ id: merchant.productId, quantity: 11 }] });
      assert.equal(tooMany.statusCode, 422, tooMany.body);
      assert.deepEqual(tooMany.json().details, [{ field: 'body/products/0/quantity', message: 'must be at most 10' }]);
    });

    test('GET /payment_plans still names the query string', async () => {
      const res = await pay.app.inject({
        url: `/api/v1/payment_plans?checkout_page_id=${merchant.pageId}&products[${offPage}]=1`,
        headers: ORIGIN,
      });
      assert.equal(res.statusCode, 422, res.body);
      assert.deepEqual(res.json(), {
        errors: [`querystring/products/${offPage} is not a product of this checkout page`],
      });
    });

    test("a declined card names the field that carried it: credit_card_0_token, or gateway_b's confirmation_token_id", async () => {
      const byToken = await post('/payments', {
        checkout_page_id: merchant.pageId,
        products: [{ id: merchant.productId, quantity: 1 }],
        customer_email: 'declined@example.com',
        payment_plan_id: `${merchant.cardPlanId}-1`,
        credit_card_0_token: await tokenA(pay.sandboxes, CARDS.declined),
      });
      assert.equal(byToken.statusCode, 422, byToken.body);
      assert.equal(byToken.json().details[0].field, 'body/credit_card_0_token');
      const pageB = await insertPage(database.db, merchant, {
        gateway: 'gateway_b',
        products: [merchant.productId],
        plans: [merchant.cardPlanId],
      });
      const byConfirmation = await post('/payments', {
        checkout_page_id: pageB,
        products: [{ id: merchant.productId, quantity: 1 }],
        customer_email: 'declined-b@example.com',
        payment_plan_id: `${merchant.cardPlanId}-1`,
        confirmation_token_id: await confirmationTokenB(pay.sandboxes, CARDS.declined),
      });
      assert.equal(byConfirmation.statusCode, 422, byConfirmation.body);
      assert.equal(byConfirmation.json().details[0].field, 'body/confirmation_token_id');
    });

    test('a gateway refusal of a pix or a boleto names payment_plan_id, never a card field', async () => {
      // A secret key gateway_c refuses (401) on every request (no other test here uses gateway_c).
      await database.db
        .updateTable('company_gateways')
        .set({ secret_encrypted: seal(pay.config.masterKey, 'revoked') })
        .where('account_id', '=', merchant.accountId)
        .where('gateway', '=', 'gateway_c')
        .execute();
      for (const planId of [merchant.pixPlanId, merchant.boletoPlanId]) {
        const res = await post(`/carts/${await insertCart(database, merchant, { gateway: 'gateway_c' })}/pay`, {
          payment_plan_id: `${planId}-1`,
        });
        assert.equal(res.statusCode, 422, res.body);
        assert.equal(res.json().code, 'business_rule_violation');
        assert.match(res.json().message, /gateway refused/);
        assert.equal(res.json().details[0].field, 'body/payment_plan_id');
      }
    });
  });
}
