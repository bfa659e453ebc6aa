import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pino } from 'pino';
import type { Database } from '../../../src/db/database.ts';
import { createGateway } from '../../../src/gateways/registry.ts';
import type { Worker } from '../../../src/jobs/worker.ts';
import { usePayGatewayClients } from '../../../src/modules/payments/attempts/pay-gateways.ts';
import { reconcilePayment } from '../../../src/modules/payments/attempts/payment-jobs.service.ts';
import { RECONCILE_WINDOW_MS } from '../../../src/modules/payments/attempts/reconcile-timing.ts';
import { RENEWAL_RECHECK_MS } from '../../../src/modules/payments/subscriptions/subscription-attempt.ts';
import { renewSubscription } from '../../../src/modules/payments/subscriptions/subscription-renewal.ts';
import { createWorker } from '../../../src/runtime.ts';
import { engines } from '../../support/engines.ts';
import { ORIGIN, tokenA, type Merchant, type PayApp, usePayMerchant } from '../../support/pay-fixtures.ts';
import { sandboxGatewayUrls } from '../../../src/gateways/sandbox/server.ts';

/** The sandboxes' late-approval card: charged after the hold (2 s here), when the client (1 s) has given up. */
const APPROVED_LATE = '4000000000000267';
const MINUTE = 60_000;
const DAY = 86_400_000;

/**
 * A renewal whose charge call got no answer has an unknown outcome: it is never charged again under a new
 * uid. Real sandboxes over HTTP; the worker (or the job) on a controllable clock.
 */
