import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../../src/db/database.ts';
import { createGateway } from '../../../src/gateways/registry.ts';
import { sandboxGatewayUrls } from '../../../src/gateways/sandbox/server.ts';
import { usePayGatewayClients } from '../../../src/modules/payments/attempts/pay-gateways.ts';
import { VOID_ORPHAN_JOB } from '../../../src/modules/payments/attempts/orphan-capture.ts';
import { RECONCILE_JOB } from '../../../src/modules/payments/attempts/payment-record.ts';
import { sandboxLedger } from '../../scale/support/invariants.ts';
import { engines } from '../../support/engines.ts';
import { runQueuedJobs } from '../../support/pay-jobs.ts';
import {
  CARDS,
  confirmationTokenB,
  insertCart,
  insertCharge,
  ORIGIN,
  paymentsOfOrderUid,
  tokenA,
  type Merchant,
  type PayApp,
  usePayMerchant,
} from '../../support/pay-fixtures.ts';

const CONCURRENT = 20;

/**
 * Runs `burst` with gateway clients that wait as long as the service's own (10 s): the suite's 1 s clients would
 * give up on the one attempt the gateway is asked while this process also serves the other nineteen.
 */
async function withPatientClients<T>(burst: () => Promise<T>): Promise<T> {
  const previous = usePayGatewayClients((name) => createGateway(name, { timeoutMs: 10_000 }));
  try {
    return await burst();
  } finally {
    usePayGatewayClients(previous);
  }
}

/**
 * At most one payment attempt in flight per charge and per cart, decided in the database before the gateway is
 * called: concurrent attempts give one capture at the gateway (its own ledger says so), the others a 409 with
 * Retry-After (or the 422 of a paid charge), and nothing is left for the orphan-capture job to give back.
 */
