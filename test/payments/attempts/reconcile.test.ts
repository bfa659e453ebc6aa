import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { Database } from '../../../src/db/database.ts';
import type { GatewayName } from '../../../src/gateways/port.ts';
import { RELEASE_PAID_ORDER_JOB } from '../../../src/modules/payments/settlement/paid-order-release.ts';
import { VOID_ORPHAN_JOB } from '../../../src/modules/payments/attempts/orphan-capture.ts';
import { reconcilePayment, voidOrphanCapture } from '../../../src/modules/payments/attempts/payment-jobs.service.ts';
import { RECONCILE_RETRY_MS, RECONCILE_WINDOW_MS } from '../../../src/modules/payments/attempts/reconcile-timing.ts';
import { signatureHeader } from '../../../src/gateways/gateway-b/index.ts';
import { engines } from '../../support/engines.ts';
import { runWebhookJobs, storeCredentials } from '../../support/webhooks-fixtures.ts';
import {
  cardFieldsFor,
  cardPagesByGateway,
  CARDS,
  insertPage,
  ORIGIN,
  tokenA,
  type Merchant,
  type PayApp,
  usePayMerchant,
} from '../../support/pay-fixtures.ts';
import { sandboxGatewayUrls } from '../../../src/gateways/sandbox/server.ts';

/** The sandboxes' late-approval card: the charge is approved after the hold, when the client has given up. */
const APPROVED_LATE = '4000000000000267';

/**
 * Reconciliation of a payment whose charge call timed out before the gateway's answer (no gateway id):
 * the charge is looked up at the gateway by our references, through the real sandboxes over HTTP.
 */
