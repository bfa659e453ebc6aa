import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { engines } from '../support/engines.ts';
import { insertCart, ORIGIN, type Merchant, type PayApp, usePayMerchant } from '../support/pay-fixtures.ts';

/**
 * A coupon restricted to some products must cover every line of the purchase: a cart line the merchant named
 * without a catalog product is covered by no restriction, so such a coupon is refused, never applied to it.
 */
for (const engine of engines()) {
  describe(
    `a product-restricted coupon on a cart with a line that is no product on ${engine.name}`,
    { timeout: 120_000 },
    () => {
      let database: Database;
      let pay: PayApp;
      let merchant: Merchant;

      usePayMerchant(engine, (setup) => ({ database, pay, merchant } = setup));

      const cartWithNamedLine = async (code: string, restrictedTo: number[]) => {
        const cartId = await insertCart(database, merchant);
        await database.db
          .insertInto('cart_items')
          .values({
            account_id: merchant.accountId,
            cart_id: cartId,
            product_id: null,
            name: 'Consultoria',
            quantity: 1,
            unit_value_cents: 100_000,
            total_cents: 100_000,
            position: 1,
          })
          .execute();
        const coupon = await database.db
          .insertInto('coupons')
          .values({
            account_id: merchant.accountId,
            company_id: merchant.companyId,
            code,
            type: 'percentage',
            percentage: 10,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        for (const productId of restrictedTo)
          await database.db
            .insertInto('coupon_products')
            .values({ account_id: merchant.accountId, coupon_id: coupon.id, product_id: productId })
            .execute();
        return cartId;
      };

      test('payment plans and the pay call refuse it (422) and nothing is charged', async () => {
        const cartId = await cartWithNamedLine('ONLYCURSO', [merchant.productId]);
        const plans = await pay.app.inject({
          url: `/api/v1/payment_plans?cart_id=${cartId}&coupon=ONLYCURSO`,
          headers: ORIGIN,
        });
        assert.equal(plans.statusCode, 422, plans.body);
        const paid = await pay.app.inject({
          method: 'POST',
          url: `/api/v1/carts/${cartId}/pay`,
          headers: ORIGIN,
          payload: { coupon: 'ONLYCURSO', payment_plan_id: `${merchant.pixPlanId}-1` },
        });
        assert.equal(paid.statusCode, 422, paid.body);
        const orders = await database.db.selectFrom('orders').select('id').where('cart_id', '=', cartId).execute();
        assert.equal(orders.length, 0);
      });

      test('an unrestricted coupon still discounts the whole cart, freight aside', async () => {
        const cartId = await cartWithNamedLine('TODOS', []);
        const plans = await pay.app.inject({
          url: `/api/v1/payment_plans?cart_id=${cartId}&coupon=TODOS`,
          headers: ORIGIN,
        });
        assert.equal(plans.statusCode, 200, plans.body);
        // (100.00 + 1,000.00) less 10%, plus 15.00 freight.
        assert.equal(plans.json().pix[0].value, 1_005);
      });
    },
  );
}
