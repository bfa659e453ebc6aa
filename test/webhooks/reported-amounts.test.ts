import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { signatureHeader } from '../../src/gateways/gateway-b/index.ts';
import { applyPaymentAction } from '../../src/modules/payments/attempts/gateway-actions.ts';
import { reserveRefund } from '../../src/modules/payments/refunds/refunds.repo.ts';
import { engines } from '../support/engines.ts';
import { insertPage, ORIGIN } from '../support/pay-fixtures.ts';
import { basic, runWebhookJobs, startWebhookApp, type WebhookApp } from '../support/webhooks-fixtures.ts';

/**
 * The amount a paid or refund event reports is checked against the payment: an underpayment pays nothing,
 * a refund beyond what remains refundable is not recorded; both leave a mismatch event on the order.
 */
for (const engine of engines()) {
  describe(`reported amounts of paid and refund events on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let hooks: WebhookApp;
    let pageB: string;

    before(async () => {
      database = await engine.open();
      hooks = await startWebhookApp(database);
      pageB = await insertPage(database.db, hooks.merchant, {
        gateway: 'gateway_b',
        products: [hooks.merchant.productId],
        plans: [hooks.merchant.pixPlanId],
      });
      // An endpoint wanting refunds, so a refund recorded wrongly would also show as a notification.
      const endpoint = await hooks.app.inject({
        method: 'POST',
        url: '/api/v1/notification_endpoints',
        headers: { authorization: `Bearer ${hooks.merchant.apiKey}` },
        payload: { url: 'https://erp.example.com/hooks', event_types: ['refund.succeeded'] },
      });
      assert.equal(endpoint.statusCode, 201, endpoint.body);
    });
    after(async () => {
      await hooks.close();
      await database.close();
    });

    const companyId = () => hooks.merchant.companyId;
    /** A 10000-cent pix; its gateway id. */
    const pix = async (pageId = hooks.merchant.pageId) => {
      const res = await hooks.app.inject({
        method: 'POST',
        url: '/api/v1/payments',
        headers: ORIGIN,
        payload: {
          checkout_page_id: pageId,
          products: [{ id: hooks.merchant.productId, quantity: 1 }],
          customer_email: 'amounts@example.com',
          payment_plan_id: `${hooks.merchant.pixPlanId}-1`,
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().payments[0] as string;
    };
    const deliver = async (url: string, headers: Record<string, string>, body: unknown) => {
      const res = await hooks.app.inject({
        method: 'POST',
        url: `/api/v1/webhooks${url}`,
        headers: { 'content-type': 'application/json', ...headers },
        payload: JSON.stringify(body),
      });
      assert.equal(res.statusCode, 200, res.body);
    };
    const bank = (type: string, data: Record<string, unknown>) => {
      const id = `bank-${randomUUID()}`;
      return deliver(`/${companyId()}/bank`, basic(hooks.credentials.bank.username, hooks.credentials.bank.password), {
        id,
        type,
        data,
      }).then(() => id);
    };
    const bankPaid = (gatewayId: string, amount: number) =>
      bank('pix.received', { gateway_id: gatewayId, amount, paid_at: new Date().toISOString() });
    const bankRefund = (gatewayId: string, amount: number, refundId = `rf-${randomUUID()}`) =>
      bank('pix.refunded', { gateway_id: gatewayId, amount, refund_id: refundId });
    const gatewayAPaid = async (gatewayId: string, paidAmount: number) => {
      const id = `evt-${randomUUID()}`;
      await deliver('', basic(hooks.credentials.gatewayA.username, hooks.credentials.gatewayA.password), {
        id,
        type: 'charge.paid',
        data: {
          id: gatewayId,
          amount: 10_000,
          paid_amount: paidAmount,
          status: 'paid',
          metadata: { company_id: companyId() },
        },
      });
      return id;
    };
    const gatewayBPaid = async (gatewayId: string, received: number) => {
      const id = `evt_${randomUUID()}`;
      const body = JSON.stringify({
        id,
        object: 'event',
        type: 'payment_intent.succeeded',
        created: Math.floor(Date.now() / 1000),
        data: {
          object: {
            id: gatewayId,
            object: 'payment_intent',
            amount: 10_000,
            amount_received: received,
            status: 'succeeded',
            metadata: { company_id: String(companyId()) },
          },
        },
      });
      const res = await hooks.app.inject({
        method: 'POST',
        url: `/api/v1/webhooks/${companyId()}/gateway_b`,
        headers: {
          'content-type': 'application/json',
          'gateway-b-signature': signatureHeader(hooks.credentials.gatewayB, body, Math.floor(Date.now() / 1000)),
        },
        payload: body,
      });
      assert.equal(res.statusCode, 200, res.body);
      return id;
    };
    const eventStatus = async (id: string) =>
      (
        await database.db
          .selectFrom('webhook_events')
          .select('status')
          .where('external_event_id', '=', id)
          .executeTakeFirstOrThrow()
      ).status;
    const state = (gatewayId: string) =>
      database.db
        .selectFrom('payments as p')
        .innerJoin('orders as o', 'o.id', 'p.order_id')
        .select([
          'p.id as paymentId',
          'p.order_id as orderId',
          'p.status as payment',
          'o.status as order',
          'p.refunded_cents as paymentRefunded',
          'o.refunded_cents as orderRefunded',
        ])
        .where('p.gateway_id', '=', gatewayId)
        .executeTakeFirstOrThrow();
    const orderEvents = (orderId: number, type: string) =>
      database.db
        .selectFrom('order_events')
        .select(['cause', 'data', 'payment_id', 'to_status'])
        .where('order_id', '=', orderId)
        .where('type', '=', type)
        .orderBy('id')
        .execute();
    const refundRows = (paymentId: number) =>
      database.db
        .selectFrom('refunds')
        .select(['amount_cents', 'status'])
        .where('payment_id', '=', paymentId)
        .orderBy('id')
        .execute();
    const refundNotifications = async (orderId: number) =>
      (
        await database.db
          .selectFrom('notification_events')
          .select('id')
          .where('order_id', '=', orderId)
          .where('type', '=', 'refund.succeeded')
          .execute()
      ).length;
    const paidPix = async () => {
      const gatewayId = await pix();
      await bankPaid(gatewayId, 10_000);
      await runWebhookJobs(database);
      assert.equal((await state(gatewayId)).payment, 'paid');
      return gatewayId;
    };

    for (const [sender, pageOf, send] of [
      ['bank pix.received', () => hooks.merchant.pageId, bankPaid],
      ['gateway_a charge.paid', () => hooks.merchant.pageId, gatewayAPaid],
      ['gateway_b payment_intent.succeeded', () => pageB, gatewayBPaid],
    ] as const) {
      test(`${sender} reporting 1 cent of 10000 leaves the payment and order unpaid and logs the mismatch`, async () => {
        const gatewayId = await pix(pageOf());
        const eventId = await send(gatewayId, 1);
        await runWebhookJobs(database);
        const after = await state(gatewayId);
        assert.deepEqual(
          { payment: after.payment, order: after.order },
          { payment: 'waiting_payment', order: 'waiting_payment' },
        );
        assert.equal(await eventStatus(eventId), 'processed');
        const mismatches = await orderEvents(after.orderId, 'payment.amount_mismatch');
        assert.equal(mismatches.length, 1);
        assert.equal(Number(mismatches[0]!.payment_id), after.paymentId);
        assert.deepEqual(mismatches[0]!.data, {
          reported_amount_cents: 1,
          expected_amount_cents: 10_000,
          payment_id: after.paymentId,
        });
        assert.match(mismatches[0]!.cause, /1 cents.*10000 cents/);
        assert.equal(
          (
            await database.db
              .selectFrom('jobs')
              .select('id')
              .where('type', '=', 'payments.release_paid_order')
              .where('dedup_key', '=', `payments.release_paid_order:${after.orderId}`)
              .execute()
          ).length,
          0,
        );
      });
    }

    test('a paid event of the exact amount or above pays, keeping the reported amount; one without an amount pays as before', async () => {
      for (const [amount, sendPaid] of [
        [10_000, bankPaid],
        [10_050, bankPaid],
        [10_000, gatewayAPaid],
      ] as const) {
        const gatewayId = await pix();
        const eventId = await sendPaid(gatewayId, amount);
        await runWebhookJobs(database);
        const after = await state(gatewayId);
        assert.deepEqual(
          { payment: after.payment, order: after.order },
          { payment: 'paid', order: 'paid' },
          `reported ${amount}`,
        );
        assert.equal(await eventStatus(eventId), 'processed');
        const paid = (await orderEvents(after.orderId, 'payment.status_changed')).filter(
          (event) => event.to_status === 'paid',
        );
        assert.deepEqual(
          paid.map((event) => event.data),
          [{ amount_cents: amount }],
        );
        assert.equal((await orderEvents(after.orderId, 'payment.amount_mismatch')).length, 0);
      }
      const gatewayId = await pix();
      const applied = await applyPaymentAction(database.db, {
        gateway: 'gateway_a',
        action: { kind: 'payment_paid', gatewayId, paidAt: new Date() },
        at: new Date(),
      });
      assert.equal(applied.applied, true);
      assert.equal((await state(gatewayId)).payment, 'paid');
    });

    test('a refund event larger than the captured amount records no refund, moves nothing and logs the mismatch', async () => {
      const gatewayId = await paidPix();
      const { paymentId, orderId } = await state(gatewayId);
      const eventId = await bankRefund(gatewayId, 99_999_999);
      await runWebhookJobs(database);
      assert.equal(await eventStatus(eventId), 'processed');
      const after = await state(gatewayId);
      assert.deepEqual(
        {
          payment: after.payment,
          order: after.order,
          paymentRefunded: after.paymentRefunded,
          orderRefunded: after.orderRefunded,
        },
        { payment: 'paid', order: 'paid', paymentRefunded: 0, orderRefunded: 0 },
      );
      assert.deepEqual(await refundRows(paymentId), []);
      assert.equal((await orderEvents(orderId, 'refund.succeeded')).length, 0);
      assert.equal(await refundNotifications(orderId), 0);
      const mismatches = await orderEvents(orderId, 'refund.amount_mismatch');
      assert.equal(mismatches.length, 1);
      assert.equal((mismatches[0]!.data as Record<string, unknown>).reported_amount_cents, 99_999_999);
      assert.equal((mismatches[0]!.data as Record<string, unknown>).refundable_cents, 10_000);
    });

    test('a second refund event exceeding what remains is not recorded; the rest still is', async () => {
      const gatewayId = await paidPix();
      const { paymentId, orderId } = await state(gatewayId);
      await bankRefund(gatewayId, 8_000);
      await runWebhookJobs(database);
      const second = await bankRefund(gatewayId, 8_000);
      await runWebhookJobs(database);
      assert.equal(await eventStatus(second), 'processed');
      let after = await state(gatewayId);
      assert.deepEqual(
        {
          payment: after.payment,
          order: after.order,
          paymentRefunded: after.paymentRefunded,
          orderRefunded: after.orderRefunded,
        },
        { payment: 'partially_refunded', order: 'partially_refunded', paymentRefunded: 8_000, orderRefunded: 8_000 },
      );
      assert.deepEqual(await refundRows(paymentId), [{ amount_cents: 8_000, status: 'succeeded' }]);
      assert.equal(await refundNotifications(orderId), 1);
      const mismatches = await orderEvents(orderId, 'refund.amount_mismatch');
      assert.deepEqual(
        mismatches.map((event) => [
          (event.data as Record<string, unknown>).reported_amount_cents,
          (event.data as Record<string, unknown>).refundable_cents,
        ]),
        [[8_000, 2_000]],
      );

      await bankRefund(gatewayId, 2_000);
      await runWebhookJobs(database);
      after = await state(gatewayId);
      assert.deepEqual(
        { payment: after.payment, order: after.order, paymentRefunded: after.paymentRefunded },
        { payment: 'refunded', order: 'refunded', paymentRefunded: 10_000 },
      );
      assert.deepEqual(
        (await refundRows(paymentId)).map((row) => row.amount_cents),
        [8_000, 2_000],
      );
    });

    test('an amount still reserved by a pending refund is not refundable by a reported refund', async () => {
      const gatewayId = await paidPix();
      const { paymentId, orderId } = await state(gatewayId);
      const longAgo = new Date(Date.now() - 20 * 60_000);
      await database.db.transaction().execute((trx) =>
        reserveRefund(trx, {
          uid: randomUUID(),
          accountId: hooks.merchant.accountId,
          paymentId,
          orderId,
          amountCents: 5_000,
          type: 'requested_by_customer',
          transactionId: null,
          refundedAt: longAgo,
          now: longAgo,
        }),
      );
      await bankRefund(gatewayId, 6_000);
      await runWebhookJobs(database);
      assert.deepEqual(await refundRows(paymentId), [{ amount_cents: 5_000, status: 'pending' }]);
      assert.equal((await state(gatewayId)).paymentRefunded, 5_000);
      const mismatches = await orderEvents(orderId, 'refund.amount_mismatch');
      assert.deepEqual(
        mismatches.map((event) => (event.data as Record<string, unknown>).refundable_cents),
        [5_000],
      );
    });

    test('two concurrent refund events that together exceed the payment: one is recorded', async () => {
      const gatewayId = await paidPix();
      const { paymentId, orderId } = await state(gatewayId);
      const refund = (refundId: string) =>
        applyPaymentAction(database.db, {
          gateway: 'gateway_a',
          action: { kind: 'payment_refunded', gatewayId, amountCents: 8_000, refundId },
          at: new Date(),
        });
      const outcomes = await Promise.all([refund('rf-concurrent-1'), refund('rf-concurrent-2')]);
      assert.deepEqual(outcomes.map((outcome) => outcome.applied).sort(), [false, true]);
      assert.deepEqual(await refundRows(paymentId), [{ amount_cents: 8_000, status: 'succeeded' }]);
      assert.equal((await state(gatewayId)).paymentRefunded, 8_000);
      assert.equal((await orderEvents(orderId, 'refund.amount_mismatch')).length, 1);
    });

    test('money reported received for a pix already expired here is not counted: the order stays unpaid and its log says to return it', async () => {
      const gatewayId = await pix();
      await bank('pix.expired', { gateway_id: gatewayId });
      await runWebhookJobs(database);
      assert.equal((await state(gatewayId)).payment, 'cancelled');
      const eventId = await bankPaid(gatewayId, 10_000);
      await runWebhookJobs(database);
      const after = await state(gatewayId);
      assert.equal(after.payment, 'cancelled');
      assert.notEqual(after.order, 'paid');
      assert.equal(await eventStatus(eventId), 'processed');
      const late = await orderEvents(after.orderId, 'payment.paid_after_close');
      assert.equal(late.length, 1);
      assert.deepEqual(late[0]!.data, {
        reported_amount_cents: 10_000,
        payment_status: 'cancelled',
        payment_id: after.paymentId,
      });
      assert.match(late[0]!.cause, /returned to the buyer/);
    });

    test('a refund event that arrives before its payment’s paid event waits for it, then is recorded', async () => {
      const gatewayId = await pix();
      const refundEvent = await bankRefund(gatewayId, 10_000);
      await runWebhookJobs(database);
      assert.equal(await eventStatus(refundEvent), 'received');
      await bankPaid(gatewayId, 10_000);
      // The refund's retry is due later (backoff): run the worker as if that time had come. The refund's job can be
      // due before the paid event's (when the paid event arrived more than a deferral later) and be deferred once
      // more in that pass, behind the paid event: a second pass an hour on is when that retry has come too.
      await runWebhookJobs(database, { clock: () => new Date(Date.now() + 3_600_000) });
      await runWebhookJobs(database, { clock: () => new Date(Date.now() + 7_200_000) });
      const after = await state(gatewayId);
      assert.deepEqual(
        { payment: after.payment, order: after.order, refunded: after.paymentRefunded },
        { payment: 'refunded', order: 'refunded', refunded: 10_000 },
      );
      assert.equal(await eventStatus(refundEvent), 'processed');
    });
  });
}
