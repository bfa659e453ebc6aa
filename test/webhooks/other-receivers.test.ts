import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { engines } from '../support/engines.ts';
import { ORIGIN } from '../support/pay-fixtures.ts';
import { basic, runWebhookJobs, startWebhookApp, type WebhookApp } from '../support/webhooks-fixtures.ts';

for (const engine of engines()) {
  describe(`bank, platform and invoicing receivers on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let hooks: WebhookApp;

    before(async () => {
      database = await engine.open();
      hooks = await startWebhookApp(database);
    });
    after(async () => {
      await hooks.close();
      await database.close();
    });

    const payPix = async () => {
      const res = await hooks.app.inject({
        method: 'POST',
        url: '/api/v1/payments',
        headers: ORIGIN,
        payload: {
          checkout_page_id: hooks.merchant.pageId,
          products: [{ id: hooks.merchant.productId, quantity: 1 }],
          customer_email: 'bank@example.com',
          payment_plan_id: `${hooks.merchant.pixPlanId}-1`,
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().payments[0] as string;
    };
    const orderOf = (gatewayId: string) =>
      database.db
        .selectFrom('payments as p')
        .innerJoin('orders as o', 'o.id', 'p.order_id')
        .select(['o.status', 'o.uid', 'o.id', 'p.uid as payment_uid'])
        .where('p.gateway_id', '=', gatewayId)
        .executeTakeFirstOrThrow();
    const bankUrl = (companyId: number) => `/api/v1/webhooks/${companyId}/bank`;
    const bankAuth = () => basic(hooks.credentials.bank.username, hooks.credentials.bank.password);
    const eventStatus = async (eventId: string) =>
      (
        await database.db
          .selectFrom('webhook_events')
          .select('status')
          .where('external_event_id', '=', eventId)
          .executeTakeFirstOrThrow()
      ).status;

    test('bank: pix.received is acknowledged as received, the order still waiting; the worker pays it by gateway_id; a duplicate before and after changes nothing', async () => {
      const gatewayId = await payPix();
      const event = {
        id: `bank-${randomUUID()}`,
        type: 'pix.received',
        data: { gateway_id: gatewayId, amount: 10_000, paid_at: new Date().toISOString() },
      };
      const res = await hooks.app.inject({
        method: 'POST',
        url: bankUrl(hooks.merchant.companyId),
        headers: bankAuth(),
        payload: event,
      });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { status: 'received' });
      assert.equal((await orderOf(gatewayId)).status, 'waiting_payment');
      const early = await hooks.app.inject({
        method: 'POST',
        url: bankUrl(hooks.merchant.companyId),
        headers: bankAuth(),
        payload: event,
      });
      assert.deepEqual(early.json(), { status: 'duplicate' });
      await runWebhookJobs(database);
      assert.equal((await orderOf(gatewayId)).status, 'paid');
      assert.equal(await eventStatus(event.id), 'processed');
      const again = await hooks.app.inject({
        method: 'POST',
        url: bankUrl(hooks.merchant.companyId),
        headers: bankAuth(),
        payload: event,
      });
      assert.deepEqual(again.json(), { status: 'duplicate' });
      await runWebhookJobs(database);
      const { id: orderId } = await orderOf(gatewayId);
      const paid = await database.db
        .selectFrom('order_events')
        .select(['type', 'cause'])
        .where('order_id', '=', orderId)
        .where('to_status', '=', 'paid')
        .execute();
      assert.deepEqual(paid.map((row) => row.type).sort(), ['order.status_changed', 'payment.status_changed']);
      // The bank reported it, not the gateway that issued the pix: the log says so.
      assert.equal(paid.find((row) => row.type === 'payment.status_changed')!.cause, 'bank: payment confirmed');
    });

    test('bank: unknown types are ignored; a known type without its fields is 422; missing, wrong, foreign or unknown-company credentials are 401', async () => {
      const ignored = await hooks.app.inject({
        method: 'POST',
        url: bankUrl(hooks.merchant.companyId),
        headers: bankAuth(),
        payload: { id: 'b-ign', type: 'statement.ready', data: {} },
      });
      assert.deepEqual(ignored.json(), { status: 'received' });
      await runWebhookJobs(database);
      assert.equal(await eventStatus('b-ign'), 'ignored');
      const invalid = await hooks.app.inject({
        method: 'POST',
        url: bankUrl(hooks.merchant.companyId),
        headers: bankAuth(),
        payload: { id: 'b-bad', type: 'boleto.paid', data: { gateway_id: 'x', amount: 1.5, paid_at: 'now' } },
      });
      assert.equal(invalid.statusCode, 422);
      assert.equal(
        await database.db
          .selectFrom('webhook_events')
          .select('id')
          .where('external_event_id', '=', 'b-bad')
          .executeTakeFirst(),
        undefined,
      );
      for (const [url, headers] of [
        [bankUrl(hooks.merchant.companyId), {}],
        [bankUrl(hooks.merchant.companyId), basic(hooks.credentials.bank.username, 'nope')],
        [bankUrl(hooks.other.companyId), bankAuth()],
        [bankUrl(999999999), bankAuth()],
      ] as const) {
        const res = await hooks.app.inject({
          method: 'POST',
          url,
          headers,
          payload: { id: 'b-auth', type: 'pix.received', data: {} },
        });
        assert.equal(res.statusCode, 401);
        assert.equal(res.json().code, 'invalid_credentials');
      }
    });

    test('invoicing: invoice.authorized stores the invoice and bills a paid order; cancelled updates it; 401 without the credentials', async () => {
      const gatewayId = await payPix();
      await hooks.app.inject({
        method: 'POST',
        url: bankUrl(hooks.merchant.companyId),
        headers: bankAuth(),
        payload: {
          id: `bank-${randomUUID()}`,
          type: 'pix.received',
          data: { gateway_id: gatewayId, amount: 10_000, paid_at: new Date().toISOString() },
        },
      });
      await runWebhookJobs(database);
      const order = await orderOf(gatewayId);
      assert.equal(order.status, 'paid');
      const auth = basic(hooks.credentials.invoicing.username, hooks.credentials.invoicing.password);
      const invoice = {
        id: 'nf-1',
        type: 'nfse',
        number: '123',
        series: '1',
        amount: 10_000,
        url: 'https://nf.example/1',
      };
      const authorized = await hooks.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks/invoicing',
        headers: auth,
        payload: { id: 'inv-evt-1', type: 'invoice.authorized', data: { order_id: order.uid, invoice } },
      });
      assert.equal(authorized.statusCode, 200);
      assert.deepEqual(authorized.json(), { status: 'received' });
      assert.equal((await orderOf(gatewayId)).status, 'paid');
      await runWebhookJobs(database);
      assert.equal((await orderOf(gatewayId)).status, 'billed');
      const cancelled = await hooks.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks/invoicing',
        headers: auth,
        payload: { id: 'inv-evt-2', type: 'invoice.cancelled', data: { order_id: order.uid, invoice } },
      });
      assert.equal(cancelled.statusCode, 200);
      await runWebhookJobs(database);
      const rows = await database.db
        .selectFrom('invoices')
        .select(['status', 'value_cents', 'number'])
        .where('order_id', '=', order.id)
        .execute();
      assert.deepEqual(rows, [{ status: 'cancelled', value_cents: 10_000, number: '123' }]);
      for (const headers of [{}, basic(hooks.credentials.invoicing.username, 'wrong'), basic('nobody', 'x')]) {
        const res = await hooks.app.inject({
          method: 'POST',
          url: '/api/v1/webhooks/invoicing',
          headers,
          payload: { id: 'inv-evt-3', type: 'invoice.authorized', data: {} },
        });
        assert.equal(res.statusCode, 401);
      }
      // Another company's credentials cannot bill this merchant's order: the order is not found in its tenant.
      const foreign = await hooks.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks/invoicing',
        headers: basic(`inv-${hooks.other.slug}`, `pi-${hooks.other.slug}`),
        payload: {
          id: 'inv-evt-4',
          type: 'invoice.authorized',
          data: { order_id: order.uid, invoice: { ...invoice, id: 'nf-2' } },
        },
      });
      assert.deepEqual(foreign.json(), { status: 'received' });
      await runWebhookJobs(database);
      assert.equal(await eventStatus('inv-evt-4'), 'ignored');
      assert.equal((await orderOf(gatewayId)).status, 'billed');
    });

    test('invoicing: an invoice authorized before the payment bills the order once it is paid; a cancelled one does not', async () => {
      const auth = basic(hooks.credentials.invoicing.username, hooks.credentials.invoicing.password);
      const invoiceEvent = async (eventId: string, type: string, orderUid: string, invoiceId: string) => {
        const res = await hooks.app.inject({
          method: 'POST',
          url: '/api/v1/webhooks/invoicing',
          headers: auth,
          payload: {
            id: eventId,
            type,
            data: { order_id: orderUid, invoice: { id: invoiceId, type: 'nfe', amount: 10_000 } },
          },
        });
        assert.equal(res.statusCode, 200, res.body);
        await runWebhookJobs(database);
      };
      const pixPaid = async (gatewayId: string) => {
        await hooks.app.inject({
          method: 'POST',
          url: bankUrl(hooks.merchant.companyId),
          headers: bankAuth(),
          payload: {
            id: `bank-${randomUUID()}`,
            type: 'pix.received',
            data: { gateway_id: gatewayId, amount: 10_000, paid_at: new Date().toISOString() },
          },
        });
        await runWebhookJobs(database);
      };

      const early = await payPix();
      const order = await orderOf(early);
      await invoiceEvent('inv-early-1', 'invoice.authorized', order.uid, 'nf-early');
      assert.equal((await orderOf(early)).status, 'waiting_payment');
      await pixPaid(early);
      assert.equal((await orderOf(early)).status, 'billed');
      const log = await database.db
        .selectFrom('order_events')
        .select(['from_status', 'to_status', 'cause'])
        .where('order_id', '=', order.id)
        .where('type', '=', 'order.status_changed')
        .orderBy('id')
        .execute();
      assert.deepEqual(
        log.slice(-2).map((row) => [row.from_status, row.to_status]),
        [
          ['waiting_payment', 'paid'],
          ['paid', 'billed'],
        ],
      );
      assert.equal(log.at(-1)!.cause, 'invoicing: invoice nf-early authorized before the payment');

      const withdrawn = await payPix();
      const other = await orderOf(withdrawn);
      await invoiceEvent('inv-early-2', 'invoice.authorized', other.uid, 'nf-withdrawn');
      await invoiceEvent('inv-early-3', 'invoice.cancelled', other.uid, 'nf-withdrawn');
      await pixPaid(withdrawn);
      assert.equal((await orderOf(withdrawn)).status, 'paid');
    });

    test('platform: payment.reconcile_requested enqueues one reconcile job; no authentication; bad shapes are 422', async () => {
      const gatewayId = await payPix();
      const { payment_uid } = await orderOf(gatewayId);
      const res = await hooks.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks/platform',
        payload: { id: 'plat-1', type: 'payment.reconcile_requested', data: { payment_id: payment_uid } },
      });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { status: 'received' });
      const reconciles = () =>
        database.db.selectFrom('jobs').select('payload').where('type', '=', 'payments.reconcile').execute();
      assert.equal(
        (await reconciles()).some(
          (job) => (job.payload as { account_id: string }).account_id === hooks.merchant.accountId,
        ),
        false,
      );
      await runWebhookJobs(database);
      assert.equal(await eventStatus('plat-1'), 'processed');
      assert.ok(
        (await reconciles()).some(
          (job) => (job.payload as { account_id: string }).account_id === hooks.merchant.accountId,
        ),
      );
      const unknown = await hooks.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks/platform',
        payload: { id: 'plat-2', type: 'something.else' },
      });
      assert.deepEqual(unknown.json(), { status: 'received' });
      await runWebhookJobs(database);
      assert.equal(await eventStatus('plat-2'), 'ignored');
      const bad = await hooks.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks/platform',
        payload: { id: 'plat-3', type: 'payment.reconcile_requested', data: { payment_id: 'not-a-uuid' } },
      });
      assert.equal(bad.statusCode, 422);
      const notJson = await hooks.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks/platform',
        headers: { 'content-type': 'application/json' },
        payload: '{nope',
      });
      assert.equal(notJson.statusCode, 400);
    });
  });
}
