import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../../src/db/database.ts';
import { engines } from '../../support/engines.ts';
import {
  insertCharge,
  insertPage,
  insertPlan,
  insertProduct,
  ORIGIN,
  payChargeWithTwoCards,
  tokenA,
  type Merchant,
  type PayApp,
  usePayMerchant,
} from '../../support/pay-fixtures.ts';

/** Quantities of an expensive product can add up past what one order may amount to: 422 before anything is stored. */
for (const engine of engines()) {
  describe(`the amount cap on checkout-page payments on ${engine.name}`, { timeout: 60_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;

    usePayMerchant(engine, (setup) => ({ database, pay, merchant } = setup));

    test('a page total above R$ 99,999,999.99 is a 422 on POST /payments and GET /payment_plans; at the cap it is priced', async () => {
      const expensive = await insertProduct(database.db, merchant, 5_000_000_000);
      const pageId = await insertPage(database.db, merchant, {
        products: [expensive],
        plans: [merchant.pixPlanId, merchant.boletoPlanId],
      });
      const res = await pay.app.inject({
        method: 'POST',
        url: '/api/v1/payments',
        headers: ORIGIN,
        payload: {
          checkout_page_id: pageId,
          products: [{ id: expensive, quantity: 2 }],
          customer_email: 'rich@example.com',
          payment_plan_id: `${merchant.pixPlanId}-1`,
        },
      });
      assert.equal(res.statusCode, 422, res.body);
      assert.match(res.json().message, /exceeds 99999999\.99/);
      assert.equal(
        (await database.db.selectFrom('orders').select('id').where('account_id', '=', merchant.accountId).execute())
          .length,
        0,
      );
      const plans = await pay.app.inject({
        url: `/api/v1/payment_plans?checkout_page_id=${pageId}&products[${expensive}]=2`,
        headers: ORIGIN,
      });
      assert.equal(plans.statusCode, 422, plans.body);
      const one = await pay.app.inject({
        url: `/api/v1/payment_plans?checkout_page_id=${pageId}&products[${expensive}]=1`,
        headers: ORIGIN,
      });
      assert.equal(one.statusCode, 200, one.body);
      assert.equal(one.json().pix[0].value, 50_000_000);
    });

    test('at the cap, an option whose interest or fee takes the amount past it is not offered, and paying with it is a 422 storing nothing', async () => {
      const atCap = await insertProduct(database.db, merchant, 9_999_999_999);
      const slipWithFee = await insertPlan(database.db, merchant, 'bank_slip', {
        taxes: [{ installments: 1, fixedCents: 100 }],
      });
      const pageId = await insertPage(database.db, merchant, {
        products: [atCap],
        plans: [slipWithFee, merchant.pixPlanId, merchant.cardPlanId],
      });
      const plans = await pay.app.inject({
        url: `/api/v1/payment_plans?checkout_page_id=${pageId}&products[${atCap}]=1`,
        headers: ORIGIN,
      });
      assert.equal(plans.statusCode, 200, plans.body);
      assert.deepEqual(plans.json().bank_slip, []);
      assert.equal(plans.json().pix[0].value, 99_999_999.99);
      // 2.5% interest from 2x to 6x: those do not fit. 7x-12x have no interest row, but the installment is
      // rounded up to the cent, so only the counts that divide 9,999,999,999 cents exactly (9 and 11) stay at the cap.
      assert.deepEqual(
        plans.json().credit_card.map((option: { id: string }) => Number(option.id.split('-')[1])),
        [1, 9, 11],
      );
      for (const option of [`${slipWithFee}-1`, `${merchant.cardPlanId}-2`]) {
        const res = await pay.app.inject({
          method: 'POST',
          url: '/api/v1/payments',
          headers: ORIGIN,
          payload: {
            checkout_page_id: pageId,
            products: [{ id: atCap, quantity: 1 }],
            customer_email: 'cap@example.com',
            payment_plan_id: option,
            credit_card_0_token: option.endsWith('-2') ? await tokenA(pay.sandboxes) : undefined,
          },
        });
        assert.equal(res.statusCode, 422, res.body);
        assert.deepEqual(res.json().details, [
          { field: 'body/payment_plan_id', message: 'the amount to pay is above the limit' },
        ]);
      }
      assert.equal(
        (await database.db.selectFrom('orders').select('id').where('account_id', '=', merchant.accountId).execute())
          .length,
        0,
      );
    });

    test('an overdue charge at the cap stays payable: its fine is not refused, and two cards carry it', async () => {
      const termsPlanId = await insertPlan(database.db, merchant, 'bank_slip');
      await database.db
        .updateTable('payment_plans')
        .set({ fine_type: 'percentage', fine_tax: 2 })
        .where('id', '=', termsPlanId)
        .execute();
      await database.db
        .updateTable('checkout_pages')
        .set({ enable_two_cards: true })
        .where('id', '=', merchant.pageId)
        .execute();
      const charge = await insertCharge(database, merchant, { dueDate: '2026-03-05' });
      await database.db
        .updateTable('orders')
        .set({
          total_cents: 9_999_999_999,
          subtotal_cents: 9_999_999_999,
          payment_plan_id: termsPlanId,
          checkout_page_id: merchant.pageId,
        })
        .where('id', '=', charge.id)
        .execute();
      const plans = await pay.app.inject({ url: `/api/v1/payment_plans?charge_id=${charge.uid}`, headers: ORIGIN });
      assert.equal(plans.statusCode, 200, plans.body);
      assert.deepEqual(plans.json().pix, []);
      // 99,999,999.99 plus a 2% fine (2,000,000.00): 101,999,999.99 over two cards.
      const res = await payChargeWithTwoCards(pay, merchant, charge.uid, [60_000_000, 41_999_999.99]);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().status, 'paid');
    });
  });
}
