import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Database } from '../../src/db/database.ts';
import { webhookJobHandlers } from '../../src/modules/webhooks/webhook-jobs.ts';
import { PROCESS_EVENT_JOB } from '../../src/modules/webhooks/webhooks.service.ts';
import { engines } from '../support/engines.ts';
import { ORIGIN } from '../support/pay-fixtures.ts';
import { basic, startWebhookApp, waitFor, type WebhookApp } from '../support/webhooks-fixtures.ts';

/**
 * The effect of an inbound event and the record that it was processed commit together. Failures are
 * injected in the database itself (a trigger that raises on one statement), never by replacing our code.
 */
for (const engine of engines()) {
  describe(`webhook effects and their processed mark in one transaction on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let hooks: WebhookApp;

    before(async () => {
      database = await engine.open();
      hooks = await startWebhookApp(database);
      await sql`CREATE FUNCTION test_injected_failure() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected failure'; END $$`.execute(database.db);
    });
    after(async () => {
      await hooks.close();
      await database.close();
    });

    const payPix = async () => {
      const res = await hooks.app.inject({ method: 'POST', url: '/api/v1/payments', headers: ORIGIN, payload: { checkout_page_id: hooks.merchant.pageId, products: [{ id: hooks.merchant.productId, quantity: 1 }], customer_email: 'once@example.com', payment_plan_id: `${hooks.merchant.pixPlanId}-1` } });
      assert.equal(res.statusCode, 200, res.body);
      const gatewayId = res.json().payments[0] as string;
      const row = await database.db.selectFrom('payments').select(['id', 'order_id']).where('gateway_id', '=', gatewayId).executeTakeFirstOrThrow();
      return { gatewayId, paymentId: row.id, orderId: row.order_id };
    };
    const confirm = async (gatewayId: string) => {
      const res = await fetch(`${hooks.sandboxes.urls.gateway_a}/sandbox/charges/${gatewayId}/confirm`, { method: 'POST' });
      assert.equal(res.status, 200);
      return ((await res.json()) as { webhook: { event_id: string } }).webhook.event_id;
    };
    const failedOnce = (eventId: string) =>
      waitFor(async () => {
        const row = await database.db.selectFrom('webhook_events').selectAll().where('external_event_id', '=', eventId).executeTakeFirst();
        return row && row.attempts > 0 ? row : undefined;
      });
    const statuses = async (paymentId: number) =>
      database.db.selectFrom('payments as p').innerJoin('orders as o', 'o.id', 'p.order_id').select(['p.status as payment', 'o.status as order', 'o.paid_cents']).where('p.id', '=', paymentId).executeTakeFirstOrThrow();
    const paidEvents = async (orderId: number) =>
      (await database.db.selectFrom('order_events').select(['type', 'to_status']).where('order_id', '=', orderId).where('to_status', '=', 'paid').execute()).map((event) => event.type).sort();
    const runJob = async (eventRowId: number) => {
      const job = await database.db.selectFrom('jobs').selectAll().where('type', '=', PROCESS_EVENT_JOB).where('dedup_key', '=', `${PROCESS_EVENT_JOB}:${eventRowId}`).executeTakeFirstOrThrow();
      await webhookJobHandlers()[PROCESS_EVENT_JOB]!({ id: job.id, type: job.type, payload: job.payload, accountId: job.account_id, attempts: 1 }, { database });
    };

    test('a failure on the processed mark (the last statement) rolls the whole effect back; the retry applies it exactly once', async () => {
      const pix = await payPix();
      await sql`CREATE TRIGGER test_fail_mark BEFORE UPDATE ON webhook_events FOR EACH ROW
        WHEN (NEW.status = 'processed' AND NEW.payload -> 'data' ->> 'id' = ${sql.lit(pix.gatewayId)}) EXECUTE FUNCTION test_injected_failure()`.execute(database.db);
      let eventRow;
      try {
        const eventId = await confirm(pix.gatewayId);
        eventRow = await failedOnce(eventId);
      } finally {
        await sql`DROP TRIGGER test_fail_mark ON webhook_events`.execute(database.db);
      }
      assert.equal(eventRow.status, 'received');
      assert.match(eventRow.last_error ?? '', /injected failure/);
      // The payment's and the order's transitions were written before the mark, and rolled back with it.
      assert.deepEqual(await statuses(pix.paymentId), { payment: 'waiting_payment', order: 'waiting_payment', paid_cents: 0 });
      assert.deepEqual(await paidEvents(pix.orderId), []);

      await runJob(eventRow.id);
      assert.deepEqual(await statuses(pix.paymentId), { payment: 'paid', order: 'paid', paid_cents: 10_000 });
      assert.deepEqual(await paidEvents(pix.orderId), ['order.status_changed', 'payment.status_changed']);
      const processed = await database.db.selectFrom('webhook_events').select(['status', 'processed_at']).where('id', '=', eventRow.id).executeTakeFirstOrThrow();
      assert.equal(processed.status, 'processed');
      assert.ok(processed.processed_at);

      // Another run of the job and another delivery of the same event change nothing.
      await runJob(eventRow.id);
      const again = await hooks.app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: { ...basic(hooks.credentials.gatewayA.username, hooks.credentials.gatewayA.password), 'content-type': 'application/json' }, payload: JSON.stringify(eventRow.payload) });
      assert.deepEqual(again.json(), { status: 'duplicate' });
      assert.deepEqual(await paidEvents(pix.orderId), ['order.status_changed', 'payment.status_changed']);
    });

    test('a failure in the middle of the effect (the order transition) rolls back the payment transition before it; the retry applies once', async () => {
      const pix = await payPix();
      await sql`CREATE TRIGGER test_fail_order_paid BEFORE INSERT ON order_events FOR EACH ROW
        WHEN (NEW.order_id = ${sql.lit(pix.orderId)} AND NEW.type = 'order.status_changed' AND NEW.to_status = 'paid') EXECUTE FUNCTION test_injected_failure()`.execute(database.db);
      let eventRow;
      try {
        eventRow = await failedOnce(await confirm(pix.gatewayId));
      } finally {
        await sql`DROP TRIGGER test_fail_order_paid ON order_events`.execute(database.db);
      }
      assert.equal(eventRow.status, 'received');
      assert.equal(eventRow.attempts, 1);
      assert.deepEqual(await statuses(pix.paymentId), { payment: 'waiting_payment', order: 'waiting_payment', paid_cents: 0 });
      assert.deepEqual(await paidEvents(pix.orderId), []);
      const releases = await database.db.selectFrom('jobs').select('id').where('type', '=', 'payments.release_paid_order').where('dedup_key', '=', `payments.release_paid_order:${pix.orderId}`).execute();
      assert.equal(releases.length, 0, 'nothing the effect enqueues survives the rollback');

      await runJob(eventRow.id);
      await runJob(eventRow.id);
      assert.deepEqual(await statuses(pix.paymentId), { payment: 'paid', order: 'paid', paid_cents: 10_000 });
      assert.deepEqual(await paidEvents(pix.orderId), ['order.status_changed', 'payment.status_changed']);
      assert.equal((await database.db.selectFrom('webhook_events').select('status').where('id', '=', eventRow.id).executeTakeFirstOrThrow()).status, 'processed');
    });

    test('the request and the retry job racing on one event apply it once', async () => {
      const pix = await payPix();
      const eventId = await confirm(pix.gatewayId);
      const stored = await waitFor(() => database.db.selectFrom('webhook_events').selectAll().where('external_event_id', '=', eventId).executeTakeFirst());
      // Whatever the request did, several concurrent job runs on the same event leave one effect.
      await Promise.all([runJob(stored.id), runJob(stored.id), runJob(stored.id)]);
      await waitFor(async () => ((await statuses(pix.paymentId)).order === 'paid' ? true : undefined));
      assert.deepEqual(await paidEvents(pix.orderId), ['order.status_changed', 'payment.status_changed']);
    });
  });
}
