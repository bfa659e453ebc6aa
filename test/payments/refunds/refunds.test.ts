import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../../src/db/database.ts';
import { createTenant } from '../../support/app.ts';
import { engines } from '../../support/engines.ts';
import {
  confirmationTokenB,
  insertPage,
  orderEventsOf,
  tokenA,
  CARDS,
  type Merchant,
  type PayApp,
  usePayMerchant,
} from '../../support/pay-fixtures.ts';
import { paidCardOrder, payOnPage, remoteStatus } from './refund-fixtures.ts';

for (const engine of engines()) {
  describe(`POST /payments/{id}/refund on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;

    usePayMerchant(engine, (setup) => ({ database, pay, merchant } = setup));

    const refund = (paymentId: number, payload?: Record<string, unknown>, apiKey = merchant.apiKey) =>
      pay.app.inject({
        method: 'POST',
        url: `/api/v1/payments/${paymentId}/refund`,
        headers: { authorization: `Bearer ${apiKey}` },
        ...(payload ? { payload } : {}),
      });
    const payment = (id: number) =>
      database.db
        .selectFrom('payments')
        .select(['status', 'refunded_cents', 'amount_cents', 'order_id'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
    const order = (uid: string) =>
      database.db
        .selectFrom('orders')
        .select(['status', 'refunded_cents', 'paid_cents'])
        .where('uid', '=', uid)
        .executeTakeFirstOrThrow();
    const refundsOf = (paymentId: number) =>
      database.db.selectFrom('refunds').selectAll().where('payment_id', '=', paymentId).orderBy('id').execute();

    test('a full refund (no body): 200 with an empty body, payment and order refunded, the sandbox shows it, events with causes', async () => {
      const paid = await paidCardOrder(pay, database, merchant);
      const res = await refund(paid.paymentIds[0]!);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.body, '');
      assert.deepEqual(
        await payment(paid.paymentIds[0]!).then(({ status, refunded_cents }) => ({ status, refunded_cents })),
        { status: 'refunded', refunded_cents: 10_000 },
      );
      assert.deepEqual(await order(paid.orderUid), { status: 'refunded', refunded_cents: 10_000, paid_cents: 10_000 });
      const [row] = await refundsOf(paid.paymentIds[0]!);
      assert.equal(row!.status, 'succeeded');
      assert.equal(row!.type, 'requested_by_customer');
      assert.equal(row!.amount_cents, 10_000);
      assert.match(row!.gateway_refund_id!, /^re_/);
      assert.equal(await remoteStatus(pay, 'gateway_a', paid.gatewayIds[0]!), 'refunded');
      const events = await orderEventsOf(database, paid.orderUid);
      assert.ok(
        events.some(
          (event) =>
            event.type === 'payment.status_changed' &&
            event.from_status === 'paid' &&
            event.to_status === 'refunded' &&
            /refund .* of 10000 cents/.test(event.cause),
        ),
      );
      assert.ok(
        events.some(
          (event) =>
            event.type === 'order.status_changed' && event.to_status === 'refunded' && /refund/.test(event.cause),
        ),
      );
      assert.ok(events.some((event) => event.type === 'refund.succeeded'));
    });

    test('partial refunds accumulate (R$ 30, R$ 20, then the rest); date and type are stored; a further refund is 422', async () => {
      const paid = await paidCardOrder(pay, database, merchant);
      const id = paid.paymentIds[0]!;
      // A payment of April 2024, so that a refund dated in May 2024 is not before it.
      await database.db
        .updateTable('payments')
        .set({ created_at: new Date('2024-04-30T10:00:00Z') })
        .where('id', '=', id)
        .execute();
      const first = await refund(id, { amount: 30, type: 'duplicate', date: '2024-05-01T10:00:00Z' });
      assert.equal(first.statusCode, 200, first.body);
      assert.deepEqual(await payment(id).then(({ status, refunded_cents }) => ({ status, refunded_cents })), {
        status: 'partially_refunded',
        refunded_cents: 3_000,
      });
      assert.deepEqual(await order(paid.orderUid), {
        status: 'partially_refunded',
        refunded_cents: 3_000,
        paid_cents: 10_000,
      });
      assert.equal(await remoteStatus(pay, 'gateway_a', paid.gatewayIds[0]!), 'partially_refunded');
      assert.equal((await refund(id, { amount: 20.5 })).statusCode, 200);
      assert.equal((await payment(id)).refunded_cents, 5_050);
      assert.equal((await refund(id)).statusCode, 200);
      assert.deepEqual(await payment(id).then(({ status, refunded_cents }) => ({ status, refunded_cents })), {
        status: 'refunded',
        refunded_cents: 10_000,
      });
      assert.deepEqual(await order(paid.orderUid), { status: 'refunded', refunded_cents: 10_000, paid_cents: 10_000 });
      const rows = await refundsOf(id);
      assert.deepEqual(
        rows.map((row) => [row.amount_cents, row.type, row.status]),
        [
          [3_000, 'duplicate', 'succeeded'],
          [2_050, 'requested_by_customer', 'succeeded'],
          [4_950, 'requested_by_customer', 'succeeded'],
        ],
      );
      assert.equal(rows[0]!.refunded_at.toISOString(), '2024-05-01T10:00:00.000Z');
      assert.equal(await remoteStatus(pay, 'gateway_a', paid.gatewayIds[0]!), 'refunded');
      const again = await refund(id, { amount: 1 });
      assert.equal(again.statusCode, 422);
      assert.equal(again.json().code, 'business_rule_violation');
    });

    test('over-refund → 422 and nothing changes; validation: future date, unknown type, unknown field, three decimals, zero', async () => {
      const paid = await paidCardOrder(pay, database, merchant);
      const id = paid.paymentIds[0]!;
      const over = await refund(id, { amount: 100.01 });
      assert.equal(over.statusCode, 422);
      assert.equal(over.json().code, 'business_rule_violation');
      assert.deepEqual(await payment(id).then(({ status, refunded_cents }) => ({ status, refunded_cents })), {
        status: 'paid',
        refunded_cents: 0,
      });
      assert.equal((await refundsOf(id)).length, 0);
      const future = await refund(id, { amount: 1, date: new Date(Date.now() + 3_600_000).toISOString() });
      assert.equal(future.statusCode, 422);
      assert.equal(future.json().details[0].field, 'body/date');
      for (const payload of [
        { type: 'because' },
        { reason: 'x' },
        { amount: 1.234 },
        { amount: 0 },
        { amount: '10' },
        { date: 'yesterday' },
      ]) {
        const res = await refund(id, payload);
        assert.equal(res.statusCode, 422, JSON.stringify(payload));
        assert.equal(res.json().code, 'validation_failed', JSON.stringify(payload));
      }
      assert.equal((await payment(id)).refunded_cents, 0);
      assert.equal(await remoteStatus(pay, 'gateway_a', paid.gatewayIds[0]!), 'paid');
    });

    test('a pix that is waiting cannot be refunded (422)', async () => {
      const pix = await payOnPage(pay, database, merchant, merchant.pageId, {
        payment_plan_id: `${merchant.pixPlanId}-1`,
      });
      assert.equal(pix.json.order_status, 'waiting_payment');
      const res = await refund(pix.paymentIds[0]!);
      assert.equal(res.statusCode, 422);
      assert.match(res.json().message, /waiting_payment/);
      assert.equal((await payment(pix.paymentIds[0]!)).status, 'waiting_payment');
    });

    test('transaction_id targets the second card of a split order; the order is refunded once both are; unknown transaction_id → 422', async () => {
      const splitPage = await insertPage(database.db, merchant, {
        products: [merchant.productId],
        plans: [merchant.cardPlanId],
        enableTwoCards: true,
      });
      const split = await payOnPage(pay, database, merchant, splitPage, {
        payment_plan_id: `${merchant.cardPlanId}-1`,
        credit_card_0_token: await tokenA(pay.sandboxes, CARDS.approved),
        credit_card_0_amount: 60,
        credit_card_0_payment_plan: `${merchant.cardPlanId}-1`,
        credit_card_1_token: await tokenA(pay.sandboxes, CARDS.approved),
        credit_card_1_amount: 40,
        credit_card_1_payment_plan: `${merchant.cardPlanId}-1`,
      });
      assert.equal(split.status, 200, JSON.stringify(split.json));
      const [first, second] = split.paymentIds as [number, number];
      const unknown = await refund(first, { transaction_id: 'ch_unknown' });
      assert.equal(unknown.statusCode, 422);
      assert.equal(unknown.json().details[0].field, 'body/transaction_id');
      const res = await refund(first, { transaction_id: split.gatewayIds[1] });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal((await payment(second)).status, 'refunded');
      assert.equal((await payment(first)).status, 'paid');
      assert.deepEqual(await order(split.orderUid), {
        status: 'partially_refunded',
        refunded_cents: 4_000,
        paid_cents: 10_000,
      });
      assert.equal(await remoteStatus(pay, 'gateway_a', split.gatewayIds[1]!), 'refunded');
      assert.equal(await remoteStatus(pay, 'gateway_a', split.gatewayIds[0]!), 'paid');
      assert.equal((await refundsOf(second))[0]!.transaction_id, split.gatewayIds[1]);
      assert.equal((await refund(first)).statusCode, 200);
      assert.deepEqual(await order(split.orderUid), { status: 'refunded', refunded_cents: 10_000, paid_cents: 10_000 });
    });

    test("another account's payment and an unknown id → 404; no key → 401", async () => {
      const paid = await paidCardOrder(pay, database, merchant);
      const other = await createTenant(database);
      const foreign = await refund(paid.paymentIds[0]!, {}, other.apiKey);
      assert.equal(foreign.statusCode, 404);
      assert.equal(foreign.json().code, 'not_found');
      assert.equal((await refund(2_000_000_000, {})).statusCode, 404);
      const anonymous = await pay.app.inject({
        method: 'POST',
        url: `/api/v1/payments/${paid.paymentIds[0]}/refund`,
        payload: {},
      });
      assert.equal(anonymous.statusCode, 401);
      assert.equal((await payment(paid.paymentIds[0]!)).status, 'paid');
    });

    test('10 concurrent partial refunds of R$ 15 on R$ 100: exactly 6 succeed, the rest get 422, never more than captured', async () => {
      const paid = await paidCardOrder(pay, database, merchant);
      const id = paid.paymentIds[0]!;
      const answers = await Promise.all(Array.from({ length: 10 }, () => refund(id, { amount: 15 })));
      const codes = answers.map((res) => res.statusCode).sort();
      assert.deepEqual(codes, [200, 200, 200, 200, 200, 200, 422, 422, 422, 422]);
      const rows = await refundsOf(id);
      const succeeded = rows.filter((row) => row.status === 'succeeded');
      assert.equal(succeeded.length, 6);
      assert.ok(succeeded.reduce((sum, row) => sum + row.amount_cents, 0) <= 10_000);
      assert.deepEqual(await payment(id).then(({ status, refunded_cents }) => ({ status, refunded_cents })), {
        status: 'partially_refunded',
        refunded_cents: 9_000,
      });
      assert.deepEqual(await order(paid.orderUid), {
        status: 'partially_refunded',
        refunded_cents: 9_000,
        paid_cents: 10_000,
      });
      assert.equal(await remoteStatus(pay, 'gateway_a', paid.gatewayIds[0]!), 'partially_refunded');
    });

    test('a gateway_b payment is refunded through its own API', async () => {
      const pageB = await insertPage(database.db, merchant, {
        gateway: 'gateway_b',
        products: [merchant.productId],
        plans: [merchant.cardPlanId],
      });
      const paid = await payOnPage(pay, database, merchant, pageB, {
        payment_plan_id: `${merchant.cardPlanId}-1`,
        confirmation_token_id: await confirmationTokenB(pay.sandboxes),
      });
      assert.equal(paid.status, 200, JSON.stringify(paid.json));
      assert.equal((await refund(paid.paymentIds[0]!, { amount: 25 })).statusCode, 200);
      assert.equal(await remoteStatus(pay, 'gateway_b', paid.gatewayIds[0]!), 'partially_refunded');
      assert.equal((await refund(paid.paymentIds[0]!)).statusCode, 200);
      assert.equal(await remoteStatus(pay, 'gateway_b', paid.gatewayIds[0]!), 'refunded');
      assert.equal((await payment(paid.paymentIds[0]!)).status, 'refunded');
    });
  });
}
