import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import type { Worker } from '../../src/jobs/worker.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { PROCESS_EVENT_JOB } from '../../src/modules/webhooks/webhooks.service.ts';
import { createWorker } from '../../src/runtime.ts';
import { engines } from '../support/engines.ts';
import { ORIGIN } from '../support/pay-fixtures.ts';
import { basic, startWebhookApp, waitFor, type WebhookApp } from '../support/webhooks-fixtures.ts';

const EVENTS = 200;
const REFUND_CENTS = 50;

/**
 * A burst of events about one payment (its paid event, then 199 partial refunds) is applied in order, each
 * exactly once, by two workers as `serve` and `worker` run them. Waiting for an earlier event of the payment spends no attempt,
 * so no job retries with backoff and none can run out of attempts however long the burst.
 */
for (const engine of engines()) {
  describe(`a burst of events about one payment on ${engine.name}`, { timeout: 300_000 }, () => {
    let database: Database;
    let hooks: WebhookApp;
    let workers: Worker[] = [];

    before(async () => {
      database = await engine.open();
      hooks = await startWebhookApp(database);
    });
    after(async () => {
      await Promise.all(workers.map((worker) => worker.stop()));
      await hooks.close();
      await database.close();
    });

    const bank = async (type: string, data: Record<string, unknown>) => {
      const res = await hooks.app.inject({
        method: 'POST',
        url: `/api/v1/webhooks/${hooks.merchant.companyId}/bank`,
        headers: {
          'content-type': 'application/json',
          ...basic(hooks.credentials.bank.username, hooks.credentials.bank.password),
        },
        payload: JSON.stringify({ id: `bank-${randomUUID()}`, type, data }),
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().status, 'received');
    };

    test(`${EVENTS} events about one payment are each applied exactly once, with one job attempt each`, async () => {
      const payment = await hooks.app.inject({
        method: 'POST',
        url: '/api/v1/payments',
        headers: ORIGIN,
        payload: {
          checkout_page_id: hooks.merchant.pageId,
          products: [{ id: hooks.merchant.productId, quantity: 1 }],
          customer_email: 'burst@example.com',
          payment_plan_id: `${hooks.merchant.pixPlanId}-1`,
        },
      });
      assert.equal(payment.statusCode, 200, payment.body);
      const gatewayId = payment.json().payments[0] as string;

      await bank('pix.received', { gateway_id: gatewayId, amount: 10_000, paid_at: new Date().toISOString() });
      const refundIds = Array.from({ length: EVENTS - 1 }, () => `rf-${randomUUID()}`);
      // The whole burst is acknowledged before two workers (as in two processes) apply it.
      for (let i = 0; i < refundIds.length; i += 10)
        await Promise.all(
          refundIds
            .slice(i, i + 10)
            .map((refundId) =>
              bank('pix.refunded', { gateway_id: gatewayId, amount: REFUND_CENTS, refund_id: refundId }),
            ),
        );
      const deps = {
        masterKey: hooks.config.masterKey,
        gatewayUrls: hooks.sandboxes.urls,
        clock: () => new Date(),
        notifications: { publicUrl: hooks.config.publicUrl, allowPrivateNetworks: true },
      };
      workers = [
        createWorker(database, createLogger('silent'), deps),
        createWorker(database, createLogger('silent'), deps),
      ];
      for (const worker of workers) worker.start();

      const events = () =>
        database.db
          .selectFrom('webhook_events')
          .select(['id', 'status', 'attempts'])
          .where('payment_ref', '=', gatewayId)
          .execute();
      const liveJobs = () =>
        database.db
          .selectFrom('jobs')
          .select('id')
          .where('type', '=', PROCESS_EVENT_JOB)
          .where('status', 'in', ['queued', 'running'])
          .execute();
      // Every event applied, and every job finished (a job whose event a previous job applied finds it done).
      await waitFor(async () => {
        const rows = await events();
        const applied = rows.length === EVENTS && rows.every((row) => row.status !== 'received');
        return applied && (await liveJobs()).length === 0 ? true : undefined;
      }, 240_000);
      await Promise.all(workers.map((worker) => worker.stop()));
      workers = [];

      const rows = await events();
      const jobs = await database.db
        .selectFrom('jobs')
        .select(['status', 'attempts'])
        .where(
          'dedup_key',
          'in',
          rows.map((row) => `${PROCESS_EVENT_JOB}:${row.id}`),
        )
        .execute();
      const paymentRow = await database.db
        .selectFrom('payments')
        .select(['id', 'status', 'refunded_cents'])
        .where('gateway_id', '=', gatewayId)
        .executeTakeFirstOrThrow();
      const refunds = await database.db
        .selectFrom('refunds')
        .select(['gateway_refund_id', 'amount_cents'])
        .where('payment_id', '=', paymentRow.id)
        .execute();
      assert.deepEqual(
        {
          statuses: [...new Set(rows.map((row) => row.status))],
          failedAttempts: rows.reduce((sum, row) => sum + row.attempts, 0),
          jobs: jobs.length,
          jobStatuses: [...new Set(jobs.map((job) => job.status))],
          jobAttempts: [...new Set(jobs.map((job) => job.attempts))],
          refunds: refunds.length,
          distinctRefunds: new Set(refunds.map((refund) => refund.gateway_refund_id)).size,
          refundedCents: paymentRow.refunded_cents,
          paymentStatus: paymentRow.status,
        },
        {
          statuses: ['processed'],
          failedAttempts: 0,
          jobs: EVENTS,
          jobStatuses: ['done'],
          jobAttempts: [1],
          refunds: EVENTS - 1,
          distinctRefunds: EVENTS - 1,
          refundedCents: (EVENTS - 1) * REFUND_CENTS,
          paymentStatus: 'partially_refunded',
        },
      );
    });
  });
}
