import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../../src/db/database.ts';
import { transitionOrder } from '../../../src/modules/orders/order-status.ts';
import { applyPaymentAction } from '../../../src/modules/payments/attempts/gateway-actions.ts';
import { VOID_ORPHAN_JOB, VOID_SUPERSEDED_JOB } from '../../../src/modules/payments/attempts/orphan-capture.ts';
import { engines } from '../../support/engines.ts';
import { payAtSandbox, runQueuedJobs, sandboxChargeState } from '../../support/pay-jobs.ts';
import {
  insertCharge,
  ORIGIN,
  paymentsOfOrderUid,
  tokenA,
  type Merchant,
  type PayApp,
  usePayMerchant,
} from '../../support/pay-fixtures.ts';

/**
 * A charge (one order) is paid once: a pix or boleto issued before the buyer paid by card is voided at the
 * gateway and cancelled, and if the buyer paid it anyway, its money is given back in full.
 */
for (const engine of engines()) {
  describe(`a charge paid by card while its pix is open on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;

    usePayMerchant(engine, (setup) => ({ database, pay, merchant } = setup));

    const post = (path: string, payload: Record<string, unknown>) =>
      pay.app.inject({ method: 'POST', url: `/api/v1${path}`, headers: ORIGIN, payload });
    const runQueued = (type: string) => runQueuedJobs(database, pay, merchant.accountId, type);
    const ledgerState = (gatewayId: string) => sandboxChargeState(pay, gatewayId);
    const pixThenCard = async () => {
      const charge = await insertCharge(database, merchant);
      const pix = await post(`/charges/${charge.uid}/pay`, { payment_plan_id: `${merchant.pixPlanId}-1` });
      assert.equal(pix.statusCode, 200, pix.body);
      const card = await post(`/charges/${charge.uid}/pay`, {
        payment_plan_id: `${merchant.cardPlanId}-1`,
        credit_card_0_token: await tokenA(pay.sandboxes),
      });
      assert.equal(card.statusCode, 200, card.body);
      assert.equal(card.json().status, 'paid');
      const [pixPayment, cardPayment] = await paymentsOfOrderUid(database, charge.uid);
      assert.equal(pixPayment!.method, 'pix');
      return { charge, pixPayment: pixPayment!, cardPayment: cardPayment! };
    };
    const statuses = async (uid: string) =>
      (await paymentsOfOrderUid(database, uid)).map((payment) => `${payment.method}:${payment.status}`);

    test('the open pix is voided at the gateway and cancelled once the card paid the charge; the buyer can no longer pay it', async () => {
      const { charge, pixPayment } = await pixThenCard();
      assert.equal(await runQueued(VOID_SUPERSEDED_JOB), 1);
      assert.deepEqual(await statuses(charge.uid), ['pix:cancelled', 'credit_card:paid']);
      assert.equal(await ledgerState(pixPayment.gateway_id!), 'cancelled');
      const confirm = await fetch(
        `${pay.sandboxes.baseUrlFor('gateway_a')}/sandbox/charges/${pixPayment.gateway_id}/confirm`,
        { method: 'POST' },
      );
      assert.equal(confirm.status, 409);
      const order = await database.db
        .selectFrom('orders')
        .select(['status', 'paid_cents'])
        .where('id', '=', charge.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(order, { status: 'paid', paid_cents: 10_000 });
      const cancelled = await database.db
        .selectFrom('order_events')
        .select('cause')
        .where('order_id', '=', charge.id)
        .where('payment_id', '=', pixPayment.id)
        .where('to_status', '=', 'cancelled')
        .executeTakeFirstOrThrow();
      assert.match(cancelled.cause ?? '', /superseded/);
    });

    test('a pix the buyer paid before it was voided is recorded, then refunded in full: the charge keeps one payment’s money', async () => {
      const { charge, pixPayment } = await pixThenCard();
      // Paid at the gateway before the supersede job ran; this suite's sandboxes deliver no webhook.
      const confirm = await fetch(
        `${pay.sandboxes.baseUrlFor('gateway_a')}/sandbox/charges/${pixPayment.gateway_id}/confirm`,
        { method: 'POST' },
      );
      assert.equal(confirm.status, 200);
      assert.equal(await runQueued(VOID_SUPERSEDED_JOB), 1);
      assert.deepEqual(await statuses(charge.uid), ['pix:paid', 'credit_card:paid']);
      assert.equal(await runQueued(VOID_ORPHAN_JOB), 1);
      assert.deepEqual(await statuses(charge.uid), ['pix:refunded', 'credit_card:paid']);
      assert.equal(await ledgerState(pixPayment.gateway_id!), 'refunded');
      const order = await database.db
        .selectFrom('orders')
        .select('status')
        .where('id', '=', charge.id)
        .executeTakeFirstOrThrow();
      assert.equal(order.status, 'paid');
    });

    test('the paid webhook of the old pix arriving after the card is an overpayment, given back by the orphan job', async () => {
      const { charge, pixPayment } = await pixThenCard();
      await fetch(`${pay.sandboxes.baseUrlFor('gateway_a')}/sandbox/charges/${pixPayment.gateway_id}/confirm`, {
        method: 'POST',
      });
      const applied = await applyPaymentAction(database.db, {
        gateway: 'gateway_a',
        action: { kind: 'payment_paid', gatewayId: pixPayment.gateway_id!, paidAt: new Date() },
        at: new Date(),
      });
      assert.equal(applied.applied, true);
      const queued = await database.db
        .selectFrom('jobs')
        .select('type')
        .where('type', '=', VOID_ORPHAN_JOB)
        .where('status', '=', 'queued')
        .where('payload', '@>', JSON.stringify({ payment_id: pixPayment.id }) as never)
        .execute();
      assert.equal(queued.length, 1);
      assert.equal(await runQueued(VOID_SUPERSEDED_JOB), 1);
      await runQueued(VOID_ORPHAN_JOB);
      assert.deepEqual(await statuses(charge.uid), ['pix:refunded', 'credit_card:paid']);
      assert.equal(await ledgerState(pixPayment.gateway_id!), 'refunded');
    });

    test('an invoiced (billed) charge is covered too: the old pix paid afterwards is given back in full', async () => {
      const { charge, pixPayment } = await pixThenCard();
      await database.db.transaction().execute((trx) =>
        transitionOrder(trx, {
          accountId: merchant.accountId,
          orderId: charge.id,
          to: 'billed',
          cause: 'invoicing: invoice authorized',
          at: new Date(),
        }),
      );
      assert.equal(await payAtSandbox(pay, pixPayment.gateway_id!), 200);
      const applied = await applyPaymentAction(database.db, {
        gateway: 'gateway_a',
        action: { kind: 'payment_paid', gatewayId: pixPayment.gateway_id!, paidAt: new Date() },
        at: new Date(),
      });
      assert.equal(applied.applied, true);
      await runQueued(VOID_SUPERSEDED_JOB);
      assert.equal(await runQueued(VOID_ORPHAN_JOB), 1);
      assert.deepEqual(await statuses(charge.uid), ['pix:refunded', 'credit_card:paid']);
      assert.equal(await ledgerState(pixPayment.gateway_id!), 'refunded');
      const order = await database.db
        .selectFrom('orders')
        .select('status')
        .where('id', '=', charge.id)
        .executeTakeFirstOrThrow();
      assert.equal(order.status, 'billed');
    });

    test('a split whose cards both settle is not an overpayment: nothing is voided', async () => {
      const charge = await insertCharge(database, merchant);
      const card = await post(`/charges/${charge.uid}/pay`, {
        payment_plan_id: `${merchant.cardPlanId}-1`,
        credit_card_0_token: await tokenA(pay.sandboxes),
      });
      assert.equal(card.json().status, 'paid');
      assert.equal(await runQueued(VOID_SUPERSEDED_JOB), 0);
      assert.equal(await runQueued(VOID_ORPHAN_JOB), 0);
      assert.deepEqual(await statuses(charge.uid), ['credit_card:paid']);
    });

    test('two cards paying the charge at the same moment: never a 5xx, one attempt charged, nothing to give back', async () => {
      for (let round = 0; round < 4; round++) {
        const charge = await insertCharge(database, merchant);
        const tokens = [await tokenA(pay.sandboxes), await tokenA(pay.sandboxes)];
        const answers = await Promise.all(
          tokens.map((token) =>
            post(`/charges/${charge.uid}/pay`, {
              payment_plan_id: `${merchant.cardPlanId}-1`,
              credit_card_0_token: token,
            }),
          ),
        );
        // The second waits for no capture: it is refused while the first is in flight (409), or once it paid (422).
        const outcome = answers.map((answer) => answer.statusCode).sort();
        assert.ok(['200,409', '200,422'].includes(outcome.join(',')), answers.map((answer) => answer.body).join(' | '));
        assert.equal(await runQueued(VOID_ORPHAN_JOB), 0);
        assert.deepEqual(await statuses(charge.uid), ['credit_card:paid']);
        const [card] = await paymentsOfOrderUid(database, charge.uid);
        assert.equal(await ledgerState(card!.gateway_id!), 'paid');
      }
    });

    test('two open pix of the charge paid at the same moment: never a deadlock, one kept, the other given back', async () => {
      for (let round = 0; round < 4; round++) {
        const charge = await insertCharge(database, merchant);
        for (let pix = 0; pix < 2; pix++) {
          const issued = await post(`/charges/${charge.uid}/pay`, { payment_plan_id: `${merchant.pixPlanId}-1` });
          assert.equal(issued.statusCode, 200, issued.body);
        }
        const pixes = await paymentsOfOrderUid(database, charge.uid);
        for (const pix of pixes) assert.equal(await payAtSandbox(pay, pix.gateway_id!), 200);
        const applied = await Promise.all(
          pixes.map((pix) =>
            applyPaymentAction(database.db, {
              gateway: 'gateway_a',
              action: { kind: 'payment_paid', gatewayId: pix.gateway_id!, paidAt: new Date() },
              at: new Date(),
            }),
          ),
        );
        assert.deepEqual(
          applied.map((result) => result.applied),
          [true, true],
        );
        await runQueued(VOID_SUPERSEDED_JOB);
        assert.equal(await runQueued(VOID_ORPHAN_JOB), 1, 'the second money is an overpayment to give back');
        assert.deepEqual((await statuses(charge.uid)).sort(), ['pix:paid', 'pix:refunded']);
        const kept = await Promise.all(pixes.map((pix) => ledgerState(pix.gateway_id!)));
        assert.deepEqual(kept.sort(), ['paid', 'refunded']);
      }
    });
  });
}
