import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../../src/db/database.ts';
import { engines } from '../../support/engines.ts';
import {
  insertPage,
  insertPlan,
  ORIGIN,
  tokenA,
  type Merchant,
  type PayApp,
  usePayMerchant,
} from '../../support/pay-fixtures.ts';

/** Card fields that contradict the chosen plan are refused before anything is stored or charged. */
for (const engine of engines()) {
  describe(`card fields agree with the plan on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;
    let pageId: string;
    let cardPlanId: number;

    usePayMerchant(engine, async (setup) => {
      ({ database, pay, merchant } = setup);
      // Installments of at least R$ 10,00: a R$ 15,00 share cannot take 2x.
      cardPlanId = await insertPlan(database.db, merchant, 'credit_card', {
        maxInstallments: 3,
        taxes: [{ installments: 2, percentage: 1.79 }],
      });
      await database.db
        .updateTable('payment_plans')
        .set({ min_installment_cents: 1_000 })
        .where('id', '=', cardPlanId)
        .execute();
      pageId = await insertPage(database.db, merchant, {
        products: [merchant.productId],
        plans: [cardPlanId, merchant.pixPlanId],
        enableTwoCards: true,
      });
    });

    const pay100 = (fields: Record<string, unknown>) =>
      pay.app.inject({
        method: 'POST',
        url: '/api/v1/payments',
        headers: ORIGIN,
        payload: {
          checkout_page_id: pageId,
          products: [{ id: merchant.productId, quantity: 1 }],
          customer_email: 'fields@example.com',
          ...fields,
        },
      });
    const storedCounts = async () => {
      const [orders, payments] = await Promise.all([
        database.db
          .selectFrom('orders')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('account_id', '=', merchant.accountId)
          .executeTakeFirstOrThrow(),
        database.db
          .selectFrom('payments')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('account_id', '=', merchant.accountId)
          .executeTakeFirstOrThrow(),
      ]);
      return [Number(orders.n), Number(payments.n)];
    };

    test('one card naming another plan than payment_plan_id is a 422 naming credit_card_0_payment_plan; the same plan is accepted', async () => {
      const before = await storedCounts();
      const differing = await pay100({
        payment_plan_id: `${cardPlanId}-1`,
        credit_card_0_token: await tokenA(pay.sandboxes),
        credit_card_0_payment_plan: `${cardPlanId}-2`,
      });
      assert.equal(differing.statusCode, 422, differing.body);
      assert.deepEqual(
        differing.json().details.map((detail: { field: string }) => detail.field),
        ['body/credit_card_0_payment_plan'],
      );
      assert.deepEqual(await storedCounts(), before);
      const same = await pay100({
        payment_plan_id: `${cardPlanId}-2`,
        credit_card_0_token: await tokenA(pay.sandboxes),
        credit_card_0_payment_plan: `${cardPlanId}-2`,
      });
      assert.equal(same.statusCode, 200, same.body);
      assert.equal(same.json().order_status, 'paid');
    });

    test('card fields sent with a pix plan are a 422 naming each of them, and no pix is issued', async () => {
      const before = await storedCounts();
      const res = await pay100({
        payment_plan_id: `${merchant.pixPlanId}-1`,
        credit_card_0_token: await tokenA(pay.sandboxes),
        credit_card_0_amount: 60,
        credit_card_0_payment_plan: `${cardPlanId}-1`,
        credit_card_1_token: await tokenA(pay.sandboxes),
        credit_card_1_amount: 40,
        credit_card_1_payment_plan: `${cardPlanId}-1`,
      });
      assert.equal(res.statusCode, 422, res.body);
      assert.deepEqual(
        res.json().details.map((detail: { field: string }) => detail.field),
        [
          'credit_card_0_token',
          'credit_card_0_payment_plan',
          'credit_card_0_amount',
          'credit_card_1_token',
          'credit_card_1_payment_plan',
          'credit_card_1_amount',
        ].map((name) => `body/${name}`),
      );
      assert.deepEqual(await storedCounts(), before);
    });

    test('a share its plan cannot take in that many installments names that card’s plan field', async () => {
      const res = await pay100({
        payment_plan_id: `${cardPlanId}-1`,
        credit_card_0_token: await tokenA(pay.sandboxes),
        credit_card_0_amount: 85,
        credit_card_0_payment_plan: `${cardPlanId}-1`,
        credit_card_1_token: await tokenA(pay.sandboxes),
        credit_card_1_amount: 15,
        credit_card_1_payment_plan: `${cardPlanId}-2`,
      });
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(res.json().details[0].field, 'body/credit_card_1_payment_plan');
      assert.match(res.json().message, /^credit_card_1_payment_plan: 2 installments are not available/);
    });
  });
}
