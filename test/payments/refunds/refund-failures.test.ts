import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../../src/db/database.ts';
import type { GatewayName } from '../../../src/gateways/port.ts';
import { sandboxGatewayUrls } from '../../../src/gateways/sandbox/server.ts';
import { paymentJobHandlers } from '../../../src/modules/payments/payments.jobs.ts';
import {
  RECONCILE_REFUND_JOB,
  reconcileRefundKey,
  UNANSWERED_REFUND_DELAY_MS,
} from '../../../src/modules/payments/refunds/refund-reconciliation.ts';
import { STALE_RESERVATION_MS } from '../../../src/modules/payments/refunds/refund-recording.ts';
import { engines } from '../../support/engines.ts';
import {
  cardPagesByGateway,
  orderEventsOf,
  type Merchant,
  type PayApp,
  usePayMerchant,
} from '../../support/pay-fixtures.ts';
import { paidByCard, remoteStatus } from './refund-fixtures.ts';

/**
 * Refund failures come from the real sandboxes over HTTP: the `next_refund` sandbox action makes a charge's
 * next refund call refuse (422), fail (500), hold until the client gives up (504) without refunding, or refund
 * and then hold (the answer lost), once.
 */
for (const engine of engines()) {
  describe(`refund failures from the gateway sandboxes on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;
    let pages: Record<GatewayName, string>;

    usePayMerchant(engine, async (setup) => {
      ({ database, pay, merchant } = setup);
      pages = await cardPagesByGateway(database, merchant);
    });

    const deps = () => ({ masterKey: pay.config.masterKey, gatewayUrls: sandboxGatewayUrls(pay.sandboxes) });
    const paidOn = (gateway: GatewayName) => paidByCard(pay, database, merchant, pages[gateway], gateway);
    const arm = async (gateway: GatewayName, gatewayId: string, behaviour: string) => {
      const res = await fetch(`${pay.sandboxes.baseUrlFor(gateway)}/sandbox/charges/${gatewayId}/next_refund`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ behaviour }),
      });
      assert.equal(res.status, 200, await res.text());
    };
    const refund = (paymentId: number, payload: Record<string, unknown>) =>
      pay.app.inject({
        method: 'POST',
        url: `/api/v1/payments/${paymentId}/refund`,
        headers: { authorization: `Bearer ${merchant.apiKey}` },
        payload,
      });
    const payment = (id: number) =>
      database.db
        .selectFrom('payments')
        .select(['status', 'refunded_cents'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
    const order = (uid: string) =>
      database.db
        .selectFrom('orders')
        .select(['status', 'refunded_cents'])
        .where('uid', '=', uid)
        .executeTakeFirstOrThrow();
    const refundRows = (paymentId: number) =>
      database.db
        .selectFrom('refunds')
        .select(['status', 'amount_cents', 'gateway_refund_id'])
        .where('payment_id', '=', paymentId)
        .orderBy('id')
        .execute();

    for (const gateway of ['gateway_a', 'gateway_b', 'gateway_c'] as const) {
      test(`${gateway}: a refusal (422) and an acquirer error (502) record nothing and leave the refundable balance; the retry succeeds`, async () => {
        const paid = await paidOn(gateway);
        const cases = [
          ['refuse', 422, 'business_rule_violation', /refused the refund/],
          ['error', 502, 'gateway_error', /nothing was refunded/],
        ] as const;
        for (const [behaviour, status, code, message] of cases) {
          await arm(gateway, paid.gatewayId, behaviour);
          const res = await refund(paid.paymentId, { amount: 10 });
          assert.equal(res.statusCode, status, `${behaviour}: ${res.body}`);
          assert.equal(res.json().code, code);
          assert.match(res.json().message, message);
          assert.equal(typeof res.json().request_id, 'string');
          assert.deepEqual(await payment(paid.paymentId), { status: 'paid', refunded_cents: 0 }, behaviour);
          assert.deepEqual(await order(paid.orderUid), { status: 'paid', refunded_cents: 0 }, behaviour);
          assert.equal(await remoteStatus(pay, gateway, paid.gatewayId), 'paid', behaviour);
        }
        assert.deepEqual(
          (await refundRows(paid.paymentId)).map((row) => [row.status, row.gateway_refund_id]),
          [
            ['failed', null],
            ['failed', null],
          ],
        );
        const failures = (await orderEventsOf(database, paid.orderUid)).filter(
          (event) => event.type === 'refund.failed',
        );
        assert.equal(failures.length, 2);

        // The whole amount is still refundable, and the next call (nothing armed) goes through.
        const retry = await refund(paid.paymentId, { amount: 10 });
        assert.equal(retry.statusCode, 200, retry.body);
        assert.deepEqual(await payment(paid.paymentId), { status: 'partially_refunded', refunded_cents: 1_000 });
        assert.deepEqual(await order(paid.orderUid), { status: 'partially_refunded', refunded_cents: 1_000 });
        assert.equal(await remoteStatus(pay, gateway, paid.gatewayId), 'partially_refunded');
        const rest = await refund(paid.paymentId, {});
        assert.equal(rest.statusCode, 200, rest.body);
        assert.deepEqual(await payment(paid.paymentId), { status: 'refunded', refunded_cents: 10_000 });
        const succeeded = (await refundRows(paid.paymentId)).filter((row) => row.status === 'succeeded');
        assert.deepEqual(
          succeeded.map((row) => row.amount_cents),
          [1_000, 9_000],
        );
      });

      test(`${gateway}: a refund call that times out keeps its amount reserved until the job it queues learns the outcome a minute later: released when the gateway made none, recorded once when it did`, async () => {
        const paid = await paidOn(gateway);
        /** Runs the job the timeout queued (a minute after it) through the worker's handler; returns the refund's status after it. */
        const runUnansweredJob = async (uid: string) => {
          const job = await database.db
            .selectFrom('jobs')
            .select(['run_at', 'payload'])
            .where('dedup_key', '=', reconcileRefundKey(uid, 'unanswered'))
            .executeTakeFirstOrThrow();
          const row = await database.db
            .selectFrom('refunds')
            .select('created_at')
            .where('uid', '=', uid)
            .executeTakeFirstOrThrow();
          assert.ok(
            job.run_at.getTime() - row.created_at.getTime() >= UNANSWERED_REFUND_DELAY_MS,
            'asked a minute after the timeout',
          );
          assert.ok(
            job.run_at.getTime() - row.created_at.getTime() < STALE_RESERVATION_MS,
            'well before the reservation is stale',
          );
          const handlers = paymentJobHandlers({ ...deps(), clock: () => job.run_at });
          await handlers[RECONCILE_REFUND_JOB]!(
            { id: 0, type: RECONCILE_REFUND_JOB, payload: job.payload, accountId: merchant.accountId, attempts: 1 },
            { database },
          );
          return (
            await database.db.selectFrom('refunds').select('status').where('uid', '=', uid).executeTakeFirstOrThrow()
          ).status;
        };
        const timedOut = async (behaviour: 'timeout' | 'late', amount: number) => {
          await arm(gateway, paid.gatewayId, behaviour);
          const res = await refund(paid.paymentId, { amount });
          assert.equal(res.statusCode, 504, `${behaviour}: ${res.body}`);
          assert.equal(res.json().code, 'gateway_timeout');
          assert.match(res.json().message, /outcome is unknown, so the amount stays reserved/);
          const row = await database.db
            .selectFrom('refunds')
            .select(['uid', 'status', 'amount_cents'])
            .where('payment_id', '=', paid.paymentId)
            .orderBy('id', 'desc')
            .executeTakeFirstOrThrow();
          assert.deepEqual(
            { status: row.status, amount_cents: row.amount_cents },
            { status: 'pending', amount_cents: amount * 100 },
            behaviour,
          );
          return row.uid;
        };

        // Nothing refunded at the gateway: the 10.00 stays reserved, so only the other 90.00 can be refunded meanwhile.
        const unknownNone = await timedOut('timeout', 10);
        assert.deepEqual(await payment(paid.paymentId), { status: 'paid', refunded_cents: 1_000 });
        assert.equal(
          (await refund(paid.paymentId, { amount: 90.01 })).statusCode,
          422,
          'the reserved amount cannot be refunded a second time',
        );
        const events = (await orderEventsOf(database, paid.orderUid)).filter(
          (event) => event.type === 'refund.outcome_unknown',
        );
        assert.equal(events.length, 1);
        assert.equal(await remoteStatus(pay, gateway, paid.gatewayId), 'paid');
        assert.equal(await runUnansweredJob(unknownNone), 'failed');
        assert.deepEqual(
          await payment(paid.paymentId),
          { status: 'paid', refunded_cents: 0 },
          'released once the gateway says it made no refund',
        );

        // Refunded at the gateway, the answer lost: a retry of the rest cannot take the total past what was captured.
        const unknownMade = await timedOut('late', 30);
        assert.equal(await remoteStatus(pay, gateway, paid.gatewayId), 'partially_refunded', 'the gateway did refund');
        assert.equal((await refund(paid.paymentId, { amount: 70.01 })).statusCode, 422);
        const rest = await refund(paid.paymentId, {});
        assert.equal(rest.statusCode, 200, rest.body);
        assert.deepEqual(await payment(paid.paymentId), { status: 'partially_refunded', refunded_cents: 10_000 });
        assert.equal(
          await remoteStatus(pay, gateway, paid.gatewayId),
          'refunded',
          'the gateway refunded exactly the captured amount',
        );
        assert.equal(await runUnansweredJob(unknownMade), 'succeeded');
        assert.deepEqual(await payment(paid.paymentId), { status: 'refunded', refunded_cents: 10_000 });
        assert.deepEqual(await order(paid.orderUid), { status: 'refunded', refunded_cents: 10_000 });
        const rows = await refundRows(paid.paymentId);
        assert.deepEqual(
          rows.map((row) => [row.status, row.amount_cents]),
          [
            ['failed', 1_000],
            ['succeeded', 3_000],
            ['succeeded', 7_000],
          ],
        );
        assert.equal(new Set(rows.flatMap((row) => (row.gateway_refund_id ? [row.gateway_refund_id] : []))).size, 2);
        assert.equal(
          (await orderEventsOf(database, paid.orderUid)).filter((event) => event.type === 'refund.succeeded').length,
          2,
        );
      });
    }

    test('the next_refund action refuses an unknown behaviour and an unknown charge', async () => {
      const paid = await paidOn('gateway_a');
      const bad = await fetch(
        `${pay.sandboxes.baseUrlFor('gateway_a')}/sandbox/charges/${paid.gatewayId}/next_refund`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ behaviour: 'explode' }),
        },
      );
      assert.equal(bad.status, 422);
      const unknown = await fetch(`${pay.sandboxes.baseUrlFor('gateway_a')}/sandbox/charges/ch_unknown/next_refund`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ behaviour: 'refuse' }),
      });
      assert.equal(unknown.status, 404);
      assert.equal((await refund(paid.paymentId, { amount: 5 })).statusCode, 200);
    });
  });
}
