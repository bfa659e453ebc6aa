import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { signatureHeader } from '../../src/gateways/gateway-b/index.ts';
import { applyPaymentAction } from '../../src/modules/payments/attempts/gateway-actions.ts';
import { processEvent } from '../../src/modules/webhooks/webhooks.service.ts';
import type { WebhookDeps } from '../../src/modules/webhooks/webhook-deps.ts';
import { engines } from '../support/engines.ts';
import { insertPage, ORIGIN } from '../support/pay-fixtures.ts';
import { basic, runWebhookJobs, startWebhookApp, type WebhookApp } from '../support/webhooks-fixtures.ts';

/**
 * Events about one payment are applied in the order they were received, whatever order their jobs run in:
 * here the later event is processed first, as a concurrent batch or a second worker may do.
 */
for (const engine of engines()) {
  describe(`order of events about one payment on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let hooks: WebhookApp;
    let pageB: string;
    let deps: WebhookDeps;

    before(async () => {
      database = await engine.open();
      hooks = await startWebhookApp(database);
      pageB = await insertPage(database.db, hooks.merchant, {
        gateway: 'gateway_b',
        products: [hooks.merchant.productId],
        plans: [hooks.merchant.pixPlanId],
      });
      deps = {
        db: database.db,
        clock: () => new Date(),
        applyAction: applyPaymentAction,
        masterKey: hooks.config.masterKey,
      };
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
          customer_email: 'order@example.com',
          payment_plan_id: `${hooks.merchant.pixPlanId}-1`,
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().payments[0] as string;
    };
    /** Delivers a bank event; the stored event's id. */
    const bank = async (type: string, data: Record<string, unknown>) => {
      const id = `bank-${randomUUID()}`;
      const res = await hooks.app.inject({
        method: 'POST',
        url: `/api/v1/webhooks/${companyId()}/bank`,
        headers: {
          'content-type': 'application/json',
          ...basic(hooks.credentials.bank.username, hooks.credentials.bank.password),
        },
        payload: JSON.stringify({ id, type, data }),
      });
      assert.equal(res.statusCode, 200, res.body);
      return storedId(id);
    };
    const bankPaid = (gatewayId: string) =>
      bank('pix.received', { gateway_id: gatewayId, amount: 10_000, paid_at: new Date().toISOString() });
    /** Delivers a gateway_b event; the stored event's id. */
    const gatewayB = async (type: string, object: Record<string, unknown>) => {
      const id = `evt_${randomUUID()}`;
      const body = JSON.stringify({
        id,
        object: 'event',
        type,
        created: Math.floor(Date.now() / 1000),
        data: { object },
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
      return storedId(id);
    };
    const storedId = async (externalId: string) =>
      (
        await database.db
          .selectFrom('webhook_events')
          .select('id')
          .where('external_event_id', '=', externalId)
          .executeTakeFirstOrThrow()
      ).id;
    const event = (id: number) =>
      database.db
        .selectFrom('webhook_events')
        .select(['status', 'attempts', 'last_error', 'payment_ref'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
    const state = (gatewayId: string) =>
      database.db
        .selectFrom('payments as p')
        .innerJoin('orders as o', 'o.id', 'p.order_id')
        .select([
          'p.id as paymentId',
          'p.order_id as orderId',
          'p.status as payment',
          'o.status as order',
          'p.refunded_cents as refunded',
        ])
        .where('p.gateway_id', '=', gatewayId)
        .executeTakeFirstOrThrow();
    const orderEventTypes = async (orderId: number) =>
      (
        await database.db
          .selectFrom('order_events')
          .select('type')
          .where('order_id', '=', orderId)
          .orderBy('id')
          .execute()
      ).map((row) => row.type);

    /** Processing `later` first defers it, changing nothing but its note; it is not counted as an attempt. */
    const assertDeferred = async (later: number, gatewayId: string) => {
      const before = await state(gatewayId);
      const receipt = await processEvent(deps, later);
      assert.equal(receipt.deferred, true, receipt.error);
      assert.equal(receipt.status, 'received');
      const stored = await event(later);
      assert.equal(stored.status, 'received');
      assert.equal(stored.attempts, 0);
      assert.match(stored.last_error ?? '', /earlier webhook event \d+ of the same payment/);
      assert.deepEqual(await state(gatewayId), before);
    };

    test('gateway_b paid then dispute, the dispute run first: it waits, then the payment ends charged back', async () => {
      const intentId = await pix(pageB);
      const paid = await gatewayB('payment_intent.succeeded', {
        id: intentId,
        object: 'payment_intent',
        status: 'succeeded',
        amount: 10_000,
        amount_received: 10_000,
        payment_method_types: ['pix'],
      });
      const dispute = await gatewayB('charge.dispute.created', {
        id: `dp_${randomUUID().slice(0, 8)}`,
        object: 'dispute',
        payment_intent: intentId,
        amount: 10_000,
        status: 'needs_response',
      });
      assert.equal((await event(paid)).payment_ref, intentId);
      assert.equal((await event(dispute)).payment_ref, intentId);

      await assertDeferred(dispute, intentId);
      assert.equal((await state(intentId)).payment, 'waiting_payment');

      assert.equal((await processEvent(deps, paid)).status, 'processed');
      assert.equal((await processEvent(deps, dispute)).status, 'processed');
      assert.equal((await state(intentId)).payment, 'charged_back');
    });

    test('bank received then expired, the expiry run first: it waits, then the payment and order stay paid', async () => {
      const gatewayId = await pix();
      const received = await bankPaid(gatewayId);
      const expired = await bank('pix.expired', { gateway_id: gatewayId });
      assert.equal((await event(expired)).payment_ref, gatewayId);

      await assertDeferred(expired, gatewayId);

      assert.equal((await processEvent(deps, received)).status, 'processed');
      assert.equal((await processEvent(deps, expired)).status, 'processed');
      const after = await state(gatewayId);
      assert.deepEqual({ payment: after.payment, order: after.order }, { payment: 'paid', order: 'paid' });
      assert.ok(!(await orderEventTypes(after.orderId)).includes('payment.paid_after_close'));
    });

    test('a refund stored before its paid event: the refund’s failed attempt does not hold the paid event back', async () => {
      const gatewayId = await pix();
      const refund = await bank('pix.refunded', {
        gateway_id: gatewayId,
        amount: 10_000,
        refund_id: `rf-${randomUUID()}`,
      });
      const paid = await bankPaid(gatewayId);

      // Not attempted yet, the refund is ahead of the paid event.
      await assertDeferred(paid, gatewayId);
      // Attempted, it fails (its payment is not paid yet) and stops holding the paid event back.
      const early = await processEvent(deps, refund);
      assert.ok(early.error && !early.deferred, 'the early refund fails as a retryable failure, not a deferral');
      assert.equal((await event(refund)).attempts, 1);
      assert.equal((await processEvent(deps, paid)).status, 'processed');
      assert.equal((await processEvent(deps, refund)).status, 'processed');

      const after = await state(gatewayId);
      assert.deepEqual({ payment: after.payment, refunded: after.refunded }, { payment: 'refunded', refunded: 10_000 });
      assert.equal(
        (await database.db.selectFrom('refunds').select('id').where('payment_id', '=', after.paymentId).execute())
          .length,
        1,
      );
    });

    test('through the worker, a refund delivered before its paid event is recorded once', async () => {
      const gatewayId = await pix();
      const refund = await bank('pix.refunded', {
        gateway_id: gatewayId,
        amount: 10_000,
        refund_id: `rf-${randomUUID()}`,
      });
      const paid = await bankPaid(gatewayId);
      await runWebhookJobs(database);
      assert.equal((await event(paid)).status, 'processed');
      // The refund's retry is due later (backoff): run the worker as if that time had come.
      await runWebhookJobs(database, { clock: () => new Date(Date.now() + 3_600_000) });
      assert.equal((await event(refund)).status, 'processed');
      const after = await state(gatewayId);
      assert.equal(after.payment, 'refunded');
      assert.equal(
        (await database.db.selectFrom('refunds').select('id').where('payment_id', '=', after.paymentId).execute())
          .length,
        1,
      );
    });

    test('pairs delivered in order and run by two concurrent workers end as delivered', async () => {
      const pairs: Array<{ gatewayId: string }> = [];
      for (let i = 0; i < 5; i++) {
        const gatewayId = await pix();
        await bankPaid(gatewayId);
        await bank('pix.expired', { gateway_id: gatewayId });
        pairs.push({ gatewayId });
      }
      await Promise.all([runWebhookJobs(database), runWebhookJobs(database)]);
      // Whatever waited past the short rechecks is retried with backoff: run it as if that time had come.
      await runWebhookJobs(database, { clock: () => new Date(Date.now() + 3_600_000) });
      for (const { gatewayId } of pairs) {
        const after = await state(gatewayId);
        assert.deepEqual({ payment: after.payment, order: after.order }, { payment: 'paid', order: 'paid' }, gatewayId);
      }
    });

    test('events of different payments do not wait for each other', async () => {
      const first = await pix();
      const second = await pix();
      const firstPaid = await bankPaid(first);
      const secondPaid = await bankPaid(second);
      assert.equal((await processEvent(deps, secondPaid)).status, 'processed');
      assert.equal((await state(second)).payment, 'paid');
      assert.equal((await processEvent(deps, firstPaid)).status, 'processed');
    });

    test('an earlier event whose job is dead, or that names no payment, holds nothing back', async () => {
      const gatewayId = await pix();
      const stuck = await bankPaid(gatewayId);
      const ignored = await bank('pix.unknown_type', { gateway_id: gatewayId });
      assert.equal((await event(ignored)).payment_ref, null);
      await database.db
        .updateTable('jobs')
        .set({ status: 'dead' })
        .where('dedup_key', '=', `webhooks.process_event:${stuck}`)
        .returning('id')
        .execute();
      const expired = await bank('pix.expired', { gateway_id: gatewayId });
      assert.equal((await processEvent(deps, expired)).status, 'processed');
      assert.equal((await state(gatewayId)).payment, 'cancelled');
    });
  });
}
