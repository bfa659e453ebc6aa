import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isValidBoleto } from '@brazilian-utils/brazilian-utils';
import type { Database } from '../../../src/db/database.ts';
import { bearer, createTenant } from '../../support/app.ts';
import { engines } from '../../support/engines.ts';
import {
  BOLETO_PAYER,
  CARDS,
  cardHashC,
  confirmationTokenB,
  insertCart,
  insertCharge,
  insertPage,
  ORIGIN,
  paymentsOfOrderUid,
  tokenA,
  type Merchant,
  type PayApp,
  usePayMerchant,
} from '../../support/pay-fixtures.ts';

for (const engine of engines()) {
  describe(`cart and charge pay, gateway_b and gateway_c on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;

    usePayMerchant(engine, (setup) => ({ database, pay, merchant } = setup));

    const post = (url: string, payload: Record<string, unknown>, headers: Record<string, string> = ORIGIN) =>
      pay.app.inject({ method: 'POST', url: `/api/v1${url}`, headers, payload });

    test('cart pay by card: payment objects, redirect_url, the cart customer, freight in the total', async () => {
      const cartId = await insertCart(database, merchant);
      const res = await post(`/carts/${cartId}/pay`, {
        payment_plan_id: `${merchant.cardPlanId}-1`,
        credit_card_0_token: await tokenA(pay.sandboxes),
      });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.order_status, 'paid');
      assert.equal(body.redirect_url, 'https://shop.example/obrigado');
      assert.equal(body.payments.length, 1);
      const [payment] = body.payments;
      assert.deepEqual(Object.keys(payment).sort(), ['amount', 'gateway_id', 'id', 'installments', 'method', 'status']);
      assert.equal(payment.amount, 115);
      assert.equal(payment.status, 'paid');
      assert.equal(payment.method, 'credit_card');
      assert.match(payment.gateway_id, /^ch_/);
      for (const absent of ['pix_qr_code', 'bank_slip_url']) assert.equal(absent in body, false);
      const order = await database.db
        .selectFrom('orders as o')
        .innerJoin('customers as c', 'c.id', 'o.customer_id')
        .select(['o.source', 'o.cart_id', 'o.freight_cents', 'o.total_cents', 'c.email', 'c.name'])
        .where('o.cart_id', '=', cartId)
        .executeTakeFirstOrThrow();
      assert.deepEqual(order, {
        source: 'cart',
        cart_id: cartId,
        freight_cents: 1500,
        total_cents: 11_500,
        email: 'cart@example.com',
        name: 'Cart Buyer',
      });
      const listed = await pay.app.inject({
        url: `/api/v1/carts/${cartId}/payments?ids[]=${payment.gateway_id}`,
        headers: ORIGIN,
      });
      assert.deepEqual(listed.json(), [{ gateway_id: payment.gateway_id, status: 'paid' }]);
    });

    test('cart pay by pix and boleto: the method fields only for their method', async () => {
      const pixRes = await post(`/carts/${await insertCart(database, merchant)}/pay`, {
        payment_plan_id: `${merchant.pixPlanId}-1`,
        tags: ['a', 'b'],
      });
      assert.equal(pixRes.statusCode, 200, pixRes.body);
      assert.equal(pixRes.json().order_status, 'waiting_payment');
      assert.ok(pixRes.json().pix_qr_code && pixRes.json().pix_qr_code_url && pixRes.json().pix_expires_at);
      assert.equal('bank_slip_url' in pixRes.json(), false);
      assert.equal(pixRes.json().payments[0].status, 'waiting_payment');
      const slipRes = await post(`/carts/${await insertCart(database, merchant)}/pay`, {
        payment_plan_id: `${merchant.boletoPlanId}-1`,
      });
      assert.equal(slipRes.statusCode, 200, slipRes.body);
      assert.match(slipRes.json().bank_slip_url, /^http:\/\/pay\.test\/pay\/boleto\//);
      assert.equal('pix_qr_code' in slipRes.json(), false);
    });

    test('a cart without a customer email anywhere is a 422; an unknown cart a 404; another account’s origin a 403', async () => {
      const cartId = await insertCart(database, merchant, { customer: {} });
      const res = await post(`/carts/${cartId}/pay`, { payment_plan_id: `${merchant.pixPlanId}-1` });
      assert.equal(res.statusCode, 422);
      assert.equal(res.json().details[0].field, 'body/customer_email');
      assert.equal(
        (await post(`/carts/${crypto.randomUUID()}/pay`, { payment_plan_id: `${merchant.pixPlanId}-1` })).statusCode,
        404,
      );
      await createTenant(database, { allowedHosts: ['other.example'] });
      assert.equal(
        (
          await post(
            `/carts/${cartId}/pay`,
            { payment_plan_id: `${merchant.pixPlanId}-1`, customer_email: 'x@example.com' },
            { origin: 'https://other.example' },
          )
        ).statusCode,
        403,
      );
    });

    test('charge pay by card: status paid, the confirmation page, the same order paid; a paid charge cannot be paid again', async () => {
      const charge = await insertCharge(database, merchant);
      const res = await post(`/charges/${charge.uid}/pay`, {
        payment_plan_id: `${merchant.cardPlanId}-1`,
        credit_card_0_token: await tokenA(pay.sandboxes),
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { status: 'paid', redirect_url: `http://pay.test/pay/charges/${charge.uid}/done` });
      const order = await database.db
        .selectFrom('orders')
        .select(['status', 'paid_cents'])
        .where('id', '=', charge.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(order, { status: 'paid', paid_cents: 10_000 });
      const again = await post(`/charges/${charge.uid}/pay`, { payment_plan_id: `${merchant.pixPlanId}-1` });
      assert.equal(again.statusCode, 422);
      const last = await pay.app.inject({ url: `/api/v1/charges/${charge.uid}/last_payment`, headers: ORIGIN });
      assert.equal(last.json().status, 'paid');
    });

    test('charge pay: a declined card answers 200 with status failed and the charge stays payable', async () => {
      const charge = await insertCharge(database, merchant);
      const res = await post(`/charges/${charge.uid}/pay`, {
        payment_plan_id: `${merchant.cardPlanId}-1`,
        credit_card_0_token: await tokenA(pay.sandboxes, CARDS.declined),
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().status, 'failed');
      const pix = await post(`/charges/${charge.uid}/pay`, { payment_plan_id: `${merchant.pixPlanId}-1` });
      assert.equal(pix.statusCode, 200, pix.body);
      assert.deepEqual(Object.keys(pix.json()).sort(), [
        'pix_expires_at',
        'pix_qr_code',
        'pix_qr_code_url',
        'redirect_url',
      ]);
      const slip = await post(`/charges/${(await insertCharge(database, merchant)).uid}/pay`, {
        payment_plan_id: `${merchant.boletoPlanId}-1`,
      });
      assert.deepEqual(Object.keys(slip.json()).sort(), ['bank_slip_url', 'redirect_url']);
      const payments = await paymentsOfOrderUid(database, charge.uid);
      assert.deepEqual(
        payments.map((row) => row.status),
        ['failed', 'waiting_payment'],
      );
      assert.equal(
        (await database.db.selectFrom('orders').select('status').where('id', '=', charge.id).executeTakeFirstOrThrow())
          .status,
        'waiting_payment',
      );
    });

    test('charge pay: cancelled charge 422, another account’s key 403, not a charge 404', async () => {
      const cancelled = await insertCharge(database, merchant, { status: 'cancelled' });
      assert.equal(
        (await post(`/charges/${cancelled.uid}/pay`, { payment_plan_id: `${merchant.pixPlanId}-1` })).statusCode,
        422,
      );
      const other = await createTenant(database);
      const open = await insertCharge(database, merchant);
      assert.equal(
        (await post(`/charges/${open.uid}/pay`, { payment_plan_id: `${merchant.pixPlanId}-1` }, bearer(other.apiKey)))
          .statusCode,
        403,
      );
      assert.equal(
        (await post(`/charges/${crypto.randomUUID()}/pay`, { payment_plan_id: `${merchant.pixPlanId}-1` })).statusCode,
        404,
      );
    });

    test('gateway_b: a confirmation token is required for cards, and with one the card is paid (pi_ ids)', async () => {
      const pageId = await insertPage(database.db, merchant, {
        gateway: 'gateway_b',
        products: [merchant.productId],
        plans: [merchant.cardPlanId, merchant.boletoPlanId],
      });
      const base = {
        checkout_page_id: pageId,
        products: [{ id: merchant.productId, quantity: 1 }],
        customer_email: 'b@example.com',
        payment_plan_id: `${merchant.cardPlanId}-2`,
      };
      const missing = await post('/payments', base);
      assert.equal(missing.statusCode, 422);
      assert.equal(missing.json().details[0].field, 'body/confirmation_token_id');
      const res = await post('/payments', { ...base, confirmation_token_id: await confirmationTokenB(pay.sandboxes) });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().order_status, 'paid');
      assert.match(res.json().payments[0], /^pi_/);
      const slip = await post('/payments', { ...base, ...BOLETO_PAYER, payment_plan_id: `${merchant.boletoPlanId}-1` });
      assert.equal(slip.statusCode, 200, slip.body);
      const row = await database.db
        .selectFrom('payments')
        .select('boleto_digitable_line')
        .where('gateway_id', '=', slip.json().payments[0])
        .executeTakeFirstOrThrow();
      assert.equal(isValidBoleto(row.boleto_digitable_line!), true);
    });

    test('gateway_c on a cart: a card hash from the served PEM pays once; the same key again is refused with 422', async () => {
      const cartId = await insertCart(database, merchant, { gateway: 'gateway_c' });
      const hash = await cardHashC(database, pay.sandboxes, merchant);
      const res = await post(`/carts/${cartId}/pay`, {
        payment_plan_id: `${merchant.cardPlanId}-1`,
        credit_card_0_token: hash,
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().order_status, 'paid');
      assert.match(res.json().payments[0].gateway_id, /^[0-9]+$/);
      const reused = await post(`/carts/${await insertCart(database, merchant, { gateway: 'gateway_c' })}/pay`, {
        payment_plan_id: `${merchant.cardPlanId}-1`,
        credit_card_0_token: hash,
      });
      assert.equal(reused.statusCode, 422);
      const body = {
        payment_plan_id: `${merchant.cardPlanId}-1`,
        credit_card_0_token: await tokenA(pay.sandboxes),
        gateway: 'gateway_a',
      };
      const overridden = await post(
        `/carts/${await insertCart(database, merchant, { gateway: 'gateway_c' })}/pay`,
        body,
      );
      assert.equal(overridden.statusCode, 200, overridden.body);
      assert.match(overridden.json().payments[0].gateway_id, /^ch_/);
    });
  });
}
