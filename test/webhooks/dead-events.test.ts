import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import type { Database } from '../../src/db/database.ts';
import { Worker } from '../../src/jobs/worker.ts';
import { webhookDeadJobHandlers, webhookJobHandlers } from '../../src/modules/webhooks/webhook-jobs.ts';
import { runWebhooksCommand, WebhookUsageError } from '../../src/modules/webhooks/webhooks.cli.ts';
import { PROCESS_EVENT_JOB } from '../../src/modules/webhooks/webhooks.service.ts';
import { engines } from '../support/engines.ts';
import { ORIGIN } from '../support/pay-fixtures.ts';
import { basic, runWebhookJobs, startWebhookApp, type WebhookApp } from '../support/webhooks-fixtures.ts';

const HOUR = 3_600_000;

/**
 * An acknowledged event whose job runs out of attempts (a refund of a payment that is not paid: every attempt
 * fails) is failed with a log line, listed for its merchant only, counted by the metric, and replayed, from the
 * API or the CLI, into exactly one application.
 */
for (const engine of engines()) {
  describe(`dead webhook events on ${engine.name}`, { timeout: 180_000 }, () => {
    let database: Database;
    let hooks: WebhookApp;
    const logLines: string[] = [];

    before(async () => {
      database = await engine.open();
      hooks = await startWebhookApp(database);
    });
    after(async () => {
      await hooks.close();
      await database.close();
    });

    const pix = async () => {
      const res = await hooks.app.inject({
        method: 'POST',
        url: '/api/v1/payments',
        headers: ORIGIN,
        payload: {
          checkout_page_id: hooks.merchant.pageId,
          products: [{ id: hooks.merchant.productId, quantity: 1 }],
          customer_email: 'dead@example.com',
          payment_plan_id: `${hooks.merchant.pixPlanId}-1`,
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().payments[0] as string;
    };
    const bank = async (type: string, data: Record<string, unknown>) => {
      const id = `bank-${randomUUID()}`;
      const res = await hooks.app.inject({
        method: 'POST',
        url: `/api/v1/webhooks/${hooks.merchant.companyId}/bank`,
        headers: {
          'content-type': 'application/json',
          ...basic(hooks.credentials.bank.username, hooks.credentials.bank.password),
        },
        payload: JSON.stringify({ id, type, data }),
      });
      assert.equal(res.statusCode, 200, res.body);
      const row = await database.db
        .selectFrom('webhook_events')
        .select('id')
        .where('external_event_id', '=', id)
        .executeTakeFirstOrThrow();
      return Number(row.id);
    };
    const event = (id: number) =>
      database.db
        .selectFrom('webhook_events')
        .select(['status', 'attempts', 'failed_at', 'last_error'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
    const api = (method: 'GET' | 'POST', url: string, apiKey = hooks.merchant.apiKey) =>
      hooks.app.inject({ method, url: `/api/v1${url}`, headers: { authorization: `Bearer ${apiKey}` } });

    /** Runs the webhook jobs with their dead-job handler, the clock jumping past every backoff, until none is left. */
    const exhaust = async () => {
      let now = Date.now();
      const worker = new Worker({
        database,
        handlers: webhookJobHandlers({ masterKey: hooks.config.masterKey, clock: () => new Date() }),
        deadJobHandlers: webhookDeadJobHandlers(() => new Date(now)),
        types: [PROCESS_EVENT_JOB],
        logger: pino({ level: 'info' }, { write: (line: string) => void logLines.push(line) }),
        clock: () => new Date(now),
      });
      for (let run = 0; run < 30 && (await worker.runOnce()) + run >= 0; run++) now += 2 * HOUR;
    };
    /** A refund of a pix that was never paid: every attempt fails, and its job dies. */
    const deadRefund = async () => {
      const gatewayId = await pix();
      const refund = await bank('pix.refunded', {
        gateway_id: gatewayId,
        amount: 10_000,
        refund_id: `rf-${randomUUID()}`,
      });
      await exhaust();
      return { gatewayId, refund };
    };

    let first: { gatewayId: string; refund: number };

    test('a job out of attempts fails its event, with a log line and the metric', async () => {
      first = await deadRefund();
      const stored = await event(first.refund);
      assert.equal(stored.status, 'failed');
      assert.ok(stored.failed_at);
      assert.equal(stored.attempts, 10);
      assert.match(stored.last_error ?? '', /not paid|before|paid/i);
      const line = logLines.map((text) => JSON.parse(text)).find((entry) => entry.webhookEventId === first.refund);
      assert.ok(line, 'a log line names the failed event');
      assert.equal(line.level, 50);
      assert.match(line.msg, /webhook event failed/);

      const metrics = await hooks.app.inject({ method: 'GET', url: '/metrics' });
      assert.match(metrics.body, /^webhook_events_failed 1$/m);
    });

    test('the merchant lists its failed events; another account sees none of them and gets 404', async () => {
      const listed = await api('GET', '/webhook_events?status=failed');
      assert.equal(listed.statusCode, 200, listed.body);
      const body = listed.json();
      assert.equal(body.meta.total_count, 1);
      assert.equal(body.data[0].id, first.refund);
      assert.equal(body.data[0].status, 'failed');
      assert.equal(body.data[0].event_type, 'pix.refunded');

      const others = await api('GET', '/webhook_events?status=failed', hooks.other.apiKey);
      assert.equal(others.json().meta.total_count, 0);
      assert.equal((await api('GET', `/webhook_events/${first.refund}`, hooks.other.apiKey)).statusCode, 404);
      const foreignReplay = await api('POST', `/webhook_events/${first.refund}/replay`, hooks.other.apiKey);
      assert.equal(foreignReplay.statusCode, 404);
      assert.equal(foreignReplay.json().code, 'not_found');
      assert.equal((await event(first.refund)).status, 'failed');

      const bad = await api('GET', '/webhook_events?status=lost');
      assert.equal(bad.statusCode, 422);
      assert.equal((await api('GET', '/webhook_events?status=failed', 'ck_wrong')).statusCode, 401);
    });

    test('once its payment is paid, a replay applies the refund exactly once; a second replay is 409', async () => {
      await bank('pix.received', { gateway_id: first.gatewayId, amount: 10_000, paid_at: new Date().toISOString() });
      await runWebhookJobs(database, { masterKey: hooks.config.masterKey });

      const replay = await api('POST', `/webhook_events/${first.refund}/replay`);
      assert.equal(replay.statusCode, 200, replay.body);
      assert.deepEqual([replay.json().replayed, replay.json().event.status], [true, 'received']);
      const again = await api('POST', `/webhook_events/${first.refund}/replay`);
      assert.deepEqual([again.statusCode, again.json().replayed], [200, false], 'already queued');

      await runWebhookJobs(database, { masterKey: hooks.config.masterKey });
      assert.equal((await event(first.refund)).status, 'processed');
      const payment = await database.db
        .selectFrom('payments')
        .select(['id', 'status', 'refunded_cents'])
        .where('gateway_id', '=', first.gatewayId)
        .executeTakeFirstOrThrow();
      assert.deepEqual([payment.status, payment.refunded_cents], ['refunded', 10_000]);
      const refunds = await database.db
        .selectFrom('refunds')
        .select('id')
        .where('payment_id', '=', payment.id)
        .execute();
      assert.equal(refunds.length, 1);

      const applied = await api('POST', `/webhook_events/${first.refund}/replay`);
      assert.equal(applied.statusCode, 409);
      assert.equal(applied.json().code, 'conflict');
      const metrics = await hooks.app.inject({ method: 'GET', url: '/metrics' });
      assert.match(metrics.body, /^webhook_events_failed 0$/m);
    });

    test('the CLI lists failed events and replays them all', async () => {
      const second = await deadRefund();
      const context = { db: database.db, now: new Date() };
      const listed = (await runWebhooksCommand(['failed', '--account', hooks.merchant.slug], context)) as Array<{
        id: number;
        account: string;
      }>;
      assert.deepEqual(
        listed.map((row) => [row.id, row.account]),
        [[second.refund, hooks.merchant.slug]],
      );
      assert.deepEqual(await runWebhooksCommand(['failed', '--account', hooks.other.slug], context), []);
      await assert.rejects(runWebhooksCommand(['replay'], context), WebhookUsageError);
      await assert.rejects(runWebhooksCommand(['replay', 'abc'], context), WebhookUsageError);

      assert.deepEqual(
        await runWebhooksCommand(['replay', '--all-failed', '--account', hooks.merchant.slug], context),
        {
          replayed: [second.refund],
        },
      );
      assert.equal((await event(second.refund)).status, 'received');
      assert.deepEqual(await runWebhooksCommand(['failed'], context), []);
    });
  });
}
