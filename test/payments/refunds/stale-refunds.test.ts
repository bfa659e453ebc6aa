import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../../src/db/database.ts';
import type { GatewayName } from '../../../src/gateways/port.ts';
import { paymentJobHandlers } from '../../../src/modules/payments/payments.jobs.ts';
import {
  RECONCILE_REFUND_JOB,
  reconcileStaleRefund,
  refundReference,
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
import { installRefundDeath, paidByCard, refundThatDies as dyingRefund } from './refund-fixtures.ts';
import { sandboxGatewayUrls } from '../../../src/gateways/sandbox/server.ts';

/**
 * A refund request that dies between its reservation and its commit or release leaves a pending refund
 * holding its amount. The request "dies" here because the database refuses every update of `refunds` (a
 * trigger) while it runs; the gateways are the real sandboxes over HTTP, and the reconciliation job asks
 * them for the refund by the reference it was made under.
 */
for (const engine of engines()) {
  describe(`stale pending refunds reconciled with the gateway on ${engine.name}`, { timeout: 180_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;
    let pages: Record<GatewayName, string>;

    usePayMerchant(engine, async (setup) => {
      ({ database, pay, merchant } = setup);
      pages = await cardPagesByGateway(database, merchant);
      await installRefundDeath(database);
    });

    const deps = () => ({ masterKey: pay.config.masterKey, gatewayUrls: sandboxGatewayUrls(pay.sandboxes) });
    const paidOn = (gateway: GatewayName) => paidByCard(pay, database, merchant, pages[gateway], gateway);
    const refund = (paymentId: number, payload: Record<string, unknown>) =>
      pay.app.inject({
        method: 'POST',
        url: `/api/v1/payments/${paymentId}/refund`,
        headers: { authorization: `Bearer ${merchant.apiKey}` },
        payload,
      });
    const refundThatDies = (paymentId: number, amount: number) =>
      dyingRefund(pay, database, merchant, paymentId, amount);
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
    const ledger = async (gateway: GatewayName, gatewayId: string) => {
      const { data } = (await (await fetch(`${pay.sandboxes.baseUrlFor(gateway)}/sandbox/charges`)).json()) as {
        data: Array<{ id: string; refunds: Array<{ id: string; amount_cents: number; reference: string | null }> }>;
      };
      return data.find((charge) => charge.id === gatewayId)!;
    };
    const staleAt = (createdAt: Date) => new Date(createdAt.getTime() + STALE_RESERVATION_MS + 1_000);

    for (const gateway of ['gateway_a', 'gateway_b', 'gateway_c'] as const) {
      test(`${gateway}: a refund the gateway made for a request that died is found by its reference and recorded once`, async () => {
        const paid = await paidOn(gateway);
        const pending = await refundThatDies(paid.paymentId, 30);
        assert.deepEqual(
          await payment(paid.paymentId),
          { status: 'paid', refunded_cents: 3_000 },
          'the amount stays reserved',
        );
        const [made] = (await ledger(gateway, paid.gatewayId)).refunds;
        assert.deepEqual(
          { amount: made!.amount_cents, reference: made!.reference },
          { amount: 3_000, reference: refundReference(pending.uid) },
        );

        const job = await database.db
          .selectFrom('jobs')
          .select(['run_at', 'payload'])
          .where('dedup_key', '=', `${RECONCILE_REFUND_JOB}:${pending.uid}`)
          .executeTakeFirstOrThrow();
        assert.equal(job.run_at.getTime(), pending.created_at.getTime() + STALE_RESERVATION_MS);
        assert.deepEqual(job.payload, { account_id: merchant.accountId, refund_uid: pending.uid });

        const ref = { accountId: merchant.accountId, refundUid: pending.uid };
        assert.equal(
          await reconcileStaleRefund(database.db, deps(), ref, new Date(pending.created_at.getTime() + 60_000)),
          'not_stale',
        );
        assert.equal(await reconcileStaleRefund(database.db, deps(), ref, staleAt(pending.created_at)), 'succeeded');
        const settled = await database.db
          .selectFrom('refunds')
          .select(['status', 'gateway_refund_id'])
          .where('uid', '=', pending.uid)
          .executeTakeFirstOrThrow();
        assert.deepEqual(settled, { status: 'succeeded', gateway_refund_id: made!.id });
        assert.deepEqual(await payment(paid.paymentId), { status: 'partially_refunded', refunded_cents: 3_000 });
        assert.deepEqual(await order(paid.orderUid), { status: 'partially_refunded', refunded_cents: 3_000 });
        assert.equal(
          (await orderEventsOf(database, paid.orderUid)).filter((event) => event.type === 'refund.succeeded').length,
          1,
        );
        assert.equal(
          await reconcileStaleRefund(database.db, deps(), ref, staleAt(pending.created_at)),
          'skipped',
          'settled: nothing more',
        );

        // The rest is refundable, and no more than the rest.
        assert.equal((await refund(paid.paymentId, { amount: 70.01 })).statusCode, 422);
        assert.equal((await refund(paid.paymentId, {})).statusCode, 200);
        assert.deepEqual(await payment(paid.paymentId), { status: 'refunded', refunded_cents: 10_000 });
      });
    }

    test("a refund the gateway never made (its call failed, and the request died before releasing it) is failed and its amount released, by the worker's job", async () => {
      const paid = await paidOn('gateway_a');
      const armed = await fetch(
        `${pay.sandboxes.baseUrlFor('gateway_a')}/sandbox/charges/${paid.gatewayId}/next_refund`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ behaviour: 'error' }),
        },
      );
      assert.equal(armed.status, 200);
      const pending = await refundThatDies(paid.paymentId, 10);
      assert.deepEqual(await payment(paid.paymentId), { status: 'paid', refunded_cents: 1_000 });
      assert.deepEqual((await ledger('gateway_a', paid.gatewayId)).refunds, []);

      const unreachable = {
        masterKey: pay.config.masterKey,
        gatewayUrls: { gateway_a: 'http://127.0.0.1:9/gateway_a' },
      };
      await assert.rejects(
        reconcileStaleRefund(
          database.db,
          unreachable,
          { accountId: merchant.accountId, refundUid: pending.uid },
          staleAt(pending.created_at),
        ),
        { name: 'GatewayUnavailableError' },
      );
      assert.deepEqual(
        await payment(paid.paymentId),
        { status: 'paid', refunded_cents: 1_000 },
        'nothing is settled on a guess',
      );

      const handlers = paymentJobHandlers({ ...deps(), clock: () => staleAt(pending.created_at) });
      const job = {
        id: 0,
        type: RECONCILE_REFUND_JOB,
        payload: { account_id: merchant.accountId, refund_uid: pending.uid },
        accountId: merchant.accountId,
        attempts: 1,
      };
      await handlers[RECONCILE_REFUND_JOB]!(job, { database });
      assert.equal(
        (
          await database.db
            .selectFrom('refunds')
            .select('status')
            .where('uid', '=', pending.uid)
            .executeTakeFirstOrThrow()
        ).status,
        'failed',
      );
      assert.deepEqual(
        await payment(paid.paymentId),
        { status: 'paid', refunded_cents: 0 },
        'the reservation is given back',
      );
      const failures = (await orderEventsOf(database, paid.orderUid)).filter((event) => event.type === 'refund.failed');
      assert.equal(failures.length, 1);
      assert.match(failures[0]!.cause, /gateway has no refund/);
      assert.equal((await refund(paid.paymentId, {})).statusCode, 200, 'the whole amount is refundable again');
      assert.deepEqual(await payment(paid.paymentId), { status: 'refunded', refunded_cents: 10_000 });
    });
  });
}
