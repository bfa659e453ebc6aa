import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isValidBoleto } from '@brazilian-utils/brazilian-utils';
import { hasError, parsePix } from 'pix-utils';
import type { Database } from '../../../src/db/database.ts';
import { documentedJson } from '../../support/documented-response.ts';
import { engines } from '../../support/engines.ts';
import {
  BOLETO_PAYER,
  CARDS,
  ORIGIN,
  tokenA,
  type Merchant,
  type PayApp,
  usePayMerchant,
} from '../../support/pay-fixtures.ts';

function paymentByGatewayId(database: Database, gatewayId: string) {
  return database.db.selectFrom('payments').selectAll().where('gateway_id', '=', gatewayId).executeTakeFirstOrThrow();
}

for (const engine of engines()) {
  describe(`POST /payments on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;

    usePayMerchant(engine, (setup) => ({ database, pay, merchant } = setup));

    const post = (payload: Record<string, unknown>, headers: Record<string, string> = ORIGIN) =>
      pay.app.inject({ method: 'POST', url: '/api/v1/payments', headers, payload });
    const base = () => ({
      checkout_page_id: merchant.pageId,
      products: [{ id: merchant.productId, quantity: 1 }],
      customer_email: 'Maria@Example.com',
    });

    test('a card on gateway_a is paid: order paid, gateway ids, no method fields, events with causes', async () => {
      const res = await post({
        ...base(),
        payment_plan_id: `${merchant.cardPlanId}-3`,
        credit_card_0_token: await tokenA(pay.sandboxes),
      });
      assert.equal(res.statusCode, 200, res.body);
      const body = documentedJson(pay.app, res);
      assert.equal(body.order_status, 'paid');
      assert.equal(body.is_subscription, false);
      assert.equal(body.payments.length, 1);
      assert.match(body.payments[0], /^ch_/);
      for (const absent of [
        'bank_slip_url',
        'pix_qr_code',
        'pix_qr_code_url',
        'pix_expires_at',
        'redirect_url',
        'offer',
      ])
        assert.equal(absent in body, false, absent);
      const payment = await paymentByGatewayId(database, body.payments[0]);
      assert.equal(payment.status, 'paid');
      assert.equal(payment.installments, 3);
      // 2.5% interest on R$ 100,00, from the server's plan: 102,50 in 3 installments of 34,17 (rounded up) is 102,51
      assert.equal(payment.amount_cents, 10_251);
      assert.equal(payment.installment_value_cents * payment.installments, payment.amount_cents);
      // The gateway is asked for the same total and count the buyer was shown.
      const ledger = await fetch(`${pay.sandboxes.baseUrlFor('gateway_a')}/sandbox/charges`).then((r) => r.json());
      const charged = ledger.data.find((entry: { id: string }) => entry.id === body.payments[0]);
      assert.deepEqual([charged.amount_cents, charged.installments], [10_251, 3]);
      assert.equal(payment.interest_cents, 251); // the 2,50 interest and the cent the rounding adds
      const order = await database.db
        .selectFrom('orders')
        .selectAll()
        .where('id', '=', payment.order_id)
        .executeTakeFirstOrThrow();
      assert.equal(order.total_cents, 10_000);
      assert.equal(order.source, 'checkout_page');
      assert.equal(order.due_date, null);
      const customer = await database.db
        .selectFrom('customers')
        .select('email')
        .where('id', '=', order.customer_id!)
        .executeTakeFirstOrThrow();
      assert.equal(customer.email, 'maria@example.com');
      const events = await database.db
        .selectFrom('order_events')
        .select(['type', 'from_status', 'to_status', 'cause', 'payment_id'])
        .where('order_id', '=', order.id)
        .orderBy('id')
        .execute();
      assert.deepEqual(
        events.map((event) => [event.type, event.from_status, event.to_status]),
        [
          ['order.created', null, 'pending'],
          ['payment.created', null, 'pending'],
          ['payment.status_changed', 'pending', 'paid'],
          ['order.status_changed', 'pending', 'paid'],
        ],
      );
      assert.ok(events.every((event) => event.cause.length > 0));
      assert.equal(events[2]!.payment_id, payment.id);
    });

    test('pix: waiting_payment, a valid BR Code as a PNG, hosted URL and expiry, and the expiry job queued', async () => {
      const res = await post({ ...base(), payment_plan_id: `${merchant.pixPlanId}-1` });
      assert.equal(res.statusCode, 200, res.body);
      const body = documentedJson(pay.app, res);
      assert.equal(body.order_status, 'waiting_payment');
      assert.ok(Buffer.from(body.pix_qr_code, 'base64').subarray(1, 4).toString() === 'PNG');
      const payment = await paymentByGatewayId(database, body.payments[0]);
      assert.equal(body.pix_qr_code_url, `http://pay.test/pay/pix/${payment.uid}`);
      assert.equal(new Date(body.pix_expires_at).toISOString(), body.pix_expires_at);
      assert.ok(Math.abs(new Date(body.pix_expires_at).getTime() - Date.now() - 30 * 60_000) < 60_000);
      assert.equal('bank_slip_url' in body, false);
      assert.equal(payment.status, 'waiting_payment');
      assert.equal(hasError(parsePix(payment.pix_code!)), false);
      const job = await database.db
        .selectFrom('jobs')
        .select(['type', 'run_at'])
        .where('dedup_key', '=', `payments.expire_pix:${payment.id}`)
        .executeTakeFirstOrThrow();
      assert.equal(job.run_at.getTime(), payment.pix_expires_at!.getTime());
    });

    test('boleto: waiting_payment, bank_slip_url only, barcode and digitable line valid for an independent checker', async () => {
      const res = await post({ ...base(), ...BOLETO_PAYER, payment_plan_id: `${merchant.boletoPlanId}-1` });
      assert.equal(res.statusCode, 200, res.body);
      const body = documentedJson(pay.app, res);
      assert.equal(body.order_status, 'waiting_payment');
      const payment = await paymentByGatewayId(database, body.payments[0]);
      assert.equal(body.bank_slip_url, `http://pay.test/pay/boleto/${payment.uid}`);
      for (const absent of ['pix_qr_code', 'pix_qr_code_url', 'pix_expires_at']) assert.equal(absent in body, false);
      assert.equal(isValidBoleto(payment.boleto_digitable_line!), true);
      assert.match(payment.boleto_barcode!, /^[0-9]{44}$/);
      assert.ok(payment.boleto_due_date);
      // A boleto híbrido: the gateway's Pix code of the same boleto is kept with it.
      assert.equal(payment.method, 'bank_slip');
      assert.equal(hasError(parsePix(payment.pix_code!)), false);
      const page = await pay.app.inject({ url: `/pay/boleto/${payment.uid}` });
      assert.ok(page.body.includes(`>${payment.pix_code}</textarea>`));
      assert.match(page.body, /id="boleto-pix-qr"/);
    });

    test('no product named: 422 on the products field and nothing written; an unknown page stays a 404', async () => {
      const ordersBefore = await database.db
        .selectFrom('orders')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      const res = await post({ ...base(), products: [], payment_plan_id: `${merchant.pixPlanId}-1` });
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(res.json().details[0].field, 'body/products');
      const missing = await post({
        ...base(),
        checkout_page_id: '00000000-0000-4000-8000-000000000000',
        products: [],
        payment_plan_id: `${merchant.pixPlanId}-1`,
      });
      assert.equal(missing.statusCode, 404, missing.body);
      const ordersAfter = await database.db
        .selectFrom('orders')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(Number(ordersAfter.n), Number(ordersBefore.n));
    });

    test('declined cards: 422 with the decline code, payment failed, order pending and never paid', async () => {
      for (const [number, code] of [
        [CARDS.declined, 'declined'],
        [CARDS.insufficientFunds, 'insufficient_funds'],
      ] as const) {
        const res = await post({
          ...base(),
          payment_plan_id: `${merchant.cardPlanId}-1`,
          credit_card_0_token: await tokenA(pay.sandboxes, number),
        });
        assert.equal(res.statusCode, 422, res.body);
        assert.equal(res.json().code, 'business_rule_violation');
        assert.equal(res.json().details[0].message, code);
        const failed = await database.db
          .selectFrom('payments as p')
          .innerJoin('orders as o', 'o.id', 'p.order_id')
          .select(['p.status', 'p.failure_code', 'o.status as order_status', 'o.paid_at'])
          .where('p.failure_code', '=', code)
          .executeTakeFirstOrThrow();
        assert.deepEqual(failed, { status: 'failed', failure_code: code, order_status: 'pending', paid_at: null });
      }
    });

    test('a gateway error is a 502 and a timeout a 504; both leave the payment pending with a reconciliation job', async () => {
      for (const [number, status, code] of [
        [CARDS.gatewayError, 502, 'gateway_error'],
        [CARDS.gatewayTimeout, 504, 'gateway_timeout'],
      ] as const) {
        const before = await database.db.selectFrom('payments').select('id').where('status', '=', 'pending').execute();
        const res = await post({
          ...base(),
          payment_plan_id: `${merchant.cardPlanId}-1`,
          credit_card_0_token: await tokenA(pay.sandboxes, number),
        });
        assert.equal(res.statusCode, status, res.body);
        assert.equal(res.json().code, code);
        const pending = await database.db
          .selectFrom('payments')
          .select(['id', 'order_id'])
          .where('status', '=', 'pending')
          .where('id', 'not in', before.length ? before.map((row) => row.id) : [0])
          .execute();
        assert.equal(pending.length, 1);
        const job = await database.db
          .selectFrom('jobs')
          .select('type')
          .where('dedup_key', '=', `payments.reconcile:${pending[0]!.id}`)
          .executeTakeFirst();
        assert.equal(job?.type, 'payments.reconcile');
        const order = await database.db
          .selectFrom('orders')
          .select('status')
          .where('id', '=', pending[0]!.order_id)
          .executeTakeFirstOrThrow();
        assert.equal(order.status, 'pending');
      }
    });
  });
}
