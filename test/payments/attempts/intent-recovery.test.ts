import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../../src/db/database.ts';
import { createGateway } from '../../../src/gateways/registry.ts';
import { quoteOption } from '../../../src/modules/payment-plans/payment-plans.service.ts';
import { checkoutPageContext } from '../../../src/modules/payments/checkout/pay-context.ts';
import { recordIntent, type Intent } from '../../../src/modules/payments/checkout/pay-intent.ts';
import { recoverIntent } from '../../../src/modules/payments/attempts/payment-jobs.service.ts';
import { RECONCILE_WINDOW_MS } from '../../../src/modules/payments/attempts/reconcile-timing.ts';
import { RECOVER_INTENT_JOB } from '../../../src/modules/payments/attempts/payment-record.ts';
import { engines } from '../../support/engines.ts';
import { CARDS, KEYS, ORIGIN, tokenA, type Merchant, type PayApp, usePayMerchant } from '../../support/pay-fixtures.ts';

/**
 * A process that dies between recording a payment's intent and recording the gateway's answer leaves a
 * pending payment nothing else looks at; the intent's recovery job finds it again, through the real
 * sandboxes. The death is played by recording the intent and calling the gateway as the pay flow does,
 * then recording nothing.
 */
for (const engine of engines()) {
  describe(`payments.recover_intent on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;

    usePayMerchant(engine, (setup) => ({ database, pay, merchant } = setup));

    const deps = () => ({
      masterKey: pay.config.masterKey,
      gatewayUrls: { gateway_a: pay.sandboxes.baseUrlFor('gateway_a') },
    });
    const ref = (paymentId: number) => ({ accountId: merchant.accountId, paymentId });
    const state = (paymentId: number) =>
      database.db
        .selectFrom('payments as p')
        .innerJoin('orders as o', 'o.id', 'p.order_id')
        .select(['p.status', 'p.gateway_id', 'o.status as orderStatus'])
        .where('p.id', '=', paymentId)
        .executeTakeFirstOrThrow();

    /** The pay flow up to its intent, as a process would leave it if it died right after. */
    async function orphanedIntent(email: string): Promise<Intent> {
      const now = new Date();
      const context = await checkoutPageContext(
        database.db,
        merchant.pageId,
        { products: [{ id: merchant.productId, quantity: 1 }] },
        { email },
      );
      const quote = await quoteOption(database.db, context.query, `${merchant.cardPlanId}-1`, now);
      return recordIntent(database.db, {
        context,
        quote,
        cards: [],
        gateway: 'gateway_a',
        masterKey: pay.config.masterKey,
        timeZone: 'America/Sao_Paulo',
        now,
        extras: {},
      });
    }

    /** The charge call the dead process had already sent: same metadata and idempotency key as the pay flow's. */
    async function chargeSentBeforeDying(intent: Intent): Promise<string> {
      const payment = intent.payments[0]!;
      const outcome = await createGateway('gateway_a', { timeoutMs: 2_000 }).chargeCard(
        { baseUrl: pay.sandboxes.baseUrlFor('gateway_a'), ...KEYS.gateway_a },
        {
          amountCents: payment.amountCents,
          installments: 1,
          cardToken: await tokenA(pay.sandboxes),
          saveForLater: false,
          buyer: { name: 'Ana', email: intent.customer.email },
          description: 'order',
          metadata: { companyId: merchant.companyId, orderUid: intent.orderUid, paymentUid: payment.uid },
          idempotencyKey: `pay:${payment.uid}`,
        },
      );
      assert.equal(outcome.status, 'paid');
      return outcome.gatewayId;
    }

    test('every intent carries its recovery job; an answered payment is skipped by it', async () => {
      const res = await pay.app.inject({
        method: 'POST',
        url: '/api/v1/payments',
        headers: ORIGIN,
        payload: {
          checkout_page_id: merchant.pageId,
          products: [{ id: merchant.productId, quantity: 1 }],
          customer_email: 'answered@example.com',
          payment_plan_id: `${merchant.cardPlanId}-1`,
          credit_card_0_token: await tokenA(pay.sandboxes),
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      const payment = await database.db
        .selectFrom('payments')
        .select(['id', 'created_at'])
        .where('gateway_id', '=', res.json().payments[0])
        .executeTakeFirstOrThrow();
      const job = await database.db
        .selectFrom('jobs')
        .select(['type', 'run_at', 'status'])
        .where('dedup_key', '=', `${RECOVER_INTENT_JOB}:${payment.id}`)
        .executeTakeFirstOrThrow();
      assert.equal(job.type, RECOVER_INTENT_JOB);
      assert.equal(job.status, 'queued');
      assert.ok(job.run_at.getTime() - payment.created_at.getTime() >= 60_000, 'it waits well past the gateway call');
      assert.equal(await recoverIntent(database.db, deps(), ref(payment.id), new Date()), 'skipped');
      assert.deepEqual(await state(payment.id), {
        status: 'paid',
        gateway_id: res.json().payments[0],
        orderStatus: 'paid',
      });
    });

    test('a payment left pending by a timeout is left to its own reconciliation', async () => {
      const res = await pay.app.inject({
        method: 'POST',
        url: '/api/v1/payments',
        headers: ORIGIN,
        payload: {
          checkout_page_id: merchant.pageId,
          products: [{ id: merchant.productId, quantity: 1 }],
          customer_email: 'timeout@example.com',
          payment_plan_id: `${merchant.cardPlanId}-1`,
          credit_card_0_token: await tokenA(pay.sandboxes, CARDS.gatewayTimeout),
        },
      });
      assert.equal(res.statusCode, 504, res.body);
      const payment = await database.db
        .selectFrom('payments as p')
        .innerJoin('orders as o', 'o.id', 'p.order_id')
        .innerJoin('customers as c', 'c.id', 'o.customer_id')
        .select('p.id')
        .where('c.email', '=', 'timeout@example.com')
        .executeTakeFirstOrThrow();
      assert.equal(await recoverIntent(database.db, deps(), ref(payment.id), new Date()), 'skipped');
      assert.equal((await state(payment.id)).status, 'pending');
    });

    test('an orphan whose charge went through is found by its reference and paid', async () => {
      const intent = await orphanedIntent('orphan-paid@example.com');
      const gatewayId = await chargeSentBeforeDying(intent);
      const paymentId = intent.payments[0]!.id;
      assert.deepEqual(await state(paymentId), { status: 'pending', gateway_id: null, orderStatus: 'pending' });
      assert.equal(await recoverIntent(database.db, deps(), ref(paymentId), new Date()), 'paid');
      assert.deepEqual(await state(paymentId), { status: 'paid', gateway_id: gatewayId, orderStatus: 'paid' });
      assert.equal(await recoverIntent(database.db, deps(), ref(paymentId), new Date()), 'skipped');
    });

    test('an orphan the gateway never saw stays pending within the window, then is failed and its order freed', async () => {
      const intent = await orphanedIntent('orphan-unsent@example.com');
      const paymentId = intent.payments[0]!.id;
      assert.equal(await recoverIntent(database.db, deps(), ref(paymentId), new Date()), 'pending');
      assert.equal((await state(paymentId)).status, 'pending');
      const late = new Date(Date.now() + RECONCILE_WINDOW_MS + 60_000);
      assert.equal(await recoverIntent(database.db, deps(), ref(paymentId), late), 'failed');
      assert.deepEqual(await state(paymentId), { status: 'failed', gateway_id: null, orderStatus: 'pending' });
    });
  });
}
