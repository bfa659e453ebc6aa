import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../../src/db/database.ts';
import { paymentJobHandlers } from '../../../src/modules/payments/payments.jobs.ts';
import type { Job } from '../../../src/queue/job-handler.ts';
import { engines } from '../../support/engines.ts';
import {
  insertPage,
  insertProduct,
  ORIGIN,
  tokenA,
  type Merchant,
  type PayApp,
  usePayMerchant,
} from '../../support/pay-fixtures.ts';

/**
 * What a subscription charges and when it stops: only its own products, at the price paid, every period;
 * a failed renewal's order is closed; a refunded order's subscription ends.
 */
for (const engine of engines()) {
  describe(`subscription terms on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;

    usePayMerchant(engine, (setup) => ({ database, pay, merchant } = setup));

    const post = (payload: Record<string, unknown>) =>
      pay.app.inject({ method: 'POST', url: '/api/v1/payments', headers: ORIGIN, payload });
    const renew = (now: Date, subscriptionId: string) => {
      const handlers = paymentJobHandlers({
        masterKey: pay.config.masterKey,
        gatewayUrls: { gateway_a: pay.sandboxes.baseUrlFor('gateway_a') },
        clock: () => now,
      });
      const job: Job = {
        id: 0,
        type: 'subscriptions.renew',
        payload: { account_id: merchant.accountId, subscription_id: subscriptionId },
        accountId: merchant.accountId,
        attempts: 1,
      };
      return handlers['subscriptions.renew']!(job, { database });
    };
    const subscriptionOf = async (gatewayId: string) => {
      const { order_id: orderId } = await database.db
        .selectFrom('payments')
        .select('order_id')
        .where('gateway_id', '=', gatewayId)
        .executeTakeFirstOrThrow();
      return database.db
        .selectFrom('subscriptions')
        .selectAll()
        .where('origin_order_id', '=', orderId)
        .executeTakeFirstOrThrow();
    };
    const renewalsOf = (originOrderId: number) =>
      database.db
        .selectFrom('orders as o')
        .innerJoin('payments as p', 'p.order_id', 'o.id')
        .select([
          'o.status',
          'o.total_cents',
          'o.subtotal_cents',
          'o.discount_cents',
          'p.amount_cents',
          'p.installments',
        ])
        .where('o.parent_order_id', '=', originOrderId)
        .where('o.source', '=', 'subscription')
        .orderBy('o.id')
        .execute();

    test('an order of a course and a monthly club, in 3 installments with interest: each period charges the club alone, once', async () => {
      const res = await post({
        checkout_page_id: merchant.pageId,
        products: [
          { id: merchant.productId, quantity: 1 },
          { id: merchant.subscriptionProductId, quantity: 1 },
        ],
        customer_email: 'mixed@example.com',
        payment_plan_id: `${merchant.cardPlanId}-3`,
        credit_card_0_token: await tokenA(pay.sandboxes),
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().is_subscription, true);
      const sub = await subscriptionOf(res.json().payments[0]);
      assert.equal(sub.amount_cents, 4_990);
      await renew(new Date(sub.next_charge_at!.getTime() + 1000), sub.id);
      assert.deepEqual(await renewalsOf(sub.origin_order_id), [
        {
          status: 'paid',
          total_cents: 4_990,
          subtotal_cents: 4_990,
          discount_cents: 0,
          amount_cents: 4_990,
          installments: 1,
        },
      ]);
    });

    test('a renewal the card declines leaves its order cancelled, not pending; the next attempt makes its own order', async () => {
      const res = await post({
        checkout_page_id: merchant.pageId,
        products: [{ id: merchant.subscriptionProductId, quantity: 1 }],
        customer_email: 'declined-renewal@example.com',
        payment_plan_id: `${merchant.cardPlanId}-1`,
        credit_card_0_token: await tokenA(pay.sandboxes),
      });
      assert.equal(res.statusCode, 200, res.body);
      const sub = await subscriptionOf(res.json().payments[0]);
      await database.db
        .updateTable('saved_payment_methods')
        .set({ revoked_at: new Date() })
        .where('id', '=', sub.saved_payment_method_id!)
        .execute();
      const due = new Date(sub.next_charge_at!.getTime() + 1000);
      await renew(due, sub.id);
      const retry = await database.db
        .selectFrom('subscriptions')
        .select('next_charge_at')
        .where('id', '=', sub.id)
        .executeTakeFirstOrThrow();
      await renew(new Date(retry.next_charge_at!.getTime() + 1000), sub.id);
      assert.equal(
        (
          await database.db
            .selectFrom('subscriptions')
            .select('failed_attempts')
            .where('id', '=', sub.id)
            .executeTakeFirstOrThrow()
        ).failed_attempts,
        2,
      );
      assert.deepEqual(
        (await renewalsOf(sub.origin_order_id)).map((renewal) => renewal.status),
        ['cancelled', 'cancelled'],
      );
    });

    test('a subscription ends when its order is refunded in full: no later period is charged', async () => {
      const res = await post({
        checkout_page_id: merchant.pageId,
        products: [{ id: merchant.subscriptionProductId, quantity: 1 }],
        customer_email: 'refunded-sub@example.com',
        payment_plan_id: `${merchant.cardPlanId}-1`,
        credit_card_0_token: await tokenA(pay.sandboxes),
      });
      const sub = await subscriptionOf(res.json().payments[0]);
      const payment = await database.db
        .selectFrom('payments')
        .select('id')
        .where('gateway_id', '=', res.json().payments[0])
        .executeTakeFirstOrThrow();
      const refund = await pay.app.inject({
        method: 'POST',
        url: `/api/v1/payments/${payment.id}/refund`,
        headers: { authorization: `Bearer ${merchant.apiKey}` },
      });
      assert.equal(refund.statusCode, 200, refund.body);
      const ended = await database.db
        .selectFrom('subscriptions')
        .select(['status', 'next_charge_at'])
        .where('id', '=', sub.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(ended, { status: 'cancelled', next_charge_at: null });
      await renew(new Date(sub.next_charge_at!.getTime() + 1000), sub.id);
      assert.deepEqual(await renewalsOf(sub.origin_order_id), []);
    });

    test('subscription products with different intervals in one order: 422, nothing stored or charged', async () => {
      const yearly = await insertProduct(database.db, merchant, 39_900, {
        subscription: true,
        interval: 'year',
        name: 'Clube anual',
      });
      const page = await insertPage(database.db, merchant, {
        products: [merchant.subscriptionProductId, yearly],
        plans: [merchant.cardPlanId],
      });
      const ordersBefore = await database.db
        .selectFrom('orders')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .executeTakeFirstOrThrow();
      const res = await post({
        checkout_page_id: page,
        products: [
          { id: merchant.subscriptionProductId, quantity: 1 },
          { id: yearly, quantity: 1 },
        ],
        customer_email: 'two-periods@example.com',
        payment_plan_id: `${merchant.cardPlanId}-1`,
        credit_card_0_token: await tokenA(pay.sandboxes),
      });
      assert.equal(res.statusCode, 422, res.body);
      assert.match(res.json().message, /different intervals/);
      const ordersAfter = await database.db
        .selectFrom('orders')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .executeTakeFirstOrThrow();
      assert.equal(Number(ordersAfter.count), Number(ordersBefore.count));
    });
  });
}
