import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import type { Database } from '../../src/db/database.ts';
import type { Worker } from '../../src/jobs/worker.ts';
import { createEndpoint } from '../../src/modules/notifications/endpoints.service.ts';
import { applyPaymentAction } from '../../src/modules/payments/attempts/gateway-actions.ts';
import { createWorker } from '../../src/runtime.ts';
import { engines } from '../support/engines.ts';
import { createMerchant, ORIGIN, startPayApp, tokenA, type Merchant, type PayApp } from '../support/pay-fixtures.ts';
import { paidCardOrder } from '../payments/refunds/refund-fixtures.ts';
import { drainDeliveries, testClock, type TestClock } from './fixtures.ts';
import { Receiver, type Received } from './receiver.ts';
import { sandboxGatewayUrls } from '../../src/gateways/sandbox/server.ts';

type RefundData = {
  id: string;
  payment_id: number;
  amount: number;
  gateway_refund_id: string;
  type: string;
  refunded_at: string;
};
type Body = {
  id: string;
  type: string;
  created_at: string;
  data: {
    order: { uid: string; status: string; link: string; payments: Array<{ status: string }> };
    subscription?: { id: string; status: string };
    refund?: RefundData;
  };
};
const bodyOf = (request: Received) => JSON.parse(request.body) as Body;

