import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import type { Database } from '../../src/db/database.ts';
import type { GatewayName } from '../../src/gateways/port.ts';
import { createGateway } from '../../src/gateways/registry.ts';
import type { RunningSandboxes } from '../../src/gateways/sandbox/server.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { reserveRefund } from '../../src/modules/payments/refunds/refunds.repo.ts';
import { webhookJobHandlers } from '../../src/modules/webhooks/webhook-jobs.ts';
import { PROCESS_EVENT_JOB } from '../../src/modules/webhooks/webhooks.service.ts';
import { startLocalSandboxes, type LocalSandboxes } from '../../src/sandbox-runtime.ts';
import { testConfig } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import {
  confirmationTokenB,
  createMerchant,
  insertPage,
  KEYS,
  ORIGIN,
  tokenA,
  type Merchant,
} from '../support/pay-fixtures.ts';
import { runWebhookJobs, storeCredentials, waitFor } from '../support/webhooks-fixtures.ts';

/**
 * A refund is counted once whichever reaches the database first: our own refund request or the gateway's
 * refund webhook. The sandbox's `next_refund: webhook_first` delivers the webhook (and waits for the
 * receiver's answer) before it answers the refund call, i.e. while the request is between its gateway
 * call and its commit. The sandboxes deliver through a relay that can run the worker's webhook jobs
 * before it passes the answer back: the worker applying the event inside that window, as the worker of
 * the receiving process, woken at once, may.
 */
