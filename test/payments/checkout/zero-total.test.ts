import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../../src/db/database.ts';
import { createUpsellOffer } from '../../../src/modules/payments/settlement/upsell-offer-token.ts';
import { engines } from '../../support/engines.ts';
import {
  insertCart,
  insertCharge,
  insertPage,
  insertProduct,
  ORIGIN,
  type Merchant,
  type PayApp,
  usePayMerchant,
} from '../../support/pay-fixtures.ts';
import { insertCoupon } from '../../support/records-fixtures.ts';
import { paidCardOrder } from '../refunds/refund-fixtures.ts';

const NOTHING_TO_PAY = 'The total to pay is zero: there is nothing to charge';

for (const engine of engines()) {
  describe(`a pay request whose total is zero on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;
    let freeProductId: number;
    let freePage: string;

    usePayMerchant(engine, async (setup) => {
      ({ database, pay, merchant } = setup);
      freeProductId = await insertProduct(database.db, merchant, 0, { name: 'Brinde' });
      freePage = await insertPage(database.db, merchant, {
        products: [freeProductId, merchant.productId],
        plans: [merchant.cardPlanId, merchant.pixPlanId, merchant.boletoPlanId],
      });
    });

    const post = (url: string, payload: Record<string, unknown>) =>
      pay.app.inject({ method: 'POST', url: `/api/v1${url}`, headers: ORIGIN, payload });
    const counts = async () => {
      const orders = await database.db
        .selectFrom('orders')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', merchant.accountId)
        .executeTakeFirstOrThrow();
      const payments = await database.db
        .selectFrom('payments')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', merchant.accountId)
        .executeTakeFirstOrThrow();
      return { orders: Number(orders.n), payments: Number(payments.n) };
    };
    const assertNothingToPay = (res: { statusCode: number; body: string; json(): any }) => {
      assert.equal(res.statusCode, 422, res.body);
      assert.deepEqual(res.json().code, 'business_rule_violation');
      assert.equal(res.json().message, NOTHING_TO_PAY);
      assert.deepEqual(res.json().details, [{ field: 'body/payment_plan_id', message: 'the total to pay is zero' }]);
    };
    /** A cart of one free item and no freight. */
    const freeCart = async () => {
      const cartId = await insertCart(database, merchant);
      await database.db.updateTable('carts').set({ freight_cents: 0 }).where('id', '=', cartId).execute();
      await database.db
        .updateTable('cart_items')
        .set({ product_id: freeProductId, unit_value_cents: 0, total_cents: 0 })
        .where('cart_id', '=', cartId)
        .execute();
      return cartId;
    };

    test('POST /payments: a free product, by every method, is a 422 and stores nothing', async () => {
      const before = await counts();
      for (const plan of [`${merchant.pixPlanId}-1`, `${merchant.boletoPlanId}-1`, `${merchant.cardPlanId}-1`]) {
        const res = await post('/payments', {
          checkout_page_id: freePage,
          main_product_id: freeProductId,
          customer_email: 'free@example.com',
          payment_plan_id: plan,
          credit_card_0_token: 'tok_unused',
        });
        assertNothingToPay(res);
      }
      assert.deepEqual(await counts(), before);
    });

    test('POST /payments: a coupon that takes the whole total is a 422 and its use is not claimed', async () => {
      const couponId = await insertCoupon(database, merchant, { code: 'FULL100', percentage: 100, usageLimit: 5 });
      const before = await counts();
      const res = await post('/payments', {
        checkout_page_id: freePage,
        products: [{ id: merchant.productId, quantity: 1 }],
        customer_email: 'coupon@example.com',
        payment_plan_id: `${merchant.pixPlanId}-1`,
        coupon: 'full100',
      });
      assertNothingToPay(res);
      assert.deepEqual(await counts(), before);
      assert.equal(
        (
          await database.db
            .selectFrom('coupons')
            .select('used_count')
            .where('id', '=', couponId)
            .executeTakeFirstOrThrow()
        ).used_count,
        0,
      );
    });

    test('POST /carts/{id}/pay: a free cart is a 422; GET /payment_plans offers its methods with no option', async () => {
      const cartId = await freeCart();
      const before = await counts();
      assertNothingToPay(await post(`/carts/${cartId}/pay`, { payment_plan_id: `${merchant.pixPlanId}-1` }));
      assert.deepEqual(await counts(), before);
      const plans = await pay.app.inject({ url: `/api/v1/payment_plans?cart_id=${cartId}`, headers: ORIGIN });
      assert.equal(plans.statusCode, 200, plans.body);
      assert.deepEqual(plans.json(), { credit_card: [], pix: [], bank_slip: [] });
    });

    test('POST /charges/{id}/pay: a charge of zero is a 422 and gets no payment', async () => {
      const charge = await insertCharge(database, merchant);
      await database.db
        .updateTable('orders')
        .set({ subtotal_cents: 0, total_cents: 0 })
        .where('id', '=', charge.id)
        .execute();
      assertNothingToPay(await post(`/charges/${charge.uid}/pay`, { payment_plan_id: `${merchant.boletoPlanId}-1` }));
      assert.equal(
        (await database.db.selectFrom('payments').select('id').where('order_id', '=', charge.id).execute()).length,
        0,
      );
      assert.equal(
        (await database.db.selectFrom('orders').select('status').where('id', '=', charge.id).executeTakeFirstOrThrow())
          .status,
        'pending',
      );
    });

    test('POST /upsell: an offer of a free product is a 422 that leaves the offer unspent and creates no order', async () => {
      const paid = await paidCardOrder(pay, database, merchant);
      const original = await database.db
        .selectFrom('orders')
        .select('id')
        .where('uid', '=', paid.orderUid)
        .executeTakeFirstOrThrow();
      const offer = await createUpsellOffer(database.db, pay.config.masterKey, {
        accountId: merchant.accountId,
        orderId: original.id,
        productId: freeProductId,
        now: new Date(),
      });
      const res = await pay.app.inject({ method: 'POST', url: '/api/v1/upsell', payload: { offer } });
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(res.json().code, 'business_rule_violation');
      assert.match(res.json().message, /free/);
      const row = await database.db
        .selectFrom('upsell_offers')
        .select(['consumed_at', 'upsell_order_id'])
        .where('order_id', '=', original.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, { consumed_at: null, upsell_order_id: null });
      assert.equal(
        (await database.db.selectFrom('orders').select('id').where('parent_order_id', '=', original.id).execute())
          .length,
        0,
      );
    });
  });
}
