import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { paymentJobHandlers } from '../../src/jobs/payment-jobs.ts';
import { VOID_SUPERSEDED_JOB } from '../../src/modules/payments/orphan-capture.ts';
import { engines } from '../support/engines.ts';
import { CARDS, insertCart, ORIGIN, tokenA, type Merchant, type PayApp, usePayMerchant } from '../support/pay-fixtures.ts';

/** A cart is one purchase: once paid it refuses another payment; until then (declined, pix unpaid) it can be paid. */
for (const engine of engines()) {
  describe(`a cart is paid once on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;

    usePayMerchant(engine, (setup) => ({ database, pay, merchant } = setup));

    const post = (path: string, payload: Record<string, unknown>) => pay.app.inject({ method: 'POST', url: `/api/v1${path}`, headers: ORIGIN, payload });
    const ordersOf = (cartId: string) => database.db.selectFrom('orders').select('status').where('cart_id', '=', cartId).orderBy('id').execute();

    test('a paid cart answers 422 to another payment and charges nothing', async () => {
      const cartId = await insertCart(database, merchant);
      const first = await post(`/carts/${cartId}/pay`, { payment_plan_id: `${merchant.cardPlanId}-1`, credit_card_0_token: await tokenA(pay.sandboxes) });
      assert.equal(first.statusCode, 200, first.body);
      assert.equal(first.json().order_status, 'paid');
      const again = await post(`/carts/${cartId}/pay`, { payment_plan_id: `${merchant.cardPlanId}-1`, credit_card_0_token: await tokenA(pay.sandboxes) });
      assert.equal(again.statusCode, 422, again.body);
      assert.match(again.json().message, /already paid/);
      const pix = await post(`/carts/${cartId}/pay`, { payment_plan_id: `${merchant.pixPlanId}-1` });
      assert.equal(pix.statusCode, 422, pix.body);
      assert.deepEqual(await ordersOf(cartId), [{ status: 'paid' }]);
    });

    test('a cart whose card was declined, or whose pix is unpaid, can still be paid', async () => {
      const cartId = await insertCart(database, merchant);
      const declined = await post(`/carts/${cartId}/pay`, { payment_plan_id: `${merchant.cardPlanId}-1`, credit_card_0_token: await tokenA(pay.sandboxes, CARDS.declined) });
      assert.equal(declined.statusCode, 422, declined.body);
      const pix = await post(`/carts/${cartId}/pay`, { payment_plan_id: `${merchant.pixPlanId}-1` });
      assert.equal(pix.statusCode, 200, pix.body);
      const card = await post(`/carts/${cartId}/pay`, { payment_plan_id: `${merchant.cardPlanId}-1`, credit_card_0_token: await tokenA(pay.sandboxes) });
      assert.equal(card.statusCode, 200, card.body);
      assert.equal(card.json().order_status, 'paid');
    });

    test('the pix of an earlier order of the cart is voided and that order cancelled once the cart is paid by card', async () => {
      const cartId = await insertCart(database, merchant);
      const pix = await post(`/carts/${cartId}/pay`, { payment_plan_id: `${merchant.pixPlanId}-1` });
      assert.equal(pix.statusCode, 200, pix.body);
      const card = await post(`/carts/${cartId}/pay`, { payment_plan_id: `${merchant.cardPlanId}-1`, credit_card_0_token: await tokenA(pay.sandboxes) });
      assert.equal(card.json().order_status, 'paid');
      const pixGatewayId: string = pix.json().payments[0].gateway_id;
      const pixId = (await database.db.selectFrom('payments').select('id').where('gateway_id', '=', pixGatewayId).executeTakeFirstOrThrow()).id;
      const jobs = await database.db.selectFrom('jobs').select(['id', 'payload']).where('type', '=', VOID_SUPERSEDED_JOB).where('status', '=', 'queued').where('dedup_key', '=', `${VOID_SUPERSEDED_JOB}:${pixId}`).execute();
      assert.equal(jobs.length, 1);
      const handlers = paymentJobHandlers({ masterKey: pay.config.masterKey, gatewayUrls: { gateway_a: pay.sandboxes.baseUrlFor('gateway_a') }, clock: () => new Date() });
      await handlers[VOID_SUPERSEDED_JOB]!({ id: jobs[0]!.id, type: VOID_SUPERSEDED_JOB, payload: jobs[0]!.payload, accountId: merchant.accountId, attempts: 1 }, { database });
      assert.deepEqual(await ordersOf(cartId), [{ status: 'cancelled' }, { status: 'paid' }]);
      const pixPayment = await database.db.selectFrom('payments').select(['status', 'gateway_id']).where('id', '=', pixId).executeTakeFirstOrThrow();
      assert.equal(pixPayment.status, 'cancelled');
      const confirm = await fetch(`${pay.sandboxes.baseUrlFor('gateway_a')}/sandbox/charges/${pixPayment.gateway_id}/confirm`, { method: 'POST' });
      assert.equal(confirm.status, 409);
    });
  });
}
