import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../../src/db/database.ts';
import { engines } from '../../support/engines.ts';
import {
  insertChargeDue,
  insertOverdueTermsPlan,
  ORIGIN,
  payChargeWithTwoCards,
  paymentsOfOrderUid,
  tokenA,
  type Merchant,
  type PayApp,
  usePayMerchant,
} from '../../support/pay-fixtures.ts';

for (const engine of engines()) {
  describe(`LastPayment.interest is the late interest alone on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;
    let termsPlanId: number;

    usePayMerchant(engine, async (setup) => {
      ({ database, pay, merchant } = setup);
      // The charge's own plan: a 2% fine, and late interest of 1% a month plus R$ 0,50 once.
      termsPlanId = await insertOverdueTermsPlan(database, merchant);
    });

    /** A R$ 100,00 charge due `days` from today, billed under the plan with fine and late interest. */
    const chargeDue = (days: number) => insertChargeDue(database, merchant, termsPlanId, days);
    const payByCard = async (uid: string, installments: number) => {
      const res = await pay.app.inject({
        method: 'POST',
        url: `/api/v1/charges/${uid}/pay`,
        headers: ORIGIN,
        payload: {
          payment_plan_id: `${merchant.cardPlanId}-${installments}`,
          credit_card_0_token: await tokenA(pay.sandboxes),
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().status, 'paid');
    };
    const lastPayment = async (uid: string) => {
      const res = await pay.app.inject({ url: `/api/v1/charges/${uid}/last_payment`, headers: ORIGIN });
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    };

    test('paid in advance in 3 installments: the card interest is in the amount, interest is 0', async () => {
      const charge = await chargeDue(7);
      await payByCard(charge.uid, 3);
      const [payment] = await paymentsOfOrderUid(database, charge.uid);
      assert.ok(payment!.interest_cents > 0, 'the card interest is recorded');
      const last = await lastPayment(charge.uid);
      assert.equal(last.amount, payment!.amount_cents / 100);
      assert.equal(last.interest, 0);
    });

    test('paid on the due date: interest is 0', async () => {
      const charge = await chargeDue(0);
      await payByCard(charge.uid, 1);
      assert.equal((await lastPayment(charge.uid)).interest, 0);
    });

    test('ten days late by pix: the fine is in the amount but not in interest', async () => {
      const charge = await chargeDue(-10);
      const res = await pay.app.inject({
        method: 'POST',
        url: `/api/v1/charges/${charge.uid}/pay`,
        headers: ORIGIN,
        payload: { payment_plan_id: `${merchant.pixPlanId}-1` },
      });
      assert.equal(res.statusCode, 200, res.body);
      // fine 10 000 × 2% = 200; late interest 10 000 × 1% / 30 × 10 = 33,3 → 33, plus 50 once = 83.
      const [payment] = await paymentsOfOrderUid(database, charge.uid);
      assert.deepEqual(
        [payment!.amount_cents, payment!.interest_cents, payment!.late_interest_cents],
        [10_283, 283, 83],
      );
      const last = await lastPayment(charge.uid);
      assert.deepEqual([last.amount, last.interest, last.status], [102.83, 0.83, 'waiting_payment']);
    });

    test('ten days late by card in 3 installments: neither the fine nor the card interest is in interest', async () => {
      const charge = await chargeDue(-10);
      await payByCard(charge.uid, 3);
      const [payment] = await paymentsOfOrderUid(database, charge.uid);
      assert.ok(payment!.interest_cents > 283, 'card interest on top of the fine and late interest');
      assert.equal(payment!.late_interest_cents, 83);
      assert.equal((await lastPayment(charge.uid)).interest, 0.83);
    });

    test('ten days late, split over two cards: the attempt is both cards, its interest the one recorded on card 0', async () => {
      const charge = await chargeDue(-10);
      await database.db
        .updateTable('checkout_pages')
        .set({ enable_two_cards: true })
        .where('id', '=', merchant.pageId)
        .execute();
      await database.db
        .updateTable('orders')
        .set({ checkout_page_id: merchant.pageId })
        .where('id', '=', charge.id)
        .execute();
      const res = await payChargeWithTwoCards(pay, merchant, charge.uid, [60, 42.83]);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().status, 'paid');
      const cards = await paymentsOfOrderUid(database, charge.uid);
      assert.deepEqual(
        cards.map((card) => [card.card_index, card.amount_cents, card.late_interest_cents]),
        [
          [0, 6_000, 83],
          [1, 4_283, 0],
        ],
      );
      const last = await lastPayment(charge.uid);
      assert.deepEqual(
        [last.gateway_id, last.amount, last.interest, last.status],
        [cards[0]!.gateway_id, 102.83, 0.83, 'paid'],
      );
      assert.ok(last.paid_at);
    });
  });
}
