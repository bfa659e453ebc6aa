import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../../src/db/database.ts';
import { engines } from '../../support/engines.ts';
import { CARDS, ORIGIN, tokenA, type Merchant, type PayApp, usePayMerchant } from '../../support/pay-fixtures.ts';

for (const engine of engines()) {
  describe(`Idempotency-Key on POST /payments on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;

    usePayMerchant(engine, (setup) => ({ database, pay, merchant } = setup));

    const paymentsOfAccount = async () =>
      Number(
        (
          await database.db
            .selectFrom('payments')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('account_id', '=', merchant.accountId)
            .executeTakeFirstOrThrow()
        ).n,
      );

    test('20 concurrent payments with one key charge the card once; a retry replays the result', async () => {
      const before = await paymentsOfAccount();
      const body = {
        checkout_page_id: merchant.pageId,
        products: [{ id: merchant.productId, quantity: 1 }],
        customer_email: 'idem@example.com',
        payment_plan_id: `${merchant.cardPlanId}-1`,
        credit_card_0_token: await tokenA(pay.sandboxes),
      };
      const send = () =>
        pay.app.inject({
          method: 'POST',
          url: '/api/v1/payments',
          headers: { ...ORIGIN, 'idempotency-key': 'pay-burst-1' },
          payload: body,
        });
      const answers = await Promise.all(Array.from({ length: 20 }, send));
      const fresh = answers.filter((res) => res.statusCode === 200 && res.headers['idempotent-replayed'] === undefined);
      assert.equal(fresh.length, 1, answers.map((res) => res.statusCode).join(','));
      assert.ok(answers.every((res) => res.statusCode === 200 || res.statusCode === 409));
      for (const busy of answers.filter((res) => res.statusCode === 409))
        assert.equal(busy.headers['retry-after'], '1', busy.body);
      assert.equal(await paymentsOfAccount(), before + 1);
      const replay = await send();
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.deepEqual(replay.json(), fresh[0]!.json());
    });

    test('a gateway timeout or error leaves the payment pending and reconciled: the retry under the key replays the 504 or 502 and starts no second attempt', async () => {
      const before = await paymentsOfAccount();
      const attempt = async (card: string, key: string) => {
        const body = {
          checkout_page_id: merchant.pageId,
          products: [{ id: merchant.productId, quantity: 1 }],
          customer_email: `${key}@example.com`,
          payment_plan_id: `${merchant.cardPlanId}-1`,
          credit_card_0_token: await tokenA(pay.sandboxes, card),
        };
        const send = () =>
          pay.app.inject({
            method: 'POST',
            url: '/api/v1/payments',
            headers: { ...ORIGIN, 'idempotency-key': key },
            payload: body,
          });
        return [await send(), await send()] as const;
      };
      const [timedOut, replayed] = await attempt(CARDS.gatewayTimeout, 'pay-timeout-1');
      assert.equal(timedOut.statusCode, 504, timedOut.body);
      assert.equal(replayed.statusCode, 504);
      assert.equal(replayed.headers['idempotent-replayed'], 'true');
      assert.equal(await paymentsOfAccount(), before + 1);
      const [failed, retried] = await attempt(CARDS.gatewayError, 'pay-error-1');
      assert.equal(failed.statusCode, 502, failed.body);
      assert.equal(retried.statusCode, 502);
      assert.equal(retried.headers['idempotent-replayed'], 'true');
      assert.deepEqual(retried.json(), failed.json());
      assert.equal(await paymentsOfAccount(), before + 2);
    });

    test('the same key with another body is refused before anything is charged', async () => {
      const before = await paymentsOfAccount();
      const base = {
        checkout_page_id: merchant.pageId,
        products: [{ id: merchant.productId, quantity: 1 }],
        customer_email: 'idem2@example.com',
      };
      const first = await pay.app.inject({
        method: 'POST',
        url: '/api/v1/payments',
        headers: { ...ORIGIN, 'idempotency-key': 'pay-key-2' },
        payload: { ...base, payment_plan_id: `${merchant.pixPlanId}-1` },
      });
      assert.equal(first.statusCode, 200, first.body);
      const second = await pay.app.inject({
        method: 'POST',
        url: '/api/v1/payments',
        headers: { ...ORIGIN, 'idempotency-key': 'pay-key-2' },
        payload: {
          ...base,
          payment_plan_id: `${merchant.cardPlanId}-1`,
          credit_card_0_token: await tokenA(pay.sandboxes),
        },
      });
      assert.equal(second.statusCode, 422);
      assert.equal(second.json().code, 'idempotency_key_reused');
      assert.equal(await paymentsOfAccount(), before + 1);
    });
  });
}
