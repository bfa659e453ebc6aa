import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../../src/db/database.ts';
import { paymentJobHandlers } from '../../../src/modules/payments/payments.jobs.ts';
import {
  PAYMENT_STATUSES,
  PAYMENT_TRANSITIONS,
  paymentSourcesOf,
  transitionPayment,
} from '../../../src/modules/payments/settlement/payment-status.ts';
import { engines } from '../../support/engines.ts';
import { CARDS, ORIGIN, tokenA, type Merchant, type PayApp, usePayMerchant } from '../../support/pay-fixtures.ts';
import { insertCoupon } from '../../support/pricing-fixtures.ts';

describe('the payment transition table', () => {
  test('money only moves forward: nothing returns to pending or waiting_payment, and the final states are final', () => {
    for (const from of PAYMENT_STATUSES) {
      assert.equal(PAYMENT_TRANSITIONS[from].includes('pending'), false);
      if (from !== 'pending') assert.equal(PAYMENT_TRANSITIONS[from].includes('waiting_payment'), false, from);
    }
    for (const final of ['failed', 'cancelled', 'refunded', 'charged_back'] as const)
      assert.deepEqual(PAYMENT_TRANSITIONS[final], []);
    assert.deepEqual(paymentSourcesOf('paid'), ['pending', 'waiting_payment']);
  });
});

for (const engine of engines()) {
  describe(`transitionPayment, coupon release and reconciliation on ${engine.name}`, { timeout: 60_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;

    usePayMerchant(engine, (setup) => ({ database, pay, merchant } = setup));

    const post = (payload: Record<string, unknown>) =>
      pay.app.inject({ method: 'POST', url: '/api/v1/payments', headers: ORIGIN, payload });
    const base = { checkout_page_id: '', products: [] as unknown[], customer_email: 'st@example.com' };

    test('a refused transition changes nothing and writes no event; an allowed one writes one with its cause', async () => {
      const res = await post({
        ...base,
        checkout_page_id: merchant.pageId,
        products: [{ id: merchant.productId, quantity: 1 }],
        payment_plan_id: `${merchant.pixPlanId}-1`,
      });
      const payment = await database.db
        .selectFrom('payments')
        .select(['id', 'order_id'])
        .where('gateway_id', '=', res.json().payments[0])
        .executeTakeFirstOrThrow();
      const count = async () =>
        (await database.db.selectFrom('order_events').select('id').where('order_id', '=', payment.order_id).execute())
          .length;
      const before = await count();
      const refused = await database.db.transaction().execute((trx) =>
        transitionPayment(trx, {
          accountId: merchant.accountId,
          paymentId: payment.id,
          to: 'refunded',
          cause: 'test',
          at: new Date(),
        }),
      );
      assert.deepEqual(refused, { changed: false });
      assert.equal(await count(), before);
      const moved = await database.db.transaction().execute((trx) =>
        transitionPayment(trx, {
          accountId: merchant.accountId,
          paymentId: payment.id,
          to: 'paid',
          cause: 'test: confirmed',
          at: new Date(),
        }),
      );
      assert.equal(moved.changed, true);
      const last = await database.db
        .selectFrom('order_events')
        .select(['payment_id', 'cause', 'from_status', 'to_status'])
        .where('order_id', '=', payment.order_id)
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      assert.deepEqual(last, {
        payment_id: payment.id,
        cause: 'test: confirmed',
        from_status: 'waiting_payment',
        to_status: 'paid',
      });
      const foreign = await database.db.transaction().execute((trx) =>
        transitionPayment(trx, {
          accountId: crypto.randomUUID(),
          paymentId: payment.id,
          to: 'refunded',
          cause: 'x',
          at: new Date(),
        }),
      );
      assert.deepEqual(foreign, { changed: false });
    });

    test('a declined card gives its claimed coupon use back', async () => {
      const couponId = await insertCoupon(database.db, merchant, { code: 'ONCE', percentage: 10, usageLimit: 1 });
      const declined = await post({
        ...base,
        checkout_page_id: merchant.pageId,
        products: [{ id: merchant.productId, quantity: 1 }],
        payment_plan_id: `${merchant.cardPlanId}-1`,
        coupon: 'ONCE',
        credit_card_0_token: await tokenA(pay.sandboxes, CARDS.declined),
      });
      assert.equal(declined.statusCode, 422);
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
      const paid = await post({
        ...base,
        checkout_page_id: merchant.pageId,
        products: [{ id: merchant.productId, quantity: 1 }],
        payment_plan_id: `${merchant.cardPlanId}-1`,
        coupon: 'ONCE',
        credit_card_0_token: await tokenA(pay.sandboxes),
      });
      assert.equal(paid.statusCode, 200, paid.body);
      assert.equal(
        (
          await database.db
            .selectFrom('coupons')
            .select('used_count')
            .where('id', '=', couponId)
            .executeTakeFirstOrThrow()
        ).used_count,
        1,
      );
      const exhausted = await post({
        ...base,
        checkout_page_id: merchant.pageId,
        products: [{ id: merchant.productId, quantity: 1 }],
        payment_plan_id: `${merchant.pixPlanId}-1`,
        coupon: 'ONCE',
      });
      assert.equal(exhausted.statusCode, 422);
      assert.equal(exhausted.json().message, 'Coupon has reached its usage limit');
    });

    test('payments.reconcile: a payment whose charge call got a 5xx and that the gateway does not know is failed and its order freed', async () => {
      const res = await post({
        ...base,
        checkout_page_id: merchant.pageId,
        products: [{ id: merchant.productId, quantity: 1 }],
        payment_plan_id: `${merchant.cardPlanId}-1`,
        credit_card_0_token: await tokenA(pay.sandboxes, CARDS.gatewayError),
      });
      assert.equal(res.statusCode, 502);
      const payment = await database.db
        .selectFrom('payments')
        .select(['id', 'order_id'])
        .where('status', '=', 'pending')
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      const handlers = paymentJobHandlers({
        masterKey: pay.config.masterKey,
        gatewayUrls: { gateway_a: pay.sandboxes.baseUrlFor('gateway_a') },
        clock: () => new Date(),
      });
      await handlers['payments.reconcile']!(
        {
          id: 0,
          type: 'payments.reconcile',
          payload: { account_id: merchant.accountId, payment_id: payment.id },
          accountId: merchant.accountId,
          attempts: 1,
        },
        { database },
      );
      const row = await database.db
        .selectFrom('payments')
        .select(['status', 'failure_code'])
        .where('id', '=', payment.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, { status: 'failed', failure_code: 'gateway_unavailable' });
    });
  });
}
