import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Database } from '../../src/db/database.ts';
import { webhookJobHandlers } from '../../src/modules/webhooks/webhook-jobs.ts';
import { PROCESS_EVENT_JOB } from '../../src/modules/webhooks/webhooks.service.ts';
import { engines } from '../support/engines.ts';
import { ORIGIN } from '../support/pay-fixtures.ts';
import { basic, runWebhookJobs, startWebhookApp, waitFor, type WebhookApp } from '../support/webhooks-fixtures.ts';

/**
 * The effect of an inbound event and the record that it was processed commit together, in the worker's
 * job; a failure is retried by that job. Failures are injected in the database itself (a trigger that
 * raises on one statement), never by replacing our code.
 */
for (const engine of engines()) {
  describe(
    `webhook effects and their processed mark in one transaction on ${engine.name}`,
    { timeout: 120_000 },
    () => {
      let database: Database;
      let hooks: WebhookApp;

      before(async () => {
        database = await engine.open();
        hooks = await startWebhookApp(database);
        await sql`CREATE FUNCTION test_injected_failure() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected failure'; END $$`.execute(
          database.db,
        );
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
            customer_email: 'once@example.com',
            payment_plan_id: `${hooks.merchant.pixPlanId}-1`,
          },
        });
        assert.equal(res.statusCode, 200, res.body);
        const gatewayId = res.json().payments[0] as string;
        const row = await database.db
          .selectFrom('payments')
          .select(['id', 'order_id'])
          .where('gateway_id', '=', gatewayId)
          .executeTakeFirstOrThrow();
        return { gatewayId, paymentId: row.id, orderId: row.order_id };
      };
      const confirm = async (gatewayId: string) => {
        const res = await fetch(`${hooks.sandboxes.urls.gateway_a}/sandbox/charges/${gatewayId}/confirm`, {
          method: 'POST',
        });
        assert.equal(res.status, 200);
        return ((await res.json()) as { webhook: { event_id: string } }).webhook.event_id;
      };
      /** The sandbox's delivery, acknowledged (stored with its job) before anything is applied. */
      const delivered = (eventId: string) =>
        waitFor(() =>
          database.db
            .selectFrom('webhook_events')
            .selectAll()
            .where('external_event_id', '=', eventId)
            .executeTakeFirst(),
        );
      const eventRow = (id: number) =>
        database.db.selectFrom('webhook_events').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      const jobOf = (eventRowId: number) =>
        database.db
          .selectFrom('jobs')
          .selectAll()
          .where('type', '=', PROCESS_EVENT_JOB)
          .where('dedup_key', '=', `${PROCESS_EVENT_JOB}:${eventRowId}`)
          .executeTakeFirstOrThrow();
      /** The worker's clock an hour ahead: a retry scheduled with backoff is due. */
      const later = () => new Date(Date.now() + 60 * 60_000);
      const statuses = async (paymentId: number) =>
        database.db
          .selectFrom('payments as p')
          .innerJoin('orders as o', 'o.id', 'p.order_id')
          .select(['p.status as payment', 'o.status as order', 'o.paid_cents'])
          .where('p.id', '=', paymentId)
          .executeTakeFirstOrThrow();
      const paidEvents = async (orderId: number) =>
        (
          await database.db
            .selectFrom('order_events')
            .select(['type', 'to_status'])
            .where('order_id', '=', orderId)
            .where('to_status', '=', 'paid')
            .execute()
        )
          .map((event) => event.type)
          .sort();
      /** The job's handler run directly, outside any claim: what a second worker racing the first would do. */
      const runHandler = async (eventRowId: number) => {
        const job = await jobOf(eventRowId);
        await webhookJobHandlers({ masterKey: hooks.config.masterKey, clock: () => new Date() })[PROCESS_EVENT_JOB]!(
          { id: job.id, type: job.type, payload: job.payload, accountId: job.account_id, attempts: 1 },
          { database },
        );
      };
      /** The worker's first run of the event's job fails on the injected trigger; the job is queued again with backoff. */
      const failsOnce = async (eventRowId: number) => {
        await runWebhookJobs(database);
        const job = await jobOf(eventRowId);
        assert.deepEqual({ status: job.status, attempts: job.attempts }, { status: 'queued', attempts: 1 });
        assert.match(job.last_error ?? '', /injected failure/);
        assert.ok(job.run_at.getTime() > Date.now(), 'retried later, with backoff');
      };

      test('a failure on the processed mark (the last statement) rolls the whole effect back; the job’s retry applies it exactly once', async () => {
        const pix = await payPix();
        await sql`CREATE TRIGGER test_fail_mark BEFORE UPDATE ON webhook_events FOR EACH ROW
        WHEN (NEW.status = 'processed' AND NEW.payload -> 'data' ->> 'id' = ${sql.lit(pix.gatewayId)}) EXECUTE FUNCTION test_injected_failure()`.execute(
          database.db,
        );
        let stored;
        try {
          stored = await delivered(await confirm(pix.gatewayId));
          await failsOnce(stored.id);
        } finally {
          await sql`DROP TRIGGER test_fail_mark ON webhook_events`.execute(database.db);
        }
        const failed = await eventRow(stored.id);
        assert.deepEqual({ status: failed.status, attempts: failed.attempts }, { status: 'received', attempts: 1 });
        assert.match(failed.last_error ?? '', /injected failure/);
        // The payment's and the order's transitions were written before the mark, and rolled back with it.
        assert.deepEqual(await statuses(pix.paymentId), {
          payment: 'waiting_payment',
          order: 'waiting_payment',
          paid_cents: 0,
        });
        assert.deepEqual(await paidEvents(pix.orderId), []);

        await runWebhookJobs(database, { clock: later });
        assert.deepEqual(await statuses(pix.paymentId), { payment: 'paid', order: 'paid', paid_cents: 10_000 });
        assert.deepEqual(await paidEvents(pix.orderId), ['order.status_changed', 'payment.status_changed']);
        const processed = await eventRow(stored.id);
        assert.equal(processed.status, 'processed');
        assert.ok(processed.processed_at);
        assert.deepEqual(
          { status: (await jobOf(stored.id)).status, attempts: (await jobOf(stored.id)).attempts },
          { status: 'done', attempts: 2 },
        );

        // Another run of the job and another delivery of the same event change nothing.
        await runHandler(stored.id);
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
        await runWebhookJobs(database, { clock: later });
        assert.deepEqual(await paidEvents(pix.orderId), ['order.status_changed', 'payment.status_changed']);
      });

      test('a failure in the middle of the effect (the order transition) rolls back the payment transition before it; the job’s retry applies once', async () => {
        const pix = await payPix();
        await sql`CREATE TRIGGER test_fail_order_paid BEFORE INSERT ON order_events FOR EACH ROW
        WHEN (NEW.order_id = ${sql.lit(pix.orderId)} AND NEW.type = 'order.status_changed' AND NEW.to_status = 'paid') EXECUTE FUNCTION test_injected_failure()`.execute(
          database.db,
        );
        let stored;
        try {
          stored = await delivered(await confirm(pix.gatewayId));
          await failsOnce(stored.id);
        } finally {
          await sql`DROP TRIGGER test_fail_order_paid ON order_events`.execute(database.db);
        }
        const failed = await eventRow(stored.id);
        assert.deepEqual({ status: failed.status, attempts: failed.attempts }, { status: 'received', attempts: 1 });
        assert.deepEqual(await statuses(pix.paymentId), {
          payment: 'waiting_payment',
          order: 'waiting_payment',
          paid_cents: 0,
        });
        assert.deepEqual(await paidEvents(pix.orderId), []);
        const releases = await database.db
          .selectFrom('jobs')
          .select('id')
          .where('type', '=', 'payments.release_paid_order')
          .where('dedup_key', '=', `payments.release_paid_order:${pix.orderId}`)
          .execute();
        assert.equal(releases.length, 0, 'nothing the effect enqueues survives the rollback');

        await runWebhookJobs(database, { clock: later });
        await runHandler(stored.id);
        assert.deepEqual(await statuses(pix.paymentId), { payment: 'paid', order: 'paid', paid_cents: 10_000 });
        assert.deepEqual(await paidEvents(pix.orderId), ['order.status_changed', 'payment.status_changed']);
        assert.equal((await eventRow(stored.id)).status, 'processed');
      });

      test('several runs of the job racing on one event apply it once', async () => {
        const pix = await payPix();
        const stored = await delivered(await confirm(pix.gatewayId));
        assert.equal(stored.status, 'received');
        await Promise.all([
          runHandler(stored.id),
          runHandler(stored.id),
          runHandler(stored.id),
          runWebhookJobs(database),
        ]);
        assert.deepEqual(await statuses(pix.paymentId), { payment: 'paid', order: 'paid', paid_cents: 10_000 });
        assert.deepEqual(await paidEvents(pix.orderId), ['order.status_changed', 'payment.status_changed']);
      });
    },
  );
}