for (const engine of engines()) {
  describe(`one payment attempt in flight per charge and cart on ${engine.name}`, { timeout: 180_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;

    usePayMerchant(engine, (setup) => ({ database, pay, merchant } = setup));

    const post = (path: string, payload: Record<string, unknown>, headers: Record<string, string> = {}) =>
      pay.app.inject({ method: 'POST', url: `/api/v1${path}`, headers: { ...ORIGIN, ...headers }, payload });
    const cardPlan = () => `${merchant.cardPlanId}-1`;
    /** The sandboxes' charges made for these orders of ours. */
    const ledgerOf = async (orderUids: string[]) =>
      (await sandboxLedger(sandboxGatewayUrls(pay.sandboxes))).filter((charge) =>
        orderUids.includes(charge.metadata.order_uid ?? ''),
      );
    const orphanVoidsQueued = async () =>
      (
        await database.db
          .selectFrom('jobs')
          .select('id')
          .where('account_id', '=', merchant.accountId)
          .where('type', '=', VOID_ORPHAN_JOB)
          .execute()
      ).length;
    const cartOrders = (cartId: string) =>
      database.db.selectFrom('orders').select(['uid', 'status']).where('cart_id', '=', cartId).execute();
    /** Every answer is the one 200 that paid, a 409 `payment_in_progress` with Retry-After, or the paid subject's 422. */
    const assertOneWinner = (answers: Awaited<ReturnType<typeof post>>[], paid: (body: any) => boolean) => {
      const winners = answers.filter((answer) => answer.statusCode === 200);
      assert.equal(winners.length, 1, answers.map((answer) => `${answer.statusCode} ${answer.body}`).join('\n'));
      assert.ok(paid(winners[0]!.json()), winners[0]!.body);
      for (const answer of answers.filter((candidate) => candidate.statusCode !== 200)) {
        const { code } = answer.json();
        if (answer.statusCode === 409) {
          assert.equal(code, 'payment_in_progress', answer.body);
          assert.match(String(answer.headers['retry-after']), /^[1-9][0-9]*$/);
        } else assert.deepEqual([answer.statusCode, code], [422, 'business_rule_violation'], answer.body);
      }
      assert.ok(answers.some((answer) => answer.statusCode === 409));
    };

    test('twenty concurrent pays of one charge: one capture at the gateway, nothing for the orphan job', async () => {
      const charge = await insertCharge(database, merchant);
      const tokens = await Promise.all(Array.from({ length: CONCURRENT }, () => tokenA(pay.sandboxes)));
      const answers = await withPatientClients(() =>
        Promise.all(
          tokens.map((token) =>
            post(`/charges/${charge.uid}/pay`, { payment_plan_id: cardPlan(), credit_card_0_token: token }),
          ),
        ),
      );
      assertOneWinner(answers, (body) => body.status === 'paid');
      const charged = await ledgerOf([charge.uid]);
      assert.deepEqual(
        charged.map((entry) => [entry.method, entry.state, entry.amount_cents]),
        [['credit_card', 'paid', 10_000]],
      );
      assert.deepEqual(
        (await paymentsOfOrderUid(database, charge.uid)).map((payment) => payment.status),
        ['paid'],
      );
      assert.equal(await orphanVoidsQueued(), 0);
    });

    test('twenty concurrent pays of one cart on gateway_b: one order, one capture', async () => {
      const cartId = await insertCart(database, merchant, { gateway: 'gateway_b' });
      const tokens = await Promise.all(Array.from({ length: CONCURRENT }, () => confirmationTokenB(pay.sandboxes)));
      const answers = await withPatientClients(() =>
        Promise.all(
          tokens.map((token) =>
            post(`/carts/${cartId}/pay`, { payment_plan_id: cardPlan(), confirmation_token_id: token }),
          ),
        ),
      );
      assertOneWinner(answers, (body) => body.order_status === 'paid');
      const orders = await cartOrders(cartId);
      assert.deepEqual(
        orders.map((order) => order.status),
        ['paid'],
      );
      const charged = await ledgerOf(orders.map((order) => order.uid));
      assert.deepEqual(
        charged.map((entry) => [entry.gateway, entry.state, entry.amount_cents]),
        [['gateway_b', 'paid', 11_500]],
      );
      assert.equal(await orphanVoidsQueued(), 0);
    });

    test('an attempt beside an unanswered one: 409 with Retry-After and no gateway call, not kept under its key; reconciled, the key runs and then replays', async () => {
      const charge = await insertCharge(database, merchant);
      const failing = await post(`/charges/${charge.uid}/pay`, {
        payment_plan_id: cardPlan(),
        credit_card_0_token: await tokenA(pay.sandboxes, CARDS.gatewayError),
      });
      assert.equal(failing.statusCode, 502, failing.body);
      const body = { payment_plan_id: cardPlan(), credit_card_0_token: await tokenA(pay.sandboxes) };
      const key = { 'idempotency-key': `in-flight-${charge.uid}` };
      const refused = await post(`/charges/${charge.uid}/pay`, body, key);
      assert.equal(refused.statusCode, 409, refused.body);
      const { request_id: requestId, ...error } = refused.json();
      assert.deepEqual(error, {
        code: 'payment_in_progress',
        message: 'Another payment of this charge got no answer from the gateway and is being reconciled; retry later',
      });
      assert.equal(typeof requestId, 'string');
      // The reconciliation looks two minutes after the unanswered call.
      const retryAfter = Number(refused.headers['retry-after']);
      assert.ok(retryAfter > 100 && retryAfter <= 120, String(retryAfter));
      assert.deepEqual(await ledgerOf([charge.uid]), []);
      const payments = await paymentsOfOrderUid(database, charge.uid);
      assert.equal(payments.length, 1);

      // The gateway failed and has no charge: reconciliation fails the payment, which frees the charge.
      assert.equal(await runQueuedJobs(database, pay, merchant.accountId, RECONCILE_JOB, [payments[0]!.id]), 1);
      const paid = await post(`/charges/${charge.uid}/pay`, body, key);
      assert.equal(paid.statusCode, 200, paid.body);
      assert.equal(paid.json().status, 'paid');
      assert.equal(paid.headers['idempotent-replayed'], undefined);
      const replayed = await post(`/charges/${charge.uid}/pay`, body, key);
      assert.equal(replayed.headers['idempotent-replayed'], 'true');
      assert.equal(replayed.body, paid.body);
      assert.equal((await ledgerOf([charge.uid])).length, 1);
    });

    test('a declined card frees the charge and the cart at once; a paid one answers the next attempt with 422', async () => {
      const charge = await insertCharge(database, merchant);
      const declined = await post(`/charges/${charge.uid}/pay`, {
        payment_plan_id: cardPlan(),
        credit_card_0_token: await tokenA(pay.sandboxes, CARDS.declined),
      });
      assert.equal(declined.json().status, 'failed', declined.body);
      const paid = await post(`/charges/${charge.uid}/pay`, {
        payment_plan_id: cardPlan(),
        credit_card_0_token: await tokenA(pay.sandboxes),
      });
      assert.equal(paid.json().status, 'paid', paid.body);
      const again = await post(`/charges/${charge.uid}/pay`, {
        payment_plan_id: cardPlan(),
        credit_card_0_token: await tokenA(pay.sandboxes),
      });
      assert.deepEqual([again.statusCode, again.json().code], [422, 'business_rule_violation']);

      const cartId = await insertCart(database, merchant);
      const cartDeclined = await post(`/carts/${cartId}/pay`, {
        payment_plan_id: cardPlan(),
        credit_card_0_token: await tokenA(pay.sandboxes, CARDS.insufficientFunds),
      });
      assert.equal(cartDeclined.statusCode, 422, cartDeclined.body);
      const cartPaid = await post(`/carts/${cartId}/pay`, {
        payment_plan_id: cardPlan(),
        credit_card_0_token: await tokenA(pay.sandboxes),
      });
      assert.equal(cartPaid.json().order_status, 'paid', cartPaid.body);
      const cartAgain = await post(`/carts/${cartId}/pay`, {
        payment_plan_id: cardPlan(),
        credit_card_0_token: await tokenA(pay.sandboxes),
      });
      assert.match(cartAgain.json().message, /already paid/);
    });

    test('an open pix is no attempt in flight: a card pays the charge beside it', async () => {
      const charge = await insertCharge(database, merchant);
      const pix = await post(`/charges/${charge.uid}/pay`, { payment_plan_id: `${merchant.pixPlanId}-1` });
      assert.equal(pix.statusCode, 200, pix.body);
      const card = await post(`/charges/${charge.uid}/pay`, {
        payment_plan_id: cardPlan(),
        credit_card_0_token: await tokenA(pay.sandboxes),
      });
      assert.equal(card.json().status, 'paid', card.body);
    });

    test('an attempt that stays unanswered blocks the charge for the in-flight lifetime only', async () => {
      const charge = await insertCharge(database, merchant);
      const timedOut = await post(`/charges/${charge.uid}/pay`, {
        payment_plan_id: cardPlan(),
        credit_card_0_token: await tokenA(pay.sandboxes, CARDS.gatewayTimeout),
      });
      assert.equal(timedOut.statusCode, 504, timedOut.body);
      const startedAt = (await paymentsOfOrderUid(database, charge.uid))[0]!.created_at.getTime();
      const attempt = async () =>
        post(`/charges/${charge.uid}/pay`, {
          payment_plan_id: cardPlan(),
          credit_card_0_token: await tokenA(pay.sandboxes),
        });
      try {
        pay.setNow(new Date(startedAt + 34 * 60_000));
        const still = await attempt();
        assert.equal(still.statusCode, 409, still.body);
        // Reconciliation has looked for the last time; the mark lapses a minute later.
        assert.equal(still.headers['retry-after'], '60');
        pay.setNow(new Date(startedAt + 36 * 60_000));
        const after = await attempt();
        assert.equal(after.json().status, 'paid', after.body);
      } finally {
        pay.setNow(undefined);
      }
    });
  });
}
