import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../../src/db/database.ts';
import { bearer } from '../../support/app.ts';
import { engines } from '../../support/engines.ts';
import {
  CARDS,
  insertCharge,
  ORIGIN,
  paymentsOfOrderUid,
  type Merchant,
  type PayApp,
  tokenA,
  usePayMerchant,
} from '../../support/pay-fixtures.ts';

for (const engine of engines()) {
  describe(`a charge attempt keeps its observation and meta on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;

    usePayMerchant(engine, (setup) => ({ database, pay, merchant } = setup));

    const payCharge = async (uid: string, payload: Record<string, unknown>) => {
      const res = await pay.app.inject({ method: 'POST', url: `/api/v1/charges/${uid}/pay`, headers: ORIGIN, payload });
      assert.equal(res.statusCode, 200, res.body);
    };
    const orderData = async (id: number) => {
      const res = await pay.app.inject({ url: `/api/v1/orders/${id}`, headers: bearer(merchant.apiKey) });
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    };
    const createdEvents = (orderId: number) =>
      database.db
        .selectFrom('order_events')
        .select(['payment_id', 'data'])
        .where('order_id', '=', orderId)
        .where('type', '=', 'payment.created')
        .orderBy('id')
        .execute();

    test('stored on the payment, in its payment.created event and on the OrderData payment; the order keeps its own', async () => {
      const charge = await insertCharge(database, merchant);
      await database.db
        .updateTable('orders')
        .set({ observation: 'merchant note', meta: JSON.stringify({ a: '1' }) })
        .where('id', '=', charge.id)
        .execute();
      const meta = { attempt: 'x1', nested: { n: 2 } };
      await payCharge(charge.uid, {
        payment_plan_id: `${merchant.boletoPlanId}-1`,
        observation: 'buyer note on this attempt',
        meta,
      });

      const [payment] = await paymentsOfOrderUid(database, charge.uid);
      assert.deepEqual([payment!.observation, payment!.meta], ['buyer note on this attempt', meta]);
      const [event] = await createdEvents(charge.id);
      assert.equal(event!.payment_id, payment!.id);
      assert.deepEqual(event!.data, {
        amount_cents: 10_000,
        method: 'bank_slip',
        gateway: 'gateway_a',
        observation: 'buyer note on this attempt',
        meta,
      });

      const order = await orderData(charge.id);
      assert.deepEqual([order.observation, order.meta], ['merchant note', { a: '1' }]);
      assert.equal(order.payments.length, 1);
      assert.deepEqual([order.payments[0].observation, order.payments[0].meta], ['buyer note on this attempt', meta]);
    });

    test('each attempt keeps its own; an attempt that sends none shows none', async () => {
      const charge = await insertCharge(database, merchant);
      // Declined cards leave the charge payable, so the attempts follow one another.
      const declinedCard = async () => ({
        payment_plan_id: `${merchant.cardPlanId}-1`,
        credit_card_0_token: await tokenA(pay.sandboxes, CARDS.declined),
      });
      await payCharge(charge.uid, { ...(await declinedCard()), observation: 'first try' });
      await payCharge(charge.uid, { ...(await declinedCard()), meta: { try: 2 } });
      await payCharge(charge.uid, { payment_plan_id: `${merchant.pixPlanId}-1` });
      const rows = await paymentsOfOrderUid(database, charge.uid);
      assert.deepEqual(
        rows.map((row) => [row.observation, row.meta]),
        [
          ['first try', null],
          [null, { try: 2 }],
          [null, null],
        ],
      );
      const events = await createdEvents(charge.id);
      assert.deepEqual(
        events.map((event) => Object.keys(event.data as object).sort()),
        [
          ['amount_cents', 'gateway', 'method', 'observation'],
          ['amount_cents', 'gateway', 'meta', 'method'],
          ['amount_cents', 'gateway', 'method'],
        ],
      );
      const payments = (await orderData(charge.id)).payments as Array<Record<string, unknown>>;
      assert.deepEqual(
        payments.map((item) => [item.observation, item.meta]),
        [
          ['first try', undefined],
          [undefined, { try: 2 }],
          [undefined, undefined],
        ],
      );
      assert.equal('observation' in payments[2]! || 'meta' in payments[2]!, false);
    });

    test('meta the database cannot store (a lone surrogate) is a 422 and the attempt is not recorded', async () => {
      const charge = await insertCharge(database, merchant);
      const res = await pay.app.inject({
        method: 'POST',
        url: `/api/v1/charges/${charge.uid}/pay`,
        headers: { ...ORIGIN, 'content-type': 'application/json' },
        payload: `{"payment_plan_id":"${merchant.pixPlanId}-1","meta":{"k":"\\ud800"}}`,
      });
      assert.equal(res.statusCode, 422, res.body);
      assert.deepEqual(await paymentsOfOrderUid(database, charge.uid), []);
    });

    test('a checkout payment keeps them on its new order, not on the payment', async () => {
      const res = await pay.app.inject({
        method: 'POST',
        url: '/api/v1/payments',
        headers: ORIGIN,
        payload: {
          checkout_page_id: merchant.pageId,
          products: [{ id: merchant.productId, quantity: 1 }],
          customer_email: 'notes@example.com',
          payment_plan_id: `${merchant.pixPlanId}-1`,
          observation: 'order note',
          meta: { k: 'v' },
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      const order = await database.db
        .selectFrom('orders')
        .select(['id', 'uid', 'observation', 'meta'])
        .where(
          'id',
          '=',
          (
            await database.db
              .selectFrom('payments')
              .select('order_id')
              .where('gateway_id', '=', res.json().payments[0])
              .executeTakeFirstOrThrow()
          ).order_id,
        )
        .executeTakeFirstOrThrow();
      assert.deepEqual([order.observation, order.meta], ['order note', { k: 'v' }]);
      const [payment] = await paymentsOfOrderUid(database, order.uid);
      assert.deepEqual([payment!.observation, payment!.meta], [null, null]);
    });
  });
}
