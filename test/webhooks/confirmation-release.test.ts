import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { createLogger } from '../../src/lib/logger.ts';
import {
  releaseConfirmedOrder,
  RELEASE_PAID_ORDER_JOB,
} from '../../src/modules/payments/settlement/paid-order-release.ts';
import { createWorker } from '../../src/runtime.ts';
import type { Worker } from '../../src/jobs/worker.ts';
import { engines } from '../support/engines.ts';
import { insertPage, ORIGIN } from '../support/pay-fixtures.ts';
import { basic, runWebhookJobs, startWebhookApp, waitFor, type WebhookApp } from '../support/webhooks-fixtures.ts';

/**
 * A pix confirmed later, by the gateway's real webhook over HTTP: the worker then releases what the paid
 * order unlocks (the upsell offer, the subscription), once.
 */
for (const engine of engines()) {
  describe(`release of orders confirmed after their pay request on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let hooks: WebhookApp;
    let worker: Worker;
    let upsellPage: string;

    before(async () => {
      database = await engine.open();
      hooks = await startWebhookApp(database);
      worker = createWorker(database, createLogger('silent'), {
        masterKey: hooks.config.masterKey,
        gatewayUrls: hooks.sandboxes.urls,
        clock: () => new Date(),
        notifications: { publicUrl: hooks.config.publicUrl, allowPrivateNetworks: false },
      });
      upsellPage = await insertPage(database.db, hooks.merchant, {
        products: [hooks.merchant.productId],
        plans: [hooks.merchant.pixPlanId],
        upsellProductId: hooks.merchant.upsellProductId,
      });
    });
    after(async () => {
      await hooks.close();
      await database.close();
    });

    const payPix = async (pageId: string, productId: number) => {
      const res = await hooks.app.inject({
        method: 'POST',
        url: '/api/v1/payments',
        headers: ORIGIN,
        payload: {
          checkout_page_id: pageId,
          products: [{ id: productId, quantity: 1 }],
          customer_email: 'later@example.com',
          payment_plan_id: `${hooks.merchant.pixPlanId}-1`,
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      const gatewayId = body.payments[0] as string;
      const row = await database.db
        .selectFrom('payments')
        .select(['uid', 'order_id'])
        .where('gateway_id', '=', gatewayId)
        .executeTakeFirstOrThrow();
      return { body, gatewayId, paymentUid: row.uid, orderId: row.order_id };
    };
    const confirmAndWaitPaid = async (gatewayId: string, orderId: number) => {
      const res = await fetch(`${hooks.sandboxes.urls.gateway_a}/sandbox/charges/${gatewayId}/confirm`, {
        method: 'POST',
      });
      assert.equal(res.status, 200);
      const eventId = ((await res.json()) as { webhook: { event_id: string } }).webhook.event_id;
      // The sandbox delivers on its own; once the event is stored, the worker's webhook job applies it.
      await waitFor(() =>
        database.db
          .selectFrom('webhook_events')
          .select('id')
          .where('external_event_id', '=', eventId)
          .executeTakeFirst(),
      );
      await runWebhookJobs(database);
      assert.equal(
        (await database.db.selectFrom('orders').select('status').where('id', '=', orderId).executeTakeFirstOrThrow())
          .status,
        'paid',
      );
      return eventId;
    };
    const status = async (paymentUid: string) => {
      const res = await hooks.app.inject({ method: 'GET', url: `/pay/status/${paymentUid}` });
      assert.equal(res.statusCode, 200);
      return res.json() as { status: string; order_status: string; method?: string; offer?: string };
    };
    const releaseJobs = (orderId: number) =>
      database.db
        .selectFrom('jobs')
        .select(['status'])
        .where('type', '=', RELEASE_PAID_ORDER_JOB)
        .where('dedup_key', '=', `${RELEASE_PAID_ORDER_JOB}:${orderId}`)
        .execute();
    const runWorkerUntilReleased = async (orderId: number) => {
      for (let round = 0; round < 10 && (await releaseJobs(orderId)).some((job) => job.status !== 'done'); round++)
        await worker.runOnce();
      assert.deepEqual(
        (await releaseJobs(orderId)).map((job) => job.status),
        ['done'],
      );
    };

    test('a pix on an upsell page: its offer appears once the worker released the confirmed order, is redeemable once with a new pix', async () => {
      const pix = await payPix(upsellPage, hooks.merchant.productId);
      assert.equal(pix.body.order_status, 'waiting_payment');
      assert.equal('offer' in pix.body, false);
      assert.equal('offer' in (await status(pix.paymentUid)), false);

      const eventId = await confirmAndWaitPaid(pix.gatewayId, pix.orderId);
      assert.equal((await releaseJobs(pix.orderId)).length, 1);
      const beforeRelease = await status(pix.paymentUid);
      // Paid, with the receipt's fields, and no offer until the worker released the order.
      assert.deepEqual(
        { status: beforeRelease.status, order_status: beforeRelease.order_status, method: beforeRelease.method },
        { status: 'paid', order_status: 'paid', method: 'pix' },
      );
      assert.equal('offer' in beforeRelease, false);

      await runWorkerUntilReleased(pix.orderId);
      const offers = await database.db
        .selectFrom('upsell_offers')
        .selectAll()
        .where('order_id', '=', pix.orderId)
        .execute();
      assert.equal(offers.length, 1);
      assert.equal(offers[0]!.product_id, hooks.merchant.upsellProductId);
      const shown = await status(pix.paymentUid);
      assert.equal(typeof shown.offer, 'string');
      const released = await database.db
        .selectFrom('order_events')
        .select(['type', 'data'])
        .where('order_id', '=', pix.orderId)
        .where('type', '=', 'order.released')
        .execute();
      assert.equal(released.length, 1);

      // Released once: the job again, and the same webhook again, add nothing.
      assert.equal(
        await releaseConfirmedOrder(
          database.db,
          { accountId: hooks.merchant.accountId, orderId: pix.orderId },
          new Date(),
        ),
        'released',
      );
      const stored = await database.db
        .selectFrom('webhook_events')
        .select('payload')
        .where('external_event_id', '=', eventId)
        .executeTakeFirstOrThrow();
      const again = await hooks.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: {
          ...basic(hooks.credentials.gatewayA.username, hooks.credentials.gatewayA.password),
          'content-type': 'application/json',
        },
        payload: JSON.stringify(stored.payload),
      });
      assert.deepEqual(again.json(), { status: 'duplicate' });
      assert.equal(
        (await database.db.selectFrom('upsell_offers').select('id').where('order_id', '=', pix.orderId).execute())
          .length,
        1,
      );
      assert.equal((await releaseJobs(pix.orderId)).length, 1);
      assert.equal(
        (
          await database.db
            .selectFrom('order_events')
            .select('id')
            .where('order_id', '=', pix.orderId)
            .where('type', '=', 'order.released')
            .execute()
        ).length,
        1,
      );
      assert.equal((await status(pix.paymentUid)).offer, shown.offer);

      // Redeemed through POST /upsell: the original used pix, so the upsell is a new pix.
      const redeemed = await hooks.app.inject({
        method: 'POST',
        url: '/api/v1/upsell',
        headers: { origin: 'https://anywhere.example' },
        payload: { offer: shown.offer },
      });
      assert.equal(redeemed.statusCode, 200, redeemed.body);
      const result = redeemed.json();
      assert.equal(result.order_status, 'waiting_payment');
      assert.match(result.pix_qr_code, /^[A-Za-z0-9+/]+=*$/);
      assert.equal('bank_slip_url' in result, false);
      const upsellOrder = await database.db
        .selectFrom('orders')
        .select(['id', 'total_cents', 'source'])
        .where('parent_order_id', '=', pix.orderId)
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        { total: upsellOrder.total_cents, source: upsellOrder.source },
        { total: 1_990, source: 'upsell' },
      );
      const [upsellPayment] = await database.db
        .selectFrom('payments')
        .select(['method', 'gateway_id'])
        .where('order_id', '=', upsellOrder.id)
        .execute();
      assert.deepEqual(upsellPayment, { method: 'pix', gateway_id: result.payments[0] });

      const twice = await hooks.app.inject({
        method: 'POST',
        url: '/api/v1/upsell',
        headers: { origin: 'https://anywhere.example' },
        payload: { offer: shown.offer },
      });
      assert.equal(twice.statusCode, 422);
      assert.equal('offer' in (await status(pix.paymentUid)), false);
    });

    test('a subscription product paid by pix starts its subscription on confirmation, once', async () => {
      const pix = await payPix(hooks.merchant.pageId, hooks.merchant.subscriptionProductId);
      assert.equal(pix.body.is_subscription, true);
      assert.equal(
        (
          await database.db
            .selectFrom('subscriptions')
            .select('id')
            .where('origin_order_id', '=', pix.orderId)
            .execute()
        ).length,
        0,
      );
      await confirmAndWaitPaid(pix.gatewayId, pix.orderId);
      await runWorkerUntilReleased(pix.orderId);
      await releaseConfirmedOrder(
        database.db,
        { accountId: hooks.merchant.accountId, orderId: pix.orderId },
        new Date(),
      );
      const subscriptions = await database.db
        .selectFrom('subscriptions')
        .selectAll()
        .where('origin_order_id', '=', pix.orderId)
        .execute();
      assert.equal(subscriptions.length, 1);
      const [subscription] = subscriptions;
      assert.deepEqual(
        {
          status: subscription!.status,
          interval: subscription!.interval,
          amount: subscription!.amount_cents,
          savedMethod: subscription!.saved_payment_method_id,
        },
        { status: 'active', interval: 'month', amount: 4_990, savedMethod: null },
      );
      const renewals = await database.db
        .selectFrom('jobs')
        .select('run_at')
        .where('type', '=', 'subscriptions.renew')
        .where('dedup_key', 'like', `subscriptions.renew:${subscription!.id}:%`)
        .execute();
      assert.equal(renewals.length, 1);
      assert.equal(renewals[0]!.run_at.toISOString(), subscription!.next_charge_at!.toISOString());
      // A page without an upsell makes no offer.
      assert.equal(
        (await database.db.selectFrom('upsell_offers').select('id').where('order_id', '=', pix.orderId).execute())
          .length,
        0,
      );
    });

    test('an order refunded before the worker ran releases nothing', async () => {
      const pix = await payPix(upsellPage, hooks.merchant.productId);
      await confirmAndWaitPaid(pix.gatewayId, pix.orderId);
      await database.db.updateTable('orders').set({ status: 'refunded' }).where('id', '=', pix.orderId).execute();
      assert.equal(
        await releaseConfirmedOrder(
          database.db,
          { accountId: hooks.merchant.accountId, orderId: pix.orderId },
          new Date(),
        ),
        'skipped',
      );
      assert.equal(
        (await database.db.selectFrom('upsell_offers').select('id').where('order_id', '=', pix.orderId).execute())
          .length,
        0,
      );
    });
  });
}
