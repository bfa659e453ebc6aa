import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../../src/db/database.ts';
import { paymentJobHandlers } from '../../../src/modules/payments/payments.jobs.ts';
import { applyPaymentAction } from '../../../src/modules/payments/attempts/gateway-actions.ts';
import { VOID_ORPHAN_JOB, VOID_SUPERSEDED_JOB } from '../../../src/modules/payments/attempts/orphan-capture.ts';
import { engines } from '../../support/engines.ts';
import { payAtSandbox, runQueuedJobs, sandboxChargeState } from '../../support/pay-jobs.ts';
import {
  CARDS,
  insertCart,
  ORIGIN,
  tokenA,
  type Merchant,
  type PayApp,
  usePayMerchant,
} from '../../support/pay-fixtures.ts';

/** A cart is one purchase: once paid it refuses another payment; until then (declined, pix unpaid) it can be paid. */
for (const engine of engines()) {
  describe(`a cart is paid once on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;

    usePayMerchant(engine, (setup) => ({ database, pay, merchant } = setup));

    const post = (path: string, payload: Record<string, unknown>) =>
      pay.app.inject({ method: 'POST', url: `/api/v1${path}`, headers: ORIGIN, payload });
    const ordersOf = (cartId: string) =>
      database.db.selectFrom('orders').select('status').where('cart_id', '=', cartId).orderBy('id').execute();

    test('a paid cart answers 422 to another payment and charges nothing', async () => {
      const cartId = await insertCart(database, merchant);
      const first = await post(`/carts/${cartId}/pay`, {
        payment_plan_id: `${merchant.cardPlanId}-1`,
        credit_card_0_token: await tokenA(pay.sandboxes),
      });
      assert.equal(first.statusCode, 200, first.body);
      assert.equal(first.json().order_status, 'paid');
      const again = await post(`/carts/${cartId}/pay`, {
        payment_plan_id: `${merchant.cardPlanId}-1`,
        credit_card_0_token: await tokenA(pay.sandboxes),
      });
      assert.equal(again.statusCode, 422, again.body);
      assert.match(again.json().message, /already paid/);
      const pix = await post(`/carts/${cartId}/pay`, { payment_plan_id: `${merchant.pixPlanId}-1` });
      assert.equal(pix.statusCode, 422, pix.body);
      assert.deepEqual(await ordersOf(cartId), [{ status: 'paid' }]);
    });

    test('a cart whose card was declined, or whose pix is unpaid, can still be paid', async () => {
      const cartId = await insertCart(database, merchant);
      const declined = await post(`/carts/${cartId}/pay`, {
        payment_plan_id: `${merchant.cardPlanId}-1`,
        credit_card_0_token: await tokenA(pay.sandboxes, CARDS.declined),
      });
      assert.equal(declined.statusCode, 422, declined.body);
      const pix = await post(`/carts/${cartId}/pay`, { payment_plan_id: `${merchant.pixPlanId}-1` });
      assert.equal(pix.statusCode, 200, pix.body);
      const card = await post(`/carts/${cartId}/pay`, {
        payment_plan_id: `${merchant.cardPlanId}-1`,
        credit_card_0_token: await tokenA(pay.sandboxes),
      });
      assert.equal(card.statusCode, 200, card.body);
      assert.equal(card.json().order_status, 'paid');
    });

    test('the pix of an earlier order of the cart is voided and that order cancelled once the cart is paid by card', async () => {
      const cartId = await insertCart(database, merchant);
      const pix = await post(`/carts/${cartId}/pay`, { payment_plan_id: `${merchant.pixPlanId}-1` });
      assert.equal(pix.statusCode, 200, pix.body);
      const card = await post(`/carts/${cartId}/pay`, {
        payment_plan_id: `${merchant.cardPlanId}-1`,
        credit_card_0_token: await tokenA(pay.sandboxes),
      });
      assert.equal(card.json().order_status, 'paid');
      const pixGatewayId: string = pix.json().payments[0].gateway_id;
      const pixId = (
        await database.db
          .selectFrom('payments')
          .select('id')
          .where('gateway_id', '=', pixGatewayId)
          .executeTakeFirstOrThrow()
      ).id;
      const jobs = await database.db
        .selectFrom('jobs')
        .select(['id', 'payload'])
        .where('type', '=', VOID_SUPERSEDED_JOB)
        .where('status', '=', 'queued')
        .where('dedup_key', '=', `${VOID_SUPERSEDED_JOB}:${pixId}`)
        .execute();
      assert.equal(jobs.length, 1);
      const handlers = paymentJobHandlers({
        masterKey: pay.config.masterKey,
        gatewayUrls: { gateway_a: pay.sandboxes.baseUrlFor('gateway_a') },
        clock: () => new Date(),
      });
      await handlers[VOID_SUPERSEDED_JOB]!(
        {
          id: jobs[0]!.id,
          type: VOID_SUPERSEDED_JOB,
          payload: jobs[0]!.payload,
          accountId: merchant.accountId,
          attempts: 1,
        },
        { database },
      );
      assert.deepEqual(await ordersOf(cartId), [{ status: 'cancelled' }, { status: 'paid' }]);
      const pixPayment = await database.db
        .selectFrom('payments')
        .select(['status', 'gateway_id'])
        .where('id', '=', pixId)
        .executeTakeFirstOrThrow();
      assert.equal(pixPayment.status, 'cancelled');
      const confirm = await fetch(
        `${pay.sandboxes.baseUrlFor('gateway_a')}/sandbox/charges/${pixPayment.gateway_id}/confirm`,
        { method: 'POST' },
      );
      assert.equal(confirm.status, 409);
    });

    const payByPix = async (cartId: string) => {
      const pix = await post(`/carts/${cartId}/pay`, { payment_plan_id: `${merchant.pixPlanId}-1` });
      assert.equal(pix.statusCode, 200, pix.body);
      return database.db
        .selectFrom('payments')
        .select(['id', 'gateway_id', 'order_id'])
        .where('gateway_id', '=', pix.json().payments[0].gateway_id)
        .executeTakeFirstOrThrow();
    };
    const paymentStatus = async (id: number) =>
      (await database.db.selectFrom('payments').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
    const paidAction = (gatewayId: string) =>
      applyPaymentAction(database.db, {
        gateway: 'gateway_a',
        action: { kind: 'payment_paid', gatewayId, paidAt: new Date() },
        at: new Date(),
      });

    test('the earlier order’s pix paid just before its void is given back in full and that order cancelled: the cart keeps one payment', async () => {
      const cartId = await insertCart(database, merchant);
      const pix = await payByPix(cartId);
      const card = await post(`/carts/${cartId}/pay`, {
        payment_plan_id: `${merchant.cardPlanId}-1`,
        credit_card_0_token: await tokenA(pay.sandboxes),
      });
      assert.equal(card.json().order_status, 'paid');
      assert.equal(await payAtSandbox(pay, pix.gateway_id!), 200);
      // The void job finds it paid at the gateway and records it; the cart was bought by the card's order.
      assert.equal(await runQueuedJobs(database, pay, merchant.accountId, VOID_SUPERSEDED_JOB, [pix.id]), 1);
      assert.equal(await paymentStatus(pix.id), 'paid');
      assert.deepEqual(await ordersOf(cartId), [{ status: 'waiting_payment' }, { status: 'paid' }]);
      assert.equal(await runQueuedJobs(database, pay, merchant.accountId, VOID_ORPHAN_JOB, [pix.id]), 1);
      assert.equal(await paymentStatus(pix.id), 'refunded');
      assert.equal(await sandboxChargeState(pay, pix.gateway_id!), 'refunded');
      assert.deepEqual(await ordersOf(cartId), [{ status: 'cancelled' }, { status: 'paid' }]);
      const cancelled = await database.db
        .selectFrom('order_events')
        .select('cause')
        .where('order_id', '=', pix.order_id)
        .where('to_status', '=', 'cancelled')
        .executeTakeFirstOrThrow();
      assert.match(cancelled.cause ?? '', /cart another order bought/);
    });

    test('two orders of one cart paid at the same moment: one order is paid, the other’s money is given back', async () => {
      const cartId = await insertCart(database, merchant);
      const first = await payByPix(cartId);
      const second = await payByPix(cartId);
      assert.equal(await payAtSandbox(pay, first.gateway_id!), 200);
      assert.equal(await payAtSandbox(pay, second.gateway_id!), 200);
      const applied = await Promise.all([paidAction(first.gateway_id!), paidAction(second.gateway_id!)]);
      assert.deepEqual(
        applied.map((result) => result.applied),
        [true, true],
      );
      const statuses = (await ordersOf(cartId)).map((order) => order.status).sort();
      assert.deepEqual(statuses, ['paid', 'waiting_payment']);
      await runQueuedJobs(database, pay, merchant.accountId, VOID_SUPERSEDED_JOB, [first.id, second.id]);
      assert.equal(await runQueuedJobs(database, pay, merchant.accountId, VOID_ORPHAN_JOB, [first.id, second.id]), 1);
      assert.deepEqual((await ordersOf(cartId)).map((order) => order.status).sort(), ['cancelled', 'paid']);
      assert.deepEqual([await paymentStatus(first.id), await paymentStatus(second.id)].sort(), ['paid', 'refunded']);
    });

    test('two cards paying one cart at the same moment: one order is paid, the other’s capture is given back and that order cancelled', async () => {
      const cartId = await insertCart(database, merchant);
      const tokens = [await tokenA(pay.sandboxes), await tokenA(pay.sandboxes)];
      const answers = await Promise.all(
        tokens.map((token) =>
          post(`/carts/${cartId}/pay`, { payment_plan_id: `${merchant.cardPlanId}-1`, credit_card_0_token: token }),
        ),
      );
      assert.ok(
        answers.every((answer) => answer.statusCode < 500),
        answers.map((answer) => answer.body).join(' | '),
      );
      const cards = await database.db
        .selectFrom('payments as p')
        .innerJoin('orders as o', 'o.id', 'p.order_id')
        .select(['p.id', 'p.status'])
        .where('o.cart_id', '=', cartId)
        .execute();
      await runQueuedJobs(
        database,
        pay,
        merchant.accountId,
        VOID_ORPHAN_JOB,
        cards.map((card) => card.id),
      );
      const orders = (await ordersOf(cartId)).map((order) => order.status).sort();
      // Both captured (each order settled before the other), or the second refused (422) once the first was paid.
      assert.ok(
        JSON.stringify(orders) === JSON.stringify(['cancelled', 'paid']) ||
          JSON.stringify(orders) === JSON.stringify(['paid']),
        orders.join(','),
      );
    });
  });
}
