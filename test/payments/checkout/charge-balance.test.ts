import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../../src/db/database.ts';
import { bearer } from '../../support/app.ts';
import { engines } from '../../support/engines.ts';
import { sandboxChargeAmount } from '../../support/pay-jobs.ts';
import {
  ORIGIN,
  paymentsOfOrderUid,
  tokenA,
  type Merchant,
  type PayApp,
  usePayMerchant,
} from '../../support/pay-fixtures.ts';

/** A charge partly paid elsewhere (recorded with `POST /orders`) is priced and charged on what remains of it. */
for (const engine of engines()) {
  describe(`a partly paid charge on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;

    usePayMerchant(engine, (setup) => ({ database, pay, merchant } = setup));

    const partlyPaidCharge = async (paidElsewhere: number) => {
      const created = await pay.app.inject({
        method: 'POST',
        url: '/api/v1/orders',
        headers: bearer(merchant.apiKey),
        payload: {
          customer: { email: `balance-${paidElsewhere}@example.com`, name: 'Balance Buyer' },
          items: [{ product_id: merchant.productId, quantity: 1 }],
          payments: [{ gateway: 'external', type: 'pix', amount: paidElsewhere }],
        },
      });
      assert.equal(created.statusCode, 201, created.body);
      assert.equal(created.json().status, 'partially_paid');
      return created.json() as { id: number; uid: string };
    };

    test('the payment plans quote the balance, the card is charged the balance, and the charge ends paid with its total', async () => {
      const charge = await partlyPaidCharge(40);
      const plans = await pay.app.inject({ url: `/api/v1/payment_plans?charge_id=${charge.uid}`, headers: ORIGIN });
      assert.equal(plans.statusCode, 200, plans.body);
      assert.equal(plans.json().pix[0].value, 60);
      assert.equal(plans.json().credit_card[0].value, 60);

      const paid = await pay.app.inject({
        method: 'POST',
        url: `/api/v1/charges/${charge.uid}/pay`,
        headers: ORIGIN,
        payload: { payment_plan_id: `${merchant.cardPlanId}-1`, credit_card_0_token: await tokenA(pay.sandboxes) },
      });
      assert.equal(paid.statusCode, 200, paid.body);
      assert.equal(paid.json().status, 'paid');
      const card = (await paymentsOfOrderUid(database, charge.uid)).find(
        (payment) => payment.method === 'credit_card',
      )!;
      assert.equal(card.amount_cents, 6_000);
      assert.equal(await sandboxChargeAmount(pay, card.gateway_id!), 6_000);
      const order = await database.db
        .selectFrom('orders')
        .select(['status', 'paid_cents'])
        .where('id', '=', charge.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(order, { status: 'paid', paid_cents: 10_000 });
    });

    test('a pix for the balance is issued for the balance', async () => {
      const charge = await partlyPaidCharge(25.5);
      const pix = await pay.app.inject({
        method: 'POST',
        url: `/api/v1/charges/${charge.uid}/pay`,
        headers: ORIGIN,
        payload: { payment_plan_id: `${merchant.pixPlanId}-1` },
      });
      assert.equal(pix.statusCode, 200, pix.body);
      const issued = (await paymentsOfOrderUid(database, charge.uid)).find(
        (payment) => payment.gateway === 'gateway_a',
      )!;
      assert.equal(issued.amount_cents, 7_450);
      assert.equal(await sandboxChargeAmount(pay, issued.gateway_id!), 7_450);
    });
  });
}
