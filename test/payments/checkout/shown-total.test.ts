import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../../src/db/database.ts';
import { engines } from '../../support/engines.ts';
import {
  insertChargeDue,
  insertOverdueTermsPlan,
  ORIGIN,
  paymentsOfOrderUid,
  tokenA,
  type Merchant,
  type PayApp,
  usePayMerchant,
} from '../../support/pay-fixtures.ts';

const DAY = 86_400_000;

type Option = { id: string; number: number; value: number };

/**
 * `expected_total` (an extension of the pay bodies): the total the page showed is the total charged, or nothing
 * is. An overdue charge's late interest grows at the company's midnight, so a page quoted the day before and paid
 * after it names a total the service no longer charges.
 */
for (const engine of engines()) {
  describe(`the total the buyer was shown is the total charged on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;
    let termsPlanId: number;

    usePayMerchant(engine, async (setup) => {
      ({ database, pay, merchant } = setup);
      termsPlanId = await insertOverdueTermsPlan(database, merchant);
    });

    /** A R$ 100,00 charge ten days past due in the company's zone, under the plan with fine and late interest. */
    const overdueCharge = () => insertChargeDue(database, merchant, termsPlanId, -10);
    /** The option a page would show, and its total in cents (value × number, as the page adds it up). */
    const quoted = async (uid: string, method: 'pix' | 'credit_card', installments: number) => {
      const res = await pay.app.inject({ url: `/api/v1/payment_plans?charge_id=${uid}`, headers: ORIGIN });
      assert.equal(res.statusCode, 200, res.body);
      const option = (res.json()[method] as Option[]).find((each) => each.number === installments)!;
      return { id: option.id, totalCents: Math.round(option.value * 100) * option.number };
    };
    const payCharge = (uid: string, payload: Record<string, unknown>) =>
      pay.app.inject({ method: 'POST', url: `/api/v1/charges/${uid}/pay`, headers: ORIGIN, payload });

    test('a Pix quoted before midnight and paid after it: 409 naming expected_total, nothing recorded; the new total is charged', async () => {
      const charge = await overdueCharge();
      const before = await quoted(charge.uid, 'pix', 1);
      pay.setNow(new Date(Date.now() + DAY));
      try {
        const refused = await payCharge(charge.uid, {
          payment_plan_id: before.id,
          expected_total: before.totalCents / 100,
        });
        assert.equal(refused.statusCode, 409, refused.body);
        assert.equal(refused.json().code, 'conflict');
        assert.deepEqual(
          refused.json().details.map((detail: { field: string }) => detail.field),
          ['body/expected_total'],
        );
        assert.deepEqual(await paymentsOfOrderUid(database, charge.uid), [], 'no payment recorded');
        const order = await database.db
          .selectFrom('orders')
          .select('status')
          .where('uid', '=', charge.uid)
          .executeTakeFirstOrThrow();
        assert.equal(order.status, 'pending');

        const after = await quoted(charge.uid, 'pix', 1);
        assert.ok(after.totalCents > before.totalCents, `a day more of late interest: ${JSON.stringify(after)}`);
        const paid = await payCharge(charge.uid, { payment_plan_id: after.id, expected_total: after.totalCents / 100 });
        assert.equal(paid.statusCode, 200, paid.body);
        const [payment] = await paymentsOfOrderUid(database, charge.uid);
        assert.equal(payment!.amount_cents, after.totalCents);
      } finally {
        pay.setNow(undefined);
      }
    });

    test('a card in 3 installments: the shown total is charged; any other total is refused before the gateway', async () => {
      const charge = await overdueCharge();
      const option = await quoted(charge.uid, 'credit_card', 3);
      const card = async (totalCents: number) =>
        payCharge(charge.uid, {
          payment_plan_id: option.id,
          credit_card_0_token: await tokenA(pay.sandboxes),
          expected_total: totalCents / 100,
        });
      const refused = await card(option.totalCents - 1);
      assert.equal(refused.statusCode, 409, refused.body);
      assert.deepEqual(await paymentsOfOrderUid(database, charge.uid), []);
      const paid = await card(option.totalCents);
      assert.equal(paid.statusCode, 200, paid.body);
      assert.equal(paid.json().status, 'paid');
      const [payment] = await paymentsOfOrderUid(database, charge.uid);
      assert.deepEqual([payment!.amount_cents, payment!.installments], [option.totalCents, 3]);
    });

    test('more than two decimals in expected_total is a 422 naming it', async () => {
      const charge = await overdueCharge();
      const option = await quoted(charge.uid, 'pix', 1);
      const res = await payCharge(charge.uid, { payment_plan_id: option.id, expected_total: 102.831 });
      assert.equal(res.statusCode, 422, res.body);
      assert.match(res.body, /expected_total/);
      assert.deepEqual(await paymentsOfOrderUid(database, charge.uid), []);
    });
  });
}
