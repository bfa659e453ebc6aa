import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { Database } from '../../../src/db/database.ts';
import { createGateway } from '../../../src/gateways/registry.ts';
import {
  applyPaymentAction,
  DisputeBeforePaymentError,
} from '../../../src/modules/payments/attempts/gateway-actions.ts';
import { VOID_ORPHAN_JOB, VOID_SUPERSEDED_JOB } from '../../../src/modules/payments/attempts/orphan-capture.ts';
import { bearer } from '../../support/app.ts';
import { engines } from '../../support/engines.ts';
import { payAtSandbox, runQueuedJobs } from '../../support/pay-jobs.ts';
import {
  insertCart,
  insertCharge,
  insertPage,
  KEYS,
  ORIGIN,
  paymentsOfOrderUid,
  tokenA,
  type Merchant,
  type PayApp,
  usePayMerchant,
} from '../../support/pay-fixtures.ts';

/**
 * An order moves by the money it keeps: a chargeback gives its payment back (the order is refunded, which ends its
 * subscription and its upsell offer), a refunded overpayment leaves the order paid, and a partly paid charge stays
 * payable after part of what it received was refunded.
 */
for (const engine of engines()) {
  describe(`orders after money went back on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;

    usePayMerchant(engine, (setup) => ({ database, pay, merchant } = setup));

    const post = (url: string, payload: Record<string, unknown>, headers: Record<string, string> = ORIGIN) =>
      pay.app.inject({ method: 'POST', url: `/api/v1${url}`, headers, payload });
    const refund = (paymentId: number, payload: Record<string, unknown> = {}) =>
      post(`/payments/${paymentId}/refund`, payload, bearer(merchant.apiKey));
    const orderRow = (id: number) =>
      database.db
        .selectFrom('orders')
        .select(['status', 'paid_cents', 'refunded_cents'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
    const dispute = (gatewayId: string, amountCents: number) =>
      applyPaymentAction(database.db, {
        gateway: 'gateway_a',
        action: { kind: 'payment_disputed', gatewayId, disputeId: `dp_${randomUUID()}`, amountCents },
        accountId: merchant.accountId,
        at: new Date(),
      });

    test('a chargeback refunds the order: its subscription is cancelled and its upsell offer refused', async () => {
      const pageId = await insertPage(database.db, merchant, {
        products: [merchant.subscriptionProductId],
        plans: [merchant.cardPlanId],
        upsellProductId: merchant.upsellProductId,
      });
      const paid = await post('/payments', {
        checkout_page_id: pageId,
        products: [{ id: merchant.subscriptionProductId, quantity: 1 }],
        customer_email: 'dispute@example.com',
        payment_plan_id: `${merchant.cardPlanId}-1`,
        credit_card_0_token: await tokenA(pay.sandboxes),
      });
      assert.equal(paid.statusCode, 200, paid.body);
      assert.equal(paid.json().is_subscription, true);
      const card = await database.db
        .selectFrom('payments')
        .select(['id', 'order_id', 'amount_cents'])
        .where('gateway_id', '=', paid.json().payments[0])
        .executeTakeFirstOrThrow();

      assert.deepEqual(await dispute(paid.json().payments[0], card.amount_cents), {
        applied: true,
        paymentId: card.id,
      });
      assert.deepEqual(await orderRow(card.order_id), { status: 'refunded', paid_cents: 4_990, refunded_cents: 4_990 });
      const subscription = await database.db
        .selectFrom('subscriptions')
        .select('status')
        .where('origin_order_id', '=', card.order_id)
        .executeTakeFirstOrThrow();
      assert.equal(subscription.status, 'cancelled');
      const upsell = await pay.app.inject({
        method: 'POST',
        url: '/api/v1/upsell',
        headers: { origin: 'https://anywhere.example' },
        payload: { offer: paid.json().offer },
      });
      assert.equal(upsell.statusCode, 422, upsell.body);
      // A repeated dispute changes nothing.
      assert.equal((await dispute(paid.json().payments[0], card.amount_cents)).applied, false);
    });

    test('a chargeback whose payment is not recorded paid yet waits for it (the event is retried)', async () => {
      const pix = await post('/payments', {
        checkout_page_id: merchant.pageId,
        products: [{ id: merchant.productId, quantity: 1 }],
        customer_email: 'early-dispute@example.com',
        payment_plan_id: `${merchant.pixPlanId}-1`,
      });
      assert.equal(pix.statusCode, 200, pix.body);
      await assert.rejects(dispute(pix.json().payments[0], 10_000), DisputeBeforePaymentError);
    });

    test('refunding an overpayment (a charge’s pix paid after its card) leaves the order paid', async () => {
      const charge = await insertCharge(database, merchant);
      assert.equal(
        (await post(`/charges/${charge.uid}/pay`, { payment_plan_id: `${merchant.pixPlanId}-1` })).statusCode,
        200,
      );
      const card = await post(`/charges/${charge.uid}/pay`, {
        payment_plan_id: `${merchant.cardPlanId}-1`,
        credit_card_0_token: await tokenA(pay.sandboxes),
      });
      assert.equal(card.json().status, 'paid', card.body);
      const [pix] = await paymentsOfOrderUid(database, charge.uid);
      assert.equal(await payAtSandbox(pay, pix!.gateway_id!), 200);
      // The supersede job finds it paid and records it: an overpayment on a paid order.
      assert.equal(await runQueuedJobs(database, pay, merchant.accountId, VOID_SUPERSEDED_JOB), 1);
      assert.equal((await paymentsOfOrderUid(database, charge.uid))[0]!.status, 'paid');

      const res = await refund(pix!.id);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(await orderRow(charge.id), { status: 'paid', paid_cents: 10_000, refunded_cents: 0 });
      // Refunding the card too gives the order's own money back.
      const cardPayment = (await paymentsOfOrderUid(database, charge.uid))[1]!;
      assert.equal((await refund(cardPayment.id)).statusCode, 200);
      assert.deepEqual(await orderRow(charge.id), { status: 'refunded', paid_cents: 10_000, refunded_cents: 10_000 });
    });

    test('an overpayment voided by the orphan job, then the card refunded in full: the order is refunded', async () => {
      const charge = await insertCharge(database, merchant);
      assert.equal(
        (await post(`/charges/${charge.uid}/pay`, { payment_plan_id: `${merchant.pixPlanId}-1` })).statusCode,
        200,
      );
      assert.equal(
        (
          await post(`/charges/${charge.uid}/pay`, {
            payment_plan_id: `${merchant.cardPlanId}-1`,
            credit_card_0_token: await tokenA(pay.sandboxes),
          })
        ).json().status,
        'paid',
      );
      const [pix, card] = await paymentsOfOrderUid(database, charge.uid);
      assert.equal(await payAtSandbox(pay, pix!.gateway_id!), 200);
      await runQueuedJobs(database, pay, merchant.accountId, VOID_SUPERSEDED_JOB, [pix!.id]);
      assert.equal(await runQueuedJobs(database, pay, merchant.accountId, VOID_ORPHAN_JOB, [pix!.id]), 1);
      assert.equal((await refund(card!.id)).statusCode, 200);
      assert.deepEqual(await orderRow(charge.id), { status: 'refunded', paid_cents: 10_000, refunded_cents: 10_000 });
    });

    test('refunding money captured on a cart order never paid (the cart bought by another) changes nothing on that order', async () => {
      const cartId = await insertCart(database, merchant);
      assert.equal(
        (await post(`/carts/${cartId}/pay`, { payment_plan_id: `${merchant.pixPlanId}-1` })).statusCode,
        200,
      );
      assert.equal(
        (
          await post(`/carts/${cartId}/pay`, {
            payment_plan_id: `${merchant.cardPlanId}-1`,
            credit_card_0_token: await tokenA(pay.sandboxes),
          })
        ).statusCode,
        200,
      );
      const pix = await database.db
        .selectFrom('payments as p')
        .innerJoin('orders as o', 'o.id', 'p.order_id')
        .select(['p.id', 'p.order_id', 'p.gateway_id'])
        .where('o.cart_id', '=', cartId)
        .where('p.method', '=', 'pix')
        .executeTakeFirstOrThrow();
      assert.equal(await payAtSandbox(pay, pix.gateway_id!), 200);
      await runQueuedJobs(database, pay, merchant.accountId, VOID_SUPERSEDED_JOB, [pix.id]);
      const res = await refund(pix.id);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(await orderRow(pix.order_id), { status: 'waiting_payment', paid_cents: 0, refunded_cents: 0 });
      // Its orphan void then finds the money already given back, and skips it.
      await runQueuedJobs(database, pay, merchant.accountId, VOID_ORPHAN_JOB, [pix.id]);
    });

    test('a partly paid charge refunded in part stays partly paid: the buyer pays the rest, refund included', async () => {
      const account = {
        baseUrl: pay.sandboxes.baseUrlFor('gateway_a'),
        publicKey: KEYS.gateway_a.publicKey,
        secretKey: KEYS.gateway_a.secretKey,
      };
      const elsewhere = await createGateway('gateway_a', { timeoutMs: 5_000 }).chargeCard(account, {
        amountCents: 4_000,
        installments: 1,
        cardToken: await tokenA(pay.sandboxes),
        saveForLater: false,
        buyer: { name: 'Balance Buyer', email: 'balance@example.com' },
        description: 'advance',
        metadata: { companyId: merchant.companyId, orderUid: randomUUID(), paymentUid: randomUUID() },
        idempotencyKey: randomUUID(),
      });
      const created = await post(
        '/orders',
        {
          customer: { email: 'balance@example.com', name: 'Balance Buyer' },
          items: [{ product_id: merchant.productId, quantity: 1 }],
          payments: [{ gateway: 'gateway_a', gateway_id: elsewhere.gatewayId, type: 'credit_card', amount: 40 }],
        },
        bearer(merchant.apiKey),
      );
      assert.equal(created.statusCode, 201, created.body);
      const order = created.json() as { id: number; uid: string };
      const [advance] = await paymentsOfOrderUid(database, order.uid);
      assert.equal((await refund(advance!.id, { amount: 10 })).statusCode, 200);
      assert.deepEqual(await orderRow(order.id), {
        status: 'partially_paid',
        paid_cents: 4_000,
        refunded_cents: 1_000,
      });

      const plans = await pay.app.inject({ url: `/api/v1/payment_plans?charge_id=${order.uid}`, headers: ORIGIN });
      assert.equal(plans.json().credit_card[0].value, 70);
      const rest = await post(`/charges/${order.uid}/pay`, {
        payment_plan_id: `${merchant.cardPlanId}-1`,
        credit_card_0_token: await tokenA(pay.sandboxes),
      });
      assert.equal(rest.statusCode, 200, rest.body);
      assert.equal((await orderRow(order.id)).status, 'paid');
    });

    test('a pix the gateway reports expired cancels its checkout order, as the expiry job would', async () => {
      const pix = await post('/payments', {
        checkout_page_id: merchant.pageId,
        products: [{ id: merchant.productId, quantity: 1 }],
        customer_email: 'lapsed@example.com',
        payment_plan_id: `${merchant.pixPlanId}-1`,
      });
      const payment = await database.db
        .selectFrom('payments')
        .select(['id', 'order_id'])
        .where('gateway_id', '=', pix.json().payments[0])
        .executeTakeFirstOrThrow();
      const applied = await applyPaymentAction(database.db, {
        gateway: 'gateway_a',
        action: { kind: 'payment_expired', gatewayId: pix.json().payments[0] },
        accountId: merchant.accountId,
        at: new Date(),
      });
      assert.deepEqual(applied, { applied: true, paymentId: payment.id });
      assert.equal((await orderRow(payment.order_id)).status, 'cancelled');
    });
  });
}
