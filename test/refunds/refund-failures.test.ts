import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import type { GatewayName } from '../../src/gateways/port.ts';
import { engines } from '../support/engines.ts';
import { cardPagesByGateway, orderEventsOf, type Merchant, type PayApp, usePayMerchant } from '../support/pay-fixtures.ts';
import { paidByCard, remoteStatus } from './refund-fixtures.ts';

/**
 * Refund failures come from the real sandboxes over HTTP: the `next_refund` sandbox action makes a charge's
 * next refund call refuse (422), fail (500) or hold until the client gives up (504), once.
 */
for (const engine of engines()) {
  describe(`refund failures from the gateway sandboxes on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;
    let pages: Record<GatewayName, string>;

    usePayMerchant(engine, async (setup) => {
      ({ database, pay, merchant } = setup);
      pages = await cardPagesByGateway(database, merchant);
    });

    const paidOn = (gateway: GatewayName) => paidByCard(pay, database, merchant, pages[gateway], gateway);
    const arm = async (gateway: GatewayName, gatewayId: string, behaviour: string) => {
      const res = await fetch(`${pay.sandboxes.baseUrlFor(gateway)}/sandbox/charges/${gatewayId}/next_refund`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ behaviour }) });
      assert.equal(res.status, 200, await res.text());
    };
    const refund = (paymentId: number, payload: Record<string, unknown>) =>
      pay.app.inject({ method: 'POST', url: `/api/v1/payments/${paymentId}/refund`, headers: { authorization: `Bearer ${merchant.apiKey}` }, payload });
    const payment = (id: number) => database.db.selectFrom('payments').select(['status', 'refunded_cents']).where('id', '=', id).executeTakeFirstOrThrow();
    const order = (uid: string) => database.db.selectFrom('orders').select(['status', 'refunded_cents']).where('uid', '=', uid).executeTakeFirstOrThrow();
    const refundRows = (paymentId: number) => database.db.selectFrom('refunds').select(['status', 'amount_cents', 'gateway_refund_id']).where('payment_id', '=', paymentId).orderBy('id').execute();

    for (const gateway of ['gateway_a', 'gateway_b', 'gateway_c'] as const) {
      test(`${gateway}: a refusal (422), an acquirer error (502) and a timeout (504) record nothing and leave the refundable balance; the retry succeeds`, async () => {
        const paid = await paidOn(gateway);
        const cases = [
          ['refuse', 422, 'business_rule_violation', /refused the refund/],
          ['error', 502, 'gateway_error', /nothing was refunded/],
          ['timeout', 504, 'gateway_timeout', /did not answer the refund in time/],
        ] as const;
        for (const [behaviour, status, code, message] of cases) {
          await arm(gateway, paid.gatewayId, behaviour);
          const res = await refund(paid.paymentId, { amount: 10 });
          assert.equal(res.statusCode, status, `${behaviour}: ${res.body}`);
          assert.equal(res.json().code, code);
          assert.match(res.json().message, message);
          assert.equal(typeof res.json().request_id, 'string');
          assert.deepEqual(await payment(paid.paymentId), { status: 'paid', refunded_cents: 0 }, behaviour);
          assert.deepEqual(await order(paid.orderUid), { status: 'paid', refunded_cents: 0 }, behaviour);
          assert.equal(await remoteStatus(pay, gateway, paid.gatewayId), 'paid', behaviour);
        }
        assert.deepEqual((await refundRows(paid.paymentId)).map((row) => [row.status, row.gateway_refund_id]), [['failed', null], ['failed', null], ['failed', null]]);
        const failures = (await orderEventsOf(database, paid.orderUid)).filter((event) => event.type === 'refund.failed');
        assert.equal(failures.length, 3);

        // The whole amount is still refundable, and the next call (nothing armed) goes through.
        const retry = await refund(paid.paymentId, { amount: 10 });
        assert.equal(retry.statusCode, 200, retry.body);
        assert.deepEqual(await payment(paid.paymentId), { status: 'partially_refunded', refunded_cents: 1_000 });
        assert.deepEqual(await order(paid.orderUid), { status: 'partially_refunded', refunded_cents: 1_000 });
        assert.equal(await remoteStatus(pay, gateway, paid.gatewayId), 'partially_refunded');
        const rest = await refund(paid.paymentId, {});
        assert.equal(rest.statusCode, 200, rest.body);
        assert.deepEqual(await payment(paid.paymentId), { status: 'refunded', refunded_cents: 10_000 });
        const succeeded = (await refundRows(paid.paymentId)).filter((row) => row.status === 'succeeded');
        assert.deepEqual(succeeded.map((row) => row.amount_cents), [1_000, 9_000]);
      });
    }

    test('the next_refund action refuses an unknown behaviour and an unknown charge', async () => {
      const paid = await paidOn('gateway_a');
      const bad = await fetch(`${pay.sandboxes.baseUrlFor('gateway_a')}/sandbox/charges/${paid.gatewayId}/next_refund`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ behaviour: 'explode' }) });
      assert.equal(bad.status, 422);
      const unknown = await fetch(`${pay.sandboxes.baseUrlFor('gateway_a')}/sandbox/charges/ch_unknown/next_refund`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ behaviour: 'refuse' }) });
      assert.equal(unknown.status, 404);
      assert.equal((await refund(paid.paymentId, { amount: 5 })).statusCode, 200);
    });
  });
}