for (const engine of engines()) {
  describe(`refund webhooks racing refund requests on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let hooks: { app: FastifyInstance; config: Config; merchant: Merchant; sandboxes: LocalSandboxes };
    let relay: Server;
    let pageB: string;
    /** When set, the relay runs the due webhook jobs after the receiver's answer and before passing it on. */
    let workerInsideDelivery = false;

    before(async () => {
      database = await engine.open();
      const config = testConfig();
      const merchant = await createMerchant(database, config);
      await storeCredentials(database, config, merchant);
      let relayUrl: string | undefined;
      // The relay runs the worker inside a delivery: the sandbox waits for that attempt however long a loaded machine takes.
      const sandboxes = await startLocalSandboxes(database, config, () => relayUrl, {
        webhookAttemptTimeoutMs: 60_000,
      });
      const app = await buildApp({ config, database, logger: createLogger('silent'), gatewayUrls: sandboxes.urls });
      const appUrl = await app.listen({ port: 0, host: '127.0.0.1' });
      relay = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          void (async () => {
            const answer = await fetch(`${appUrl}${request.url}`, {
              method: request.method,
              headers: forwarded(request.headers),
              body: Buffer.concat(chunks),
            });
            const body = await answer.text();
            if (workerInsideDelivery) await runWebhookJobs(database);
            response
              .writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' })
              .end(body);
          })().catch(() => response.writeHead(502).end());
        });
      });
      await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
      relayUrl = `http://127.0.0.1:${(relay.address() as { port: number }).port}`;
      hooks = { app, config, merchant, sandboxes };
      pageB = await insertPage(database.db, hooks.merchant, {
        gateway: 'gateway_b',
        products: [hooks.merchant.productId],
        plans: [hooks.merchant.cardPlanId],
      });
    });
    after(async () => {
      await hooks.sandboxes.close();
      relay.close();
      await hooks.app.close();
      await database.close();
    });

    const sandboxes = () => ({ baseUrlFor: (name: GatewayName) => hooks.sandboxes.urls[name] }) as RunningSandboxes;
    const account = (gateway: GatewayName) => ({
      baseUrl: hooks.sandboxes.urls[gateway],
      publicKey: KEYS[gateway].publicKey,
      secretKey: KEYS[gateway].secretKey,
    });
    const paidCard = async (gateway: 'gateway_a' | 'gateway_b') => {
      const card =
        gateway === 'gateway_a'
          ? { credit_card_0_token: await tokenA(sandboxes()) }
          : { confirmation_token_id: await confirmationTokenB(sandboxes()) };
      const res = await hooks.app.inject({
        method: 'POST',
        url: '/api/v1/payments',
        headers: ORIGIN,
        payload: {
          checkout_page_id: gateway === 'gateway_a' ? hooks.merchant.pageId : pageB,
          products: [{ id: hooks.merchant.productId, quantity: 1 }],
          customer_email: 'race@example.com',
          payment_plan_id: `${hooks.merchant.cardPlanId}-1`,
          ...card,
        },
      });
      assert.equal(res.json().order_status, 'paid', res.body);
      const gatewayId = res.json().payments[0] as string;
      const row = await database.db
        .selectFrom('payments')
        .select(['id', 'order_id'])
        .where('gateway_id', '=', gatewayId)
        .executeTakeFirstOrThrow();
      return { gatewayId, paymentId: row.id, orderId: row.order_id };
    };
    const refund = (paymentId: number, payload: Record<string, unknown>) =>
      hooks.app.inject({
        method: 'POST',
        url: `/api/v1/payments/${paymentId}/refund`,
        headers: { authorization: `Bearer ${hooks.merchant.apiKey}` },
        payload,
      });
    const totals = async (paymentId: number, orderId: number) => {
      const payment = await database.db
        .selectFrom('payments')
        .select(['status', 'refunded_cents'])
        .where('id', '=', paymentId)
        .executeTakeFirstOrThrow();
      const order = await database.db
        .selectFrom('orders')
        .select(['status', 'refunded_cents'])
        .where('id', '=', orderId)
        .executeTakeFirstOrThrow();
      const rows = await database.db
        .selectFrom('refunds')
        .select(['status', 'amount_cents', 'gateway_refund_id', 'type'])
        .where('payment_id', '=', paymentId)
        .orderBy('id')
        .execute();
      return { payment, order, rows };
    };
    const eventOfRefund = (gatewayRefundId: string) =>
      waitFor(async () => {
        const rows = await database.db
          .selectFrom('webhook_events')
          .selectAll()
          .where('account_id', '=', hooks.merchant.accountId)
          .where('event_type', '=', 'charge.refunded')
          .execute();
        return rows.find((row) => JSON.stringify(row.payload).includes(gatewayRefundId));
      });
    const eventStatus = async (id: number) =>
      (await database.db.selectFrom('webhook_events').select('status').where('id', '=', id).executeTakeFirstOrThrow())
        .status;
    /** The worker's clock an hour ahead: a retry scheduled with backoff is due. */
    const later = () => new Date(Date.now() + 60 * 60_000);
    const runJob = async (eventRowId: number) => {
      const job = await database.db
        .selectFrom('jobs')
        .selectAll()
        .where('type', '=', PROCESS_EVENT_JOB)
        .where('dedup_key', '=', `${PROCESS_EVENT_JOB}:${eventRowId}`)
        .executeTakeFirstOrThrow();
      await webhookJobHandlers({ masterKey: hooks.config.masterKey, clock: () => new Date() })[PROCESS_EVENT_JOB]!(
        { id: job.id, type: job.type, payload: job.payload, accountId: job.account_id, attempts: 1 },
        { database },
      );
    };

    for (const gateway of ['gateway_a', 'gateway_b'] as const) {
      test(`${gateway}: the refund webhook applied by the worker before the refund's commit waits, and the refund counts once`, async () => {
        const paid = await paidCard(gateway);
        const armed = await fetch(`${hooks.sandboxes.urls[gateway]}/sandbox/charges/${paid.gatewayId}/next_refund`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ behaviour: 'webhook_first' }),
        });
        assert.equal(armed.status, 200);
        workerInsideDelivery = true;
        let res;
        try {
          res = await refund(paid.paymentId, { amount: 30 });
        } finally {
          workerInsideDelivery = false;
        }
        assert.equal(res.statusCode, 200, res.body);
        const after = await totals(paid.paymentId, paid.orderId);
        assert.deepEqual(after.payment, { status: 'partially_refunded', refunded_cents: 3_000 });
        assert.deepEqual(after.order, { status: 'partially_refunded', refunded_cents: 3_000 });
        assert.equal(after.rows.length, 1);
        const [row] = after.rows;
        assert.equal(row!.status, 'succeeded');
        assert.equal(row!.type, 'requested_by_customer');

        // The webhook was received during the call and the worker ran it then: its effect deferred (not applied a second time).
        const event = await eventOfRefund(row!.gateway_refund_id!);
        assert.equal(event.status, 'received');
        assert.match(event.last_error ?? '', /still being recorded/);

        // The job's retry finds the refund recorded by its gateway id and changes nothing.
        await runWebhookJobs(database, { clock: later });
        const settled = await totals(paid.paymentId, paid.orderId);
        assert.deepEqual(settled, after);
        assert.equal(await eventStatus(event.id), 'processed');

        // The rest, without any race, also counts once, whenever its webhook lands.
        assert.equal((await refund(paid.paymentId, {})).statusCode, 200);
        await waitFor(async () => {
          const rows = await database.db
            .selectFrom('webhook_events')
            .select(['id', 'status', 'payload'])
            .where('account_id', '=', hooks.merchant.accountId)
            .where('event_type', '=', 'charge.refunded')
            .execute();
          return rows.filter((item) => JSON.stringify(item.payload).includes(paid.gatewayId)).length >= 2
            ? true
            : undefined;
        });
        await runWebhookJobs(database);
        const done = await totals(paid.paymentId, paid.orderId);
        assert.deepEqual(done.payment, { status: 'refunded', refunded_cents: 10_000 });
        assert.deepEqual(done.order, { status: 'refunded', refunded_cents: 10_000 });
        assert.deepEqual(
          done.rows.map((item) => item.amount_cents),
          [3_000, 7_000],
        );
      });
    }

    test('a reservation whose request died after the gateway refunded is settled by the webhook, counted once', async () => {
      const paid = await paidCard('gateway_a');
      const longAgo = new Date(Date.now() - 20 * 60_000);
      const uid = crypto.randomUUID();
      // The request reserved R$ 40 and called the gateway, then its process died before the commit.
      await database.db.transaction().execute((trx) =>
        reserveRefund(trx, {
          uid,
          accountId: hooks.merchant.accountId,
          paymentId: paid.paymentId,
          orderId: paid.orderId,
          amountCents: 4_000,
          type: 'duplicate',
          transactionId: null,
          refundedAt: longAgo,
          now: longAgo,
        }),
      );
      await database.db.updateTable('refunds').set({ created_at: longAgo }).where('uid', '=', uid).execute();
      const made = await createGateway('gateway_a', { timeoutMs: 5_000 }).refund(
        account('gateway_a'),
        paid.gatewayId,
        4_000,
        `refund:${uid}`,
      );
      const event = await eventOfRefund(made.refundId);
      await runWebhookJobs(database);
      assert.equal(await eventStatus(event.id), 'processed');
      const after = await totals(paid.paymentId, paid.orderId);
      assert.deepEqual(after.payment, { status: 'partially_refunded', refunded_cents: 4_000 });
      assert.deepEqual(after.order, { status: 'partially_refunded', refunded_cents: 4_000 });
      assert.deepEqual(after.rows, [
        { status: 'succeeded', amount_cents: 4_000, gateway_refund_id: made.refundId, type: 'duplicate' },
      ]);
    });

    test('a refund made outside the API (the gateway dashboard) is recorded from its webhook and added once', async () => {
      const paid = await paidCard('gateway_a');
      const made = await createGateway('gateway_a', { timeoutMs: 5_000 }).refund(
        account('gateway_a'),
        paid.gatewayId,
        2_500,
        `dashboard:${paid.gatewayId}`,
      );
      const event = await eventOfRefund(made.refundId);
      await runWebhookJobs(database);
      assert.equal(await eventStatus(event.id), 'processed');
      await runJob(event.id);
      const after = await totals(paid.paymentId, paid.orderId);
      assert.deepEqual(after.payment, { status: 'partially_refunded', refunded_cents: 2_500 });
      assert.deepEqual(after.rows, [
        { status: 'succeeded', amount_cents: 2_500, gateway_refund_id: made.refundId, type: 'gateway' },
      ]);
      // The API then refunds only what remains.
      const over = await refund(paid.paymentId, { amount: 80 });
      assert.equal(over.statusCode, 422);
      assert.equal((await refund(paid.paymentId, { amount: 75 })).statusCode, 200);
    });
  });
}

/** The sandbox's request headers, as the relay passes them on (hop-by-hop ones dropped). */
function forwarded(headers: IncomingHttpHeaders): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (
      ['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive'].includes(name) ||
      value === undefined
    )
      continue;
    kept[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return kept;
}