for (const engine of engines()) {
  describe(`card renewals whose outcome is unknown on ${engine.name}`, { timeout: 180_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;
    let now = new Date();
    let worker: Worker;

    usePayMerchant(engine, async (setup) => {
      ({ database, pay, merchant } = setup);
      worker = createWorker(database, pino({ level: 'silent' }), {
        masterKey: pay.config.masterKey,
        gatewayUrls: urls(),
        clock: () => now,
        notifications: { publicUrl: pay.config.publicUrl, allowPrivateNetworks: false },
      });
    });

    const urls = () => sandboxGatewayUrls(pay.sandboxes);
    const deps = () => ({ masterKey: pay.config.masterKey, gatewayUrls: urls() });
    const unreachable = () => ({
      masterKey: pay.config.masterKey,
      gatewayUrls: { gateway_a: 'http://127.0.0.1:9/gateway_a' },
    });

    /** A monthly subscription paid with `card`; the pay request waits long enough for a late approval. */
    const subscribe = async (card: string, email: string) => {
      const previous = usePayGatewayClients((name) => createGateway(name, { timeoutMs: 5_000 }));
      try {
        const res = await pay.app.inject({
          method: 'POST',
          url: '/api/v1/payments',
          headers: ORIGIN,
          payload: {
            checkout_page_id: merchant.pageId,
            products: [{ id: merchant.subscriptionProductId, quantity: 1 }],
            customer_email: email,
            payment_plan_id: `${merchant.cardPlanId}-1`,
            credit_card_0_token: await tokenA(pay.sandboxes, card),
          },
        });
        assert.equal(res.statusCode, 200, res.body);
      } finally {
        usePayGatewayClients(previous);
      }
      const payment = await database.db
        .selectFrom('payments')
        .select('order_id')
        .where('account_id', '=', merchant.accountId)
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      return database.db
        .selectFrom('subscriptions')
        .selectAll()
        .where('origin_order_id', '=', payment.order_id)
        .executeTakeFirstOrThrow();
    };
    const subscription = (id: string) =>
      database.db.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const renewals = (originOrderId: number) =>
      database.db
        .selectFrom('orders as o')
        .innerJoin('payments as p', 'p.order_id', 'o.id')
        .select(['o.id', 'o.status', 'p.id as paymentId', 'p.uid', 'p.status as paymentStatus', 'p.gateway_id'])
        .where('o.parent_order_id', '=', originOrderId)
        .where('o.source', '=', 'subscription')
        .orderBy('p.id')
        .execute();
    const ledger = async () =>
      (
        (await (await fetch(`${pay.sandboxes.baseUrlFor('gateway_a')}/sandbox/charges`)).json()) as {
          data: Array<{ id: string; state: string; metadata: Record<string, string> }>;
        }
      ).data;
    const chargesOf = async (paymentUid: string) =>
      (await ledger()).filter((charge) => charge.metadata.payment_uid === paymentUid);
    const lateChargeOf = async (paymentUid: string) => {
      for (let tries = 0; tries < 100; tries++) {
        const [charge] = await chargesOf(paymentUid);
        if (charge) return charge;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error('the sandbox never recorded the late charge');
    };
    const drain = async () => {
      for (let runs = 0; runs < 50; runs++) if ((await worker.runOnce()) === 0) return;
      throw new Error('the worker did not go idle');
    };

    test('late approval: the timed-out renewal is not a failure; reconciliation finds the charge and the period renews; nothing is charged again', async () => {
      const sub = await subscribe(APPROVED_LATE, 'late@example.com');
      const due = new Date(sub.next_charge_at!.getTime() + 1_000);
      now = due;
      await drain();
      let state = await subscription(sub.id);
      const [renewal] = await renewals(sub.origin_order_id);
      assert.deepEqual(
        {
          status: state.status,
          failed: state.failed_attempts,
          renewalOrder: state.renewal_order_id,
          nextAt: state.next_charge_at?.getTime(),
        },
        { status: 'active', failed: 0, renewalOrder: renewal!.id, nextAt: due.getTime() + RENEWAL_RECHECK_MS },
      );
      assert.deepEqual([renewal!.status, renewal!.paymentStatus], ['pending', 'pending']);
      const charge = await lateChargeOf(renewal!.uid);

      now = new Date(due.getTime() + 2 * MINUTE + 1_000);
      await drain(); // payments.reconcile finds the charge; payments.release_paid_order renews the period
      state = await subscription(sub.id);
      assert.deepEqual(
        {
          status: state.status,
          failed: state.failed_attempts,
          renewalOrder: state.renewal_order_id,
          start: state.current_period_start.getTime(),
        },
        { status: 'active', failed: 0, renewalOrder: null, start: sub.current_period_end.getTime() },
      );
      assert.ok(state.next_charge_at! > new Date(due.getTime() + 20 * DAY), 'the next renewal is a period away');
      const released = await database.db
        .selectFrom('order_events')
        .select('data')
        .where('order_id', '=', renewal!.id)
        .where('type', '=', 'order.released')
        .executeTakeFirstOrThrow();
      assert.deepEqual(released.data, { subscription_started: false, subscription_renewed: true });

      for (const later of [RENEWAL_RECHECK_MS + 1_000, DAY + 1_000, 5 * DAY]) {
        now = new Date(due.getTime() + later);
        await drain();
      }
      const all = await renewals(sub.origin_order_id);
      assert.deepEqual(
        all.map((row) => [row.status, row.paymentStatus, row.gateway_id]),
        [['paid', 'paid', charge.id]],
      );
      assert.equal((await chargesOf(renewal!.uid)).length, 1, 'charged once');
    });

    test('late approval, looked at again before reconciliation ran: the renewal looks the charge up itself and renews', async () => {
      const sub = await subscribe(APPROVED_LATE, 'late2@example.com');
      const due = new Date(sub.next_charge_at!.getTime() + 1_000);
      assert.equal(
        await renewSubscription(database.db, deps(), { accountId: merchant.accountId, subscriptionId: sub.id }, due),
        'awaiting',
      );
      const [renewal] = await renewals(sub.origin_order_id);
      const charge = await lateChargeOf(renewal!.uid);
      const recheck = new Date(due.getTime() + RENEWAL_RECHECK_MS);
      assert.equal(
        await renewSubscription(
          database.db,
          deps(),
          { accountId: merchant.accountId, subscriptionId: sub.id },
          recheck,
        ),
        'renewed',
      );
      assert.deepEqual(
        (await renewals(sub.origin_order_id)).map((row) => [row.paymentStatus, row.gateway_id]),
        [['paid', charge.id]],
      );
      assert.equal((await subscription(sub.id)).current_period_start.getTime(), sub.current_period_end.getTime());
      assert.equal((await chargesOf(renewal!.uid)).length, 1);
    });

    test('no answer and no charge at the gateway: looked at again, the same payment is submitted under the same uid and charged once', async () => {
      const sub = await subscribe('4111111111111111', 'unreachable@example.com');
      const due = new Date(sub.next_charge_at!.getTime() + 1_000);
      const ref = { accountId: merchant.accountId, subscriptionId: sub.id };
      assert.equal(await renewSubscription(database.db, unreachable(), ref, due), 'awaiting');
      assert.equal(
        await renewSubscription(database.db, deps(), ref, new Date(due.getTime() + MINUTE)),
        'skipped',
        'not before its re-check',
      );
      assert.equal(
        await renewSubscription(database.db, deps(), ref, new Date(due.getTime() + RENEWAL_RECHECK_MS)),
        'renewed',
      );
      const all = await renewals(sub.origin_order_id);
      assert.equal(all.length, 1, 'one renewal order and payment');
      assert.equal((await chargesOf(all[0]!.uid)).length, 1, 'charged once, under the first uid');
      assert.equal((await subscription(sub.id)).failed_attempts, 0);
    });

    test('no answer, and reconciliation finds no charge after its window: then it is a failure, retried a day later under a new uid', async () => {
      const sub = await subscribe('4111111111111111', 'never@example.com');
      const due = new Date(sub.next_charge_at!.getTime() + 1_000);
      const ref = { accountId: merchant.accountId, subscriptionId: sub.id };
      assert.equal(await renewSubscription(database.db, unreachable(), ref, due), 'awaiting');
      const [first] = await renewals(sub.origin_order_id);
      assert.equal(
        await reconcilePayment(
          database.db,
          deps(),
          { accountId: merchant.accountId, paymentId: first!.paymentId },
          new Date(due.getTime() + RECONCILE_WINDOW_MS + 1_000),
        ),
        'failed',
      );
      const recheck = new Date(due.getTime() + RENEWAL_RECHECK_MS);
      assert.equal(await renewSubscription(database.db, deps(), ref, recheck), 'failed');
      const state = await subscription(sub.id);
      assert.deepEqual(
        {
          status: state.status,
          failed: state.failed_attempts,
          renewalOrder: state.renewal_order_id,
          nextAt: state.next_charge_at?.getTime(),
        },
        { status: 'past_due', failed: 1, renewalOrder: null, nextAt: recheck.getTime() + DAY },
      );
      assert.equal(await renewSubscription(database.db, deps(), ref, new Date(recheck.getTime() + DAY)), 'renewed');
      const all = await renewals(sub.origin_order_id);
      assert.deepEqual(
        all.map((row) => row.paymentStatus),
        ['failed', 'paid'],
      );
      assert.equal((await chargesOf(all[0]!.uid)).length, 0, 'the first uid was never charged');
      assert.equal((await chargesOf(all[1]!.uid)).length, 1);
    });
  });
}