for (const engine of engines()) {
  describe(`payments.reconcile without a gateway id on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;
    let pages: Record<GatewayName, string>;

    usePayMerchant(engine, async (setup) => {
      ({ database, pay, merchant } = setup);
      pages = await cardPagesByGateway(database, merchant);
    });

    const deps = () => ({ masterKey: pay.config.masterKey, gatewayUrls: sandboxGatewayUrls(pay.sandboxes) });
    const cardFields = (gateway: GatewayName, number: string) =>
      cardFieldsFor(database, pay.sandboxes, merchant, gateway, number);
    /** Pays with `number`; the call times out (504) and leaves one pending payment without a gateway id. */
    const timedOut = async (gateway: GatewayName, number: string) => {
      const before = await database.db
        .selectFrom('payments')
        .select('id')
        .where('account_id', '=', merchant.accountId)
        .orderBy('id', 'desc')
        .executeTakeFirst();
      const res = await pay.app.inject({
        method: 'POST',
        url: '/api/v1/payments',
        headers: ORIGIN,
        payload: {
          checkout_page_id: pages[gateway],
          products: [{ id: merchant.productId, quantity: 1 }],
          customer_email: 'late@example.com',
          payment_plan_id: `${merchant.cardPlanId}-1`,
          ...(await cardFields(gateway, number)),
        },
      });
      assert.equal(res.statusCode, 504, res.body);
      assert.equal(res.json().code, 'gateway_timeout');
      const payment = await database.db
        .selectFrom('payments')
        .selectAll()
        .where('account_id', '=', merchant.accountId)
        .where('id', '>', before?.id ?? 0)
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        { status: payment.status, gatewayId: payment.gateway_id },
        { status: 'pending', gatewayId: null },
      );
      return payment;
    };
    const ledgerEntry = async (gateway: GatewayName, paymentUid: string) => {
      const res = await fetch(`${pay.sandboxes.baseUrlFor(gateway)}/sandbox/charges`);
      const { data } = (await res.json()) as {
        data: Array<{ id: string; state: string; metadata: Record<string, string> }>;
      };
      return data.find((charge) => charge.metadata.payment_uid === paymentUid);
    };
    const waitForLedger = async (gateway: GatewayName, paymentUid: string) => {
      for (let tries = 0; tries < 100; tries++) {
        const entry = await ledgerEntry(gateway, paymentUid);
        if (entry) return entry;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error('the sandbox never recorded the late charge');
    };
    const row = (id: number) =>
      database.db
        .selectFrom('payments as p')
        .innerJoin('orders as o', 'o.id', 'p.order_id')
        .select(['p.status', 'p.gateway_id', 'p.failure_code', 'o.status as order_status', 'o.id as order_id'])
        .where('p.id', '=', id)
        .executeTakeFirstOrThrow();
    const ref = (id: number) => ({ accountId: merchant.accountId, paymentId: id });

    for (const gateway of ['gateway_a', 'gateway_b', 'gateway_c'] as const) {
      test(`${gateway}: a capture the pay request never heard back from is found by its reference and paid, never failed`, async () => {
        const payment = await timedOut(gateway, APPROVED_LATE);
        const charge = await waitForLedger(gateway, payment.uid);
        assert.equal(charge.state, 'paid');
        assert.equal(await reconcilePayment(database.db, deps(), ref(payment.id), new Date()), 'paid');
        const after = await row(payment.id);
        assert.deepEqual(
          { status: after.status, gatewayId: after.gateway_id, order: after.order_status },
          { status: 'paid', gatewayId: charge.id, order: 'paid' },
        );
        const events = await database.db
          .selectFrom('order_events')
          .select(['type', 'data'])
          .where('payment_id', '=', payment.id)
          .where('type', '=', 'payment.reconciled')
          .execute();
        assert.equal(events.length, 1);
        assert.deepEqual(events[0]!.data, { gateway_id: charge.id, remote_status: 'paid' });
        // What the paid order unlocks is released by the worker, as for any later confirmation.
        assert.equal(
          (
            await database.db
              .selectFrom('jobs')
              .select('id')
              .where('dedup_key', '=', `${RELEASE_PAID_ORDER_JOB}:${after.order_id}`)
              .execute()
          ).length,
          1,
        );
        // A second run finds the payment settled.
        assert.equal(await reconcilePayment(database.db, deps(), ref(payment.id), new Date()), 'skipped');
      });
    }

    test('the timeout card (no charge at the gateway): pending and asked again while the window lasts, failed after it', async () => {
      const payment = await timedOut('gateway_a', CARDS.gatewayTimeout);
      const now = new Date();
      assert.equal(await reconcilePayment(database.db, deps(), ref(payment.id), now), 'pending');
      assert.equal((await row(payment.id)).status, 'pending');
      const again = await database.db
        .selectFrom('jobs')
        .select(['run_at', 'payload'])
        .where('type', '=', 'payments.reconcile')
        .where(
          'dedup_key',
          '=',
          `payments.reconcile:${payment.id}:${new Date(now.getTime() + RECONCILE_RETRY_MS).toISOString()}`,
        )
        .executeTakeFirstOrThrow();
      assert.equal(again.run_at.getTime(), now.getTime() + RECONCILE_RETRY_MS);
      assert.deepEqual(again.payload, { account_id: merchant.accountId, payment_id: payment.id });

      const afterWindow = new Date(payment.created_at.getTime() + RECONCILE_WINDOW_MS + 1_000);
      assert.equal(await reconcilePayment(database.db, deps(), ref(payment.id), afterWindow), 'failed');
      const failed = await row(payment.id);
      assert.deepEqual(
        { status: failed.status, code: failed.failure_code, gatewayId: failed.gateway_id },
        { status: 'failed', code: 'gateway_unavailable', gatewayId: null },
      );
    });

    test('a split card approved after the other failed is an orphan capture: voided at the gateway by its job, recorded refunded, the order stays payable', async () => {
      const splitPage = await insertPage(database.db, merchant, {
        products: [merchant.productId],
        plans: [merchant.cardPlanId],
        enableTwoCards: true,
      });
      const res = await pay.app.inject({
        method: 'POST',
        url: '/api/v1/payments',
        headers: ORIGIN,
        payload: {
          checkout_page_id: splitPage,
          products: [{ id: merchant.productId, quantity: 1 }],
          customer_email: 'orphan@example.com',
          payment_plan_id: `${merchant.cardPlanId}-1`,
          credit_card_0_token: await tokenA(pay.sandboxes, CARDS.approved),
          credit_card_0_amount: 60,
          credit_card_0_payment_plan: `${merchant.cardPlanId}-1`,
          credit_card_1_token: await tokenA(pay.sandboxes, APPROVED_LATE),
          credit_card_1_amount: 40,
          credit_card_1_payment_plan: `${merchant.cardPlanId}-1`,
        },
      });
      assert.equal(res.statusCode, 504, res.body);
      const [late, first] = await database.db
        .selectFrom('payments')
        .selectAll()
        .where('account_id', '=', merchant.accountId)
        .orderBy('id', 'desc')
        .limit(2)
        .execute();
      // The request voided the approved card at once; the late one was still unanswered, so nothing to void yet.
      assert.deepEqual([first!.status, late!.status], ['refunded', 'pending']);
      assert.equal(
        (
          await database.db
            .selectFrom('jobs')
            .select('id')
            .where('dedup_key', '=', `${VOID_ORPHAN_JOB}:${late!.id}`)
            .execute()
        ).length,
        0,
      );

      await waitForLedger('gateway_a', late!.uid);
      assert.equal(await reconcilePayment(database.db, deps(), ref(late!.id), new Date()), 'paid');
      assert.deepEqual(
        { status: (await row(late!.id)).status, order: (await row(late!.id)).order_status },
        { status: 'paid', order: 'pending' },
      );
      const job = await database.db
        .selectFrom('jobs')
        .select(['run_at', 'payload'])
        .where('dedup_key', '=', `${VOID_ORPHAN_JOB}:${late!.id}`)
        .executeTakeFirstOrThrow();
      assert.deepEqual(job.payload, { account_id: merchant.accountId, payment_id: late!.id });

      assert.equal(await voidOrphanCapture(database.db, deps(), ref(late!.id), new Date()), 'voided');
      const after = await row(late!.id);
      assert.deepEqual({ status: after.status, order: after.order_status }, { status: 'refunded', order: 'pending' });
      const charge = (await ledgerEntry('gateway_a', late!.uid)) as unknown as {
        amount_cents: number;
        refunded_cents: number;
      };
      assert.equal(charge.refunded_cents, charge.amount_cents); // the gateway's cancel of a captured charge refunds it in full
      // A second run (a duplicate job) finds nothing to do.
      assert.equal(await voidOrphanCapture(database.db, deps(), ref(late!.id), new Date()), 'skipped');
    });

    test('gateway_b: the paid event of a capture whose call timed out names our payment uid; it is applied at once, the gateway id learnt from it', async () => {
      const { gatewayB: secret } = await storeCredentials(database, pay.config, merchant);
      const payment = await timedOut('gateway_b', APPROVED_LATE);
      const charge = await waitForLedger('gateway_b', payment.uid);
      const now = Math.floor(Date.now() / 1000);
      const event = (intent: string, uid: string) =>
        JSON.stringify({
          id: `evt_${randomUUID().replaceAll('-', '')}`,
          object: 'event',
          created: now,
          type: 'payment_intent.succeeded',
          data: {
            object: {
              id: intent,
              object: 'payment_intent',
              amount: payment.amount_cents,
              amount_received: payment.amount_cents,
              status: 'succeeded',
              metadata: { company_id: String(merchant.companyId), payment_uid: uid },
            },
          },
        });
      const deliver = async (body: string) => {
        const res = await pay.app.inject({
          method: 'POST',
          url: `/api/v1/webhooks/${merchant.companyId}/gateway_b`,
          headers: { 'content-type': 'application/json', 'gateway-b-signature': signatureHeader(secret, body, now) },
          payload: body,
        });
        assert.equal(res.statusCode, 200, res.body);
        await runWebhookJobs(database);
      };
      // An event naming a uid that is not a payment waiting for its answer changes nothing.
      await deliver(event('pi_unknown_late', randomUUID()));
      assert.equal((await row(payment.id)).status, 'pending');
      await deliver(event(charge.id, payment.uid));
      const after = await row(payment.id);
      assert.deepEqual(
        { status: after.status, gatewayId: after.gateway_id, order: after.order_status },
        { status: 'paid', gatewayId: charge.id, order: 'paid' },
      );
      const learnt = await database.db
        .selectFrom('order_events')
        .select('cause')
        .where('payment_id', '=', payment.id)
        .where('type', '=', 'payment.reconciled')
        .execute();
      assert.equal(learnt.length, 1);
      assert.match(learnt[0]!.cause, /named the charge by our reference/);
      // Reconciliation, when its job runs, finds the payment settled.
      assert.equal(await reconcilePayment(database.db, deps(), ref(payment.id), new Date()), 'skipped');
    });

    test('a gateway that cannot be reached fails nothing: the job throws and the worker retries it', async () => {
      const payment = await timedOut('gateway_a', CARDS.gatewayTimeout);
      const unreachable = {
        masterKey: pay.config.masterKey,
        gatewayUrls: { gateway_a: 'http://127.0.0.1:9/gateway_a' },
      };
      const afterWindow = new Date(payment.created_at.getTime() + RECONCILE_WINDOW_MS + 1_000);
      await assert.rejects(reconcilePayment(database.db, unreachable, ref(payment.id), afterWindow), {
        name: 'GatewayUnavailableError',
      });
      assert.equal((await row(payment.id)).status, 'pending');
    });
  });
}
