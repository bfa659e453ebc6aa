import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { seal } from '../../src/lib/crypto.ts';
import { applyPaymentAction } from '../../src/modules/payments/attempts/gateway-actions.ts';
import { createUpsellOffer } from '../../src/modules/payments/settlement/upsell-offer-token.ts';
import { engines } from '../support/engines.ts';
import {
  BOLETO_PAYER,
  insertPage,
  insertProduct,
  tokenA,
  type Merchant,
  type PayApp,
  usePayMerchant,
} from '../support/pay-fixtures.ts';
import { paidCardOrder, payOnPage, remoteStatus } from '../payments/refunds/refund-fixtures.ts';

const ANY_ORIGIN = { origin: 'https://elsewhere.example' };

for (const engine of engines()) {
  describe(`POST /upsell on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;
    let upsellPage: string;

    usePayMerchant(engine, async (setup) => {
      ({ database, pay, merchant } = setup);
      upsellPage = await insertPage(database.db, merchant, {
        products: [merchant.productId],
        plans: [merchant.cardPlanId, merchant.pixPlanId, merchant.boletoPlanId],
        upsellProductId: merchant.upsellProductId,
      });
    });

    const redeem = (payload: Record<string, unknown>) =>
      pay.app.inject({ method: 'POST', url: '/api/v1/upsell', headers: ANY_ORIGIN, payload });
    const orderByUid = (uid: string) =>
      database.db.selectFrom('orders').selectAll().where('uid', '=', uid).executeTakeFirstOrThrow();
    const upsellOrdersOf = (parentId: number) =>
      database.db
        .selectFrom('orders')
        .selectAll()
        .where('parent_order_id', '=', parentId)
        .where('source', '=', 'upsell')
        .execute();
    const offerOf = (orderId: number) =>
      database.db.selectFrom('upsell_offers').selectAll().where('order_id', '=', orderId).executeTakeFirstOrThrow();

    test('a card order redeems its offer once: the saved card is charged again, an upsell order is paid; a second redemption → 422', async () => {
      const paid = await paidCardOrder(pay, database, merchant, upsellPage);
      assert.ok(paid.offer);
      const original = await orderByUid(paid.orderUid);
      const res = await redeem({ offer: paid.offer, meta: { campaign: 'one-click' } });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.order_status, 'paid');
      assert.equal(body.payments.length, 1);
      assert.notEqual(body.payments[0], paid.gatewayIds[0]);
      for (const field of ['bank_slip_url', 'pix_qr_code', 'pix_qr_code_url', 'pix_expires_at'])
        assert.equal(field in body, false, field);
      const [upsell] = await upsellOrdersOf(original.id);
      assert.ok(upsell);
      assert.deepEqual(
        {
          status: upsell.status,
          customer: upsell.customer_id,
          company: upsell.company_id,
          total: upsell.total_cents,
          meta: upsell.meta,
        },
        {
          status: 'paid',
          customer: original.customer_id,
          company: original.company_id,
          total: 1_990,
          meta: { campaign: 'one-click' },
        },
      );
      const items = await database.db
        .selectFrom('order_items')
        .select(['product_id', 'quantity', 'unit_value_cents'])
        .where('order_id', '=', upsell.id)
        .execute();
      assert.deepEqual(items, [{ product_id: merchant.upsellProductId, quantity: 1, unit_value_cents: 1_990 }]);
      const [originalPayment] = await database.db
        .selectFrom('payments')
        .select(['saved_payment_method_id'])
        .where('order_id', '=', original.id)
        .execute();
      const [upsellPayment] = await database.db
        .selectFrom('payments')
        .select(['saved_payment_method_id', 'gateway_id', 'status', 'amount_cents'])
        .where('order_id', '=', upsell.id)
        .execute();
      assert.ok(originalPayment!.saved_payment_method_id);
      assert.deepEqual(upsellPayment, {
        saved_payment_method_id: originalPayment!.saved_payment_method_id,
        gateway_id: body.payments[0],
        status: 'paid',
        amount_cents: 1_990,
      });
      assert.equal(await remoteStatus(pay, 'gateway_a', body.payments[0]), 'paid');
      const offer = await offerOf(original.id);
      assert.ok(offer.consumed_at);
      assert.equal(offer.upsell_order_id, upsell.id);

      const again = await redeem({ offer: paid.offer });
      assert.equal(again.statusCode, 422);
      assert.equal(again.json().code, 'business_rule_violation');
      assert.match(again.json().message, /already been used/);
      assert.equal((await upsellOrdersOf(original.id)).length, 1);
    });

    test('a retried redemption with the same Idempotency-Key replays the result instead of refusing the spent offer', async () => {
      const paid = await paidCardOrder(pay, database, merchant, upsellPage);
      const send = () =>
        pay.app.inject({
          method: 'POST',
          url: '/api/v1/upsell',
          headers: { ...ANY_ORIGIN, 'idempotency-key': `upsell-${paid.orderUid}` },
          payload: { offer: paid.offer },
        });
      const first = await send();
      assert.equal(first.statusCode, 200, first.body);
      const again = await send();
      assert.equal(again.statusCode, 200);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.deepEqual(again.json(), first.json());
      // Still the first answer once the offer has expired: the key is scoped by the genuine token, expired or not.
      pay.setNow(new Date(Date.now() + 31 * 60_000));
      try {
        const late = await send();
        assert.equal(late.statusCode, 200, late.body);
        assert.equal(late.headers['idempotent-replayed'], 'true');
      } finally {
        pay.setNow(undefined);
      }
      const original = await orderByUid(paid.orderUid);
      assert.equal((await upsellOrdersOf(original.id)).length, 1);
    });

    test('an expired offer (controllable clock) → 422 and nothing is charged', async () => {
      const paid = await paidCardOrder(pay, database, merchant, upsellPage);
      pay.setNow(new Date(Date.now() + 31 * 60_000));
      try {
        const res = await redeem({ offer: paid.offer! });
        assert.equal(res.statusCode, 422);
        assert.equal(res.json().code, 'business_rule_violation');
      } finally {
        pay.setNow(undefined);
      }
      assert.equal((await upsellOrdersOf((await orderByUid(paid.orderUid)).id)).length, 0);
    });

    test('a tampered or malformed token → 422 and the genuine offer stays redeemable; body validation', async () => {
      const paid = await paidCardOrder(pay, database, merchant, upsellPage);
      const [payload, signature] = paid.offer!.split('.') as [string, string];
      const forged = Buffer.from(
        JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), exp: 4_102_444_800 }),
      ).toString('base64url');
      for (const offer of [
        `${forged}.${signature}`,
        `${payload}.${signature.slice(0, -2)}xx`,
        'not-a-token',
        `${payload}.${signature}.extra`,
      ]) {
        const res = await redeem({ offer });
        assert.equal(res.statusCode, 422, offer);
        assert.equal(res.json().code, 'business_rule_violation');
      }
      for (const body of [{}, { offer: '' }, { offer: paid.offer, extra: 1 }, { offer: paid.offer, meta: 'x' }]) {
        const res = await redeem(body);
        assert.equal(res.statusCode, 422, JSON.stringify(body));
        assert.equal(res.json().code, 'validation_failed');
      }
      assert.equal((await redeem({ offer: paid.offer! })).statusCode, 200);
    });

    test('a saved card the gateway declines → order_status refused, the upsell order cancelled, the offer spent', async () => {
      const paid = await paidCardOrder(pay, database, merchant, upsellPage);
      const original = await orderByUid(paid.orderUid);
      const [payment] = await database.db
        .selectFrom('payments')
        .select('saved_payment_method_id')
        .where('order_id', '=', original.id)
        .execute();
      // A reference the sandbox does not know is declined as invalid_token, as a card removed at the gateway would be.
      await database.db
        .updateTable('saved_payment_methods')
        .set({ gateway_reference_encrypted: seal(pay.config.masterKey, 'card_forgotten0000') })
        .where('id', '=', payment!.saved_payment_method_id!)
        .execute();
      const res = await redeem({ offer: paid.offer! });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().order_status, 'refused');
      const [upsell] = await upsellOrdersOf(original.id);
      assert.equal(upsell!.status, 'cancelled');
      const [row] = await database.db
        .selectFrom('payments')
        .select(['status', 'failure_code'])
        .where('order_id', '=', upsell!.id)
        .execute();
      assert.deepEqual(row, { status: 'failed', failure_code: 'invalid_token' });
      assert.equal((await redeem({ offer: paid.offer! })).statusCode, 422);
    });

    test('a revoked saved card → refused without a charge', async () => {
      const paid = await paidCardOrder(pay, database, merchant, upsellPage);
      const original = await orderByUid(paid.orderUid);
      const [payment] = await database.db
        .selectFrom('payments')
        .select('saved_payment_method_id')
        .where('order_id', '=', original.id)
        .execute();
      await database.db
        .updateTable('saved_payment_methods')
        .set({ revoked_at: new Date() })
        .where('id', '=', payment!.saved_payment_method_id!)
        .execute();
      const res = await redeem({ offer: paid.offer! });
      assert.equal(res.json().order_status, 'refused');
      const [upsell] = await upsellOrdersOf(original.id);
      const [row] = await database.db
        .selectFrom('payments')
        .select(['status', 'failure_code', 'gateway_id'])
        .where('order_id', '=', upsell!.id)
        .execute();
      assert.deepEqual(row, { status: 'failed', failure_code: 'no_saved_method', gateway_id: null });
    });

    test('a pix original → a new pix with the pix fields only; a boleto original → bank_slip_url only', async () => {
      for (const [planId, kind] of [
        [merchant.pixPlanId, 'pix'],
        [merchant.boletoPlanId, 'boleto'],
      ] as const) {
        const original = await payOnPage(pay, database, merchant, upsellPage, {
          payment_plan_id: `${planId}-1`,
          ...BOLETO_PAYER,
        });
        assert.equal(original.json.order_status, 'waiting_payment');
        const order = await orderByUid(original.orderUid);
        // The pay flow issues offers for paid orders only; a pix or boleto original gets its offer once paid.
        const paid = await applyPaymentAction(database.db, {
          gateway: 'gateway_a',
          action: { kind: 'payment_paid', gatewayId: original.gatewayIds[0]!, paidAt: new Date() },
          at: new Date(),
        });
        assert.equal(paid.applied, true);
        const offer = await createUpsellOffer(database.db, pay.config.masterKey, {
          accountId: merchant.accountId,
          orderId: order.id,
          productId: merchant.upsellProductId,
          now: new Date(),
        });
        const res = await redeem({ offer });
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json();
        assert.equal(body.order_status, 'waiting_payment');
        assert.equal(body.payments.length, 1);
        const [payment] = await database.db
          .selectFrom('payments')
          .select(['uid', 'method', 'gateway_id'])
          .where('order_id', '=', (await upsellOrdersOf(order.id))[0]!.id)
          .execute();
        assert.equal(payment!.gateway_id, body.payments[0]);
        if (kind === 'pix') {
          assert.equal(payment!.method, 'pix');
          assert.match(body.pix_qr_code, /^[A-Za-z0-9+/]+=*$/);
          assert.ok(body.pix_qr_code_url.endsWith(`/pay/pix/${payment!.uid}`));
          assert.ok(new Date(body.pix_expires_at).getTime() > Date.now());
          assert.equal('bank_slip_url' in body, false);
        } else {
          assert.equal(payment!.method, 'bank_slip');
          assert.ok(body.bank_slip_url.endsWith(`/pay/boleto/${payment!.uid}`));
          for (const field of ['pix_qr_code', 'pix_qr_code_url', 'pix_expires_at'])
            assert.equal(field in body, false, field);
        }
      }
    });

    test('20 concurrent redemptions of one offer → exactly one upsell order, the others 422', async () => {
      const paid = await paidCardOrder(pay, database, merchant, upsellPage);
      const answers = await Promise.all(Array.from({ length: 20 }, () => redeem({ offer: paid.offer! })));
      assert.deepEqual(answers.map((res) => res.statusCode).sort(), [200, ...Array(19).fill(422)]);
      const original = await orderByUid(paid.orderUid);
      assert.equal((await upsellOrdersOf(original.id)).length, 1);
      const charged = await database.db
        .selectFrom('payments')
        .select('id')
        .where('order_id', '=', (await upsellOrdersOf(original.id))[0]!.id)
        .execute();
      assert.equal(charged.length, 1);
    });

    test('a subscription product offered by upsell starts its own subscription, at the product’s price', async () => {
      const clubPage = await insertPage(database.db, merchant, {
        products: [merchant.productId],
        plans: [merchant.cardPlanId],
        upsellProductId: merchant.subscriptionProductId,
      });
      const paid = await paidCardOrder(pay, database, merchant, clubPage);
      const res = await redeem({ offer: paid.offer });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().order_status, 'paid');
      const [upsell] = await upsellOrdersOf((await orderByUid(paid.orderUid)).id);
      const sub = await database.db
        .selectFrom('subscriptions')
        .select(['status', 'interval', 'amount_cents', 'saved_payment_method_id'])
        .where('origin_order_id', '=', upsell!.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        { status: sub.status, interval: sub.interval, amount: sub.amount_cents },
        { status: 'active', interval: 'month', amount: 4_990 },
      );
      assert.ok(sub.saved_payment_method_id);
    });

    test('the offer of an order refunded since is refused (422) and stays unspent; nothing is charged', async () => {
      const paid = await paidCardOrder(pay, database, merchant, upsellPage);
      const refund = await pay.app.inject({
        method: 'POST',
        url: `/api/v1/payments/${paid.paymentIds[0]}/refund`,
        headers: { authorization: `Bearer ${merchant.apiKey}` },
      });
      assert.equal(refund.statusCode, 200, refund.body);
      const res = await redeem({ offer: paid.offer });
      assert.equal(res.statusCode, 422, res.body);
      assert.match(res.json().message, /refunded/);
      const original = await orderByUid(paid.orderUid);
      assert.equal((await offerOf(original.id)).consumed_at, null);
      assert.deepEqual(await upsellOrdersOf(original.id), []);
    });

    test('the offer of an order whose full refund is reserved (its gateway answer lost, 504) is refused too', async () => {
      const paid = await paidCardOrder(pay, database, merchant, upsellPage);
      await fetch(`${pay.sandboxes.baseUrlFor('gateway_a')}/sandbox/charges/${paid.gatewayIds[0]}/next_refund`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ behaviour: 'late' }),
      });
      const refund = await pay.app.inject({
        method: 'POST',
        url: `/api/v1/payments/${paid.paymentIds[0]}/refund`,
        headers: { authorization: `Bearer ${merchant.apiKey}` },
      });
      assert.equal(refund.statusCode, 504, refund.body);
      const res = await redeem({ offer: paid.offer });
      assert.equal(res.statusCode, 422, res.body);
      assert.match(res.json().message, /being refunded/);
      const original = await orderByUid(paid.orderUid);
      assert.deepEqual(await upsellOrdersOf(original.id), []);
    });

    test('no offer is made for an upsell product no longer sold, or sold for nothing', async () => {
      const gone = await insertProduct(database.db, merchant, 2_500, { name: 'Retirado' });
      const free = await insertProduct(database.db, merchant, 0, { name: 'Brinde' });
      await database.db.updateTable('products').set({ deleted_at: new Date() }).where('id', '=', gone).execute();
      for (const productId of [gone, free]) {
        const page = await insertPage(database.db, merchant, {
          products: [merchant.productId],
          plans: [merchant.cardPlanId],
          upsellProductId: productId,
        });
        const paid = await payOnPage(pay, database, merchant, page, {
          payment_plan_id: `${merchant.cardPlanId}-1`,
          credit_card_0_token: await tokenA(pay.sandboxes),
        });
        assert.equal(paid.json.order_status, 'paid', JSON.stringify(paid.json));
        assert.equal('offer' in paid.json, false);
      }
    });
  });
}