for (const engine of engines()) {
  describe(`notifications from real payments on ${engine.name}`, { timeout: 180_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;
    let clock: TestClock;
    let worker: Worker;
    const receiver = new Receiver({ secrets: [], now: () => clock.now() });

    before(async () => {
      database = await engine.open();
      pay = await startPayApp(database);
      merchant = await createMerchant(database, pay.config);
      clock = testClock();
      const url = await receiver.start();
      receiver.options.secrets = [
        (await createEndpoint(database.db, pay.config.masterKey, { accountId: merchant.accountId, url }, new Date()))
          .secret,
      ];
      // The service's own worker, with every handler, on the test's clock.
      const gatewayUrls = sandboxGatewayUrls(pay.sandboxes);
      worker = createWorker(database, pino({ level: 'silent' }), {
        masterKey: pay.config.masterKey,
        gatewayUrls,
        clock: clock.now,
        notifications: { publicUrl: pay.config.publicUrl, allowPrivateNetworks: true },
      });
    });
    after(async () => {
      await receiver.close();
      await pay.close();
      await database.close();
    });

    const received = (from: number) => receiver.received.slice(from).map(bodyOf);
    const refund = (paymentId: number, payload?: Record<string, unknown>) =>
      pay.app.inject({
        method: 'POST',
        url: `/api/v1/payments/${paymentId}/refund`,
        headers: { authorization: `Bearer ${merchant.apiKey}` },
        ...(payload ? { payload } : {}),
      });

    test('a card payment through the gateway sandbox reaches the merchant as order.paid; refunds as order.partially_refunded then order.refunded', async () => {
      const paid = await paidCardOrder(pay, database, merchant);
      await drainDeliveries(database, worker, clock);
      const [orderPaid, ...rest] = received(0);
      assert.equal(rest.length, 0, JSON.stringify(rest.map((body) => body.type)));
      assert.equal(orderPaid!.type, 'order.paid');
      assert.equal(orderPaid!.data.order.uid, paid.orderUid);
      assert.equal(orderPaid!.data.order.status, 'paid');
      assert.deepEqual(
        orderPaid!.data.order.payments.map((payment) => payment.status),
        ['paid'],
      );
      assert.equal(orderPaid!.data.order.link, `${pay.config.publicUrl}/pay/${merchant.pageId}`);
      assert.deepEqual(receiver.received[0]!.verifiedBy, [0]);

      assert.equal((await refund(paid.paymentIds[0]!, { amount: 30 })).statusCode, 200);
      assert.equal((await refund(paid.paymentIds[0]!, { amount: 20, type: 'duplicate' })).statusCode, 200);
      assert.equal((await refund(paid.paymentIds[0]!)).statusCode, 200);
      await drainDeliveries(database, worker, clock);
      // Deliveries run in parallel, so arrival order is not guaranteed; created_at orders the events.
      const refunds = received(1).sort(
        (a, b) => a.created_at.localeCompare(b.created_at) || a.type.localeCompare(b.type),
      );
      assert.deepEqual(
        refunds.map((body) => [body.type, body.data.order.status]),
        [
          ['order.partially_refunded', 'partially_refunded'],
          ['refund.succeeded', 'partially_refunded'],
          // The second partial refund moves no order status: only its own event tells the merchant.
          ['refund.succeeded', 'partially_refunded'],
          ['order.refunded', 'refunded'],
          ['refund.succeeded', 'refunded'],
        ],
      );
      const refundBodies = refunds.filter((body) => body.type === 'refund.succeeded').map((body) => body.data.refund!);
      assert.deepEqual(
        refundBodies.map((item) => [item.amount, item.type, item.payment_id]),
        [
          [30, 'requested_by_customer', paid.paymentIds[0]],
          [20, 'duplicate', paid.paymentIds[0]],
          [50, 'requested_by_customer', paid.paymentIds[0]],
        ],
      );
      const rows = await database.db
        .selectFrom('refunds')
        .select(['uid', 'gateway_refund_id'])
        .where('payment_id', '=', paid.paymentIds[0]!)
        .orderBy('id')
        .execute();
      assert.deepEqual(
        refundBodies.map((item) => [item.id, item.gateway_refund_id]),
        rows.map((row) => [row.uid, row.gateway_refund_id]),
      );
      assert.ok(refunds.every((body) => body.data.order.uid === paid.orderUid));
      assert.ok(receiver.received.every((request) => request.verifiedBy.length === 1 && request.answered === 200));
      assert.equal(new Set(receiver.received.map((request) => request.eventId)).size, 6);
    });

    test('a refund the gateway reports by webhook (made on its dashboard) is a refund.succeeded too, once', async () => {
      const paid = await paidCardOrder(pay, database, merchant);
      await drainDeliveries(database, worker, clock);
      const start = receiver.received.length;
      const action = {
        kind: 'payment_refunded' as const,
        gatewayId: paid.gatewayIds[0]!,
        amountCents: 2_500,
        refundId: 're_dashboard_1',
      };
      assert.equal(
        (await applyPaymentAction(database.db, { gateway: 'gateway_a', action, at: new Date() })).applied,
        true,
      );
      assert.equal(
        (await applyPaymentAction(database.db, { gateway: 'gateway_a', action, at: new Date() })).applied,
        false,
        'a duplicate report',
      );
      await drainDeliveries(database, worker, clock);
      const types = received(start)
        .map((body) => body.type)
        .sort();
      assert.deepEqual(types, ['order.partially_refunded', 'refund.succeeded']);
      const event = received(start).find((body) => body.type === 'refund.succeeded')!;
      assert.deepEqual(
        {
          amount: event.data.refund!.amount,
          type: event.data.refund!.type,
          gatewayRefundId: event.data.refund!.gateway_refund_id,
        },
        { amount: 25, type: 'gateway', gatewayRefundId: 're_dashboard_1' },
      );
    });

    test('a subscription renewal charged by the worker is subscription.renewed; four failed renewals end in subscription.cancelled', async () => {
      const start = receiver.received.length;
      const res = await pay.app.inject({
        method: 'POST',
        url: '/api/v1/payments',
        headers: ORIGIN,
        payload: {
          checkout_page_id: merchant.pageId,
          products: [{ id: merchant.subscriptionProductId, quantity: 1 }],
          customer_email: 'club@example.com',
          payment_plan_id: `${merchant.cardPlanId}-1`,
          credit_card_0_token: await tokenA(pay.sandboxes),
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      const subscription = () =>
        database.db
          .selectFrom('subscriptions')
          .selectAll()
          .where('account_id', '=', merchant.accountId)
          .executeTakeFirstOrThrow();
      const renewAt = async () => clock.set(new Date((await subscription()).next_charge_at!.getTime() + 1000));

      await renewAt();
      await drainDeliveries(database, worker, clock);
      const renewed = received(start).filter((body) => body.type === 'subscription.renewed');
      assert.equal(renewed.length, 1);
      assert.equal(renewed[0]!.data.subscription!.id, (await subscription()).id);
      assert.equal(renewed[0]!.data.subscription!.status, 'active');
      assert.equal(renewed[0]!.data.order.status, 'paid', 'the renewal order');

      await database.db
        .updateTable('saved_payment_methods')
        .set({ revoked_at: new Date() })
        .where('account_id', '=', merchant.accountId)
        .execute();
      for (let attempt = 0; attempt < 4; attempt++) {
        await renewAt();
        await drainDeliveries(database, worker, clock);
      }
      const types = received(start).map((body) => body.type);
      assert.deepEqual(types.filter((type) => type === 'payment.failed').length, 4);
      const cancelled = received(start).filter((body) => body.type === 'subscription.cancelled');
      assert.equal(cancelled.length, 1);
      assert.equal(cancelled[0]!.data.subscription!.status, 'cancelled');
      assert.equal((await subscription()).status, 'cancelled');
    });
  });
}
