import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { documentedJson } from '../support/documented-response.ts';
import { engines } from '../support/engines.ts';
import {
  CARDS,
  insertCharge,
  insertPage,
  ORIGIN,
  tokenA,
  type Merchant,
  type PayApp,
  usePayMerchant,
} from '../support/pay-fixtures.ts';

for (const engine of engines()) {
  describe(`two cards on charges on ${engine.name}`, { timeout: 180_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;

    usePayMerchant(engine, (setup) => ({ database, pay, merchant } = setup));

    const show = async (uid: string) =>
      documentedJson(pay.app, await pay.app.inject({ url: `/api/v1/charges/${uid}`, headers: ORIGIN }));
    const paySplit = async (uid: string) =>
      pay.app.inject({
        method: 'POST',
        url: `/api/v1/charges/${uid}/pay`,
        headers: ORIGIN,
        payload: {
          payment_plan_id: `${merchant.cardPlanId}-1`,
          credit_card_0_token: await tokenA(pay.sandboxes, CARDS.approved),
          credit_card_0_amount: 60,
          credit_card_0_payment_plan: `${merchant.cardPlanId}-1`,
          credit_card_1_token: await tokenA(pay.sandboxes, CARDS.approved),
          credit_card_1_amount: 40,
          credit_card_1_payment_plan: `${merchant.cardPlanId}-1`,
        },
      });
    const offerTwoCards = (enabled: boolean) =>
      database.db
        .updateTable('companies')
        .set({ enable_two_cards: enabled })
        .where('id', '=', merchant.companyId)
        .execute();

    test('a company that does not offer two cards: the charge shows false and a split is refused', async () => {
      await offerTwoCards(false);
      const charge = await insertCharge(database, merchant);
      assert.equal((await show(charge.uid)).enable_two_cards, false);
      const res = await paySplit(charge.uid);
      assert.equal(res.statusCode, 422, res.body);
      assert.ok(res.json().details.some((d: { field: string }) => d.field === 'body/credit_card_1_token'));
    });

    test('a company that offers two cards on its charges: the charge shows true and a split pays it', async () => {
      await offerTwoCards(true);
      const charge = await insertCharge(database, merchant);
      assert.equal((await show(charge.uid)).enable_two_cards, true);
      const res = await paySplit(charge.uid);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().status, 'paid');
      const payments = await database.db
        .selectFrom('payments')
        .select(['card_index', 'amount_cents', 'status'])
        .where('order_id', '=', charge.id)
        .orderBy('card_index')
        .execute();
      assert.deepEqual(
        payments.map((p) => [p.card_index, p.amount_cents, p.status]),
        [
          [0, 6_000, 'paid'],
          [1, 4_000, 'paid'],
        ],
      );
    });

    test('a charge made from a page that enables two cards keeps them, whatever the company offers', async () => {
      await offerTwoCards(false);
      const page = await insertPage(database.db, merchant, {
        products: [merchant.productId],
        plans: [merchant.cardPlanId],
        enableTwoCards: true,
      });
      const charge = await insertCharge(database, merchant);
      await database.db.updateTable('orders').set({ checkout_page_id: page }).where('id', '=', charge.id).execute();
      assert.equal((await show(charge.uid)).enable_two_cards, true);
      const res = await paySplit(charge.uid);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().status, 'paid');
    });
  });
}
