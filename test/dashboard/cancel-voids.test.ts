import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import {
  VOID_CANCELLED_ORDER_JOB,
  voidAttemptOfCancelledOrder,
} from '../../src/modules/payments/attempts/cancelled-order-void.ts';
import { applyPaymentAction } from '../../src/modules/payments/attempts/gateway-actions.ts';
import { engines } from '../support/engines.ts';
import { payAtSandbox, runQueuedJobs, sandboxChargeState } from '../support/pay-jobs.ts';
import { ORIGIN, type Merchant, type PayApp, usePayMerchant } from '../support/pay-fixtures.ts';
import { as, userSignedIn, type SignedInUser } from './support.ts';

/**
 * Cancelling an unpaid order from the dashboard closes its pix or boleto with it and voids them at the gateway (the
 * sandbox), each step on the order's event log; money the buyer sent before the void is flagged as paid after close.
 */
for (const engine of engines()) {
  describe(
    `an order cancelled in the dashboard voids its pix and boleto on ${engine.name}`,
    { timeout: 120_000 },
    () => {
      let database: Database;
      let pay: PayApp;
      let merchant: Merchant;
      let owner: SignedInUser;

      usePayMerchant(engine, async (setup) => {
        ({ database, pay, merchant } = setup);
        owner = await userSignedIn(pay.app, database, merchant, 'owner');
      });

      /** A pix or boleto payment through the public API: its order id, payment id and gateway id. */
      async function issue(method: 'pix' | 'boleto', email: string) {
        const plan = method === 'pix' ? merchant.pixPlanId : merchant.boletoPlanId;
        const res = await pay.app.inject({
          method: 'POST',
          url: '/api/v1/payments',
          headers: ORIGIN,
          payload: {
            checkout_page_id: merchant.pageId,
            products: [{ id: merchant.productId, quantity: 1 }],
            customer_email: email,
            payment_plan_id: `${plan}-1`,
            ...(method === 'boleto' ? { customer_name: 'Joana Pagadora', customer_identification: '52998224725' } : {}),
          },
        });
        assert.equal(res.statusCode, 200, res.body);
        const gatewayId = res.json().payments[0] as string;
        const payment = await database.db
          .selectFrom('payments')
          .select(['id', 'order_id', 'status'])
          .where('gateway_id', '=', gatewayId)
          .executeTakeFirstOrThrow();
        assert.equal(payment.status, 'waiting_payment');
        return { orderId: payment.order_id, paymentId: payment.id, gatewayId };
      }
      const cancel = (orderId: number) =>
        pay.app.inject({ method: 'POST', url: `/api/v1/dashboard/orders/${orderId}/cancel`, headers: as(owner) });
      const paymentStatus = async (id: number) =>
        (await database.db.selectFrom('payments').select('status').where('id', '=', id).executeTakeFirstOrThrow())
          .status;
      const events = (orderId: number) =>
        database.db
          .selectFrom('order_events')
          .select(['type', 'cause', 'payment_id', 'to_status'])
          .where('order_id', '=', orderId)
          .orderBy('id')
          .execute();

      for (const method of ['pix', 'boleto'] as const) {
        test(`the ${method} is cancelled with its order, then voided at the gateway, and the buyer can no longer pay it`, async () => {
          const issued = await issue(method, `void-${method}@example.com`);
          const res = await cancel(issued.orderId);
          assert.equal(res.statusCode, 200, res.body);
          assert.equal(await paymentStatus(issued.paymentId), 'cancelled');
          assert.equal(await sandboxChargeState(pay, issued.gatewayId), 'waiting_payment');

          assert.equal(await runQueuedJobs(database, pay, merchant.accountId, VOID_CANCELLED_ORDER_JOB), 1);
          assert.equal(await sandboxChargeState(pay, issued.gatewayId), 'cancelled');
          assert.equal(await payAtSandbox(pay, issued.gatewayId), 409);

          const log = await events(issued.orderId);
          const cancelledPayment = log.find(
            (event) => event.payment_id === issued.paymentId && event.to_status === 'cancelled',
          );
          assert.match(cancelledPayment!.cause, new RegExp(`dashboard: order cancelled by ${owner.email}`));
          const voided = log.filter((event) => event.type === 'payment.voided_at_gateway');
          assert.equal(voided.length, 1);
          assert.match(voided[0]!.cause, new RegExp(`${method} voided at gateway_a after the order was cancelled`));
          const order = await database.db
            .selectFrom('orders')
            .select('status')
            .where('id', '=', issued.orderId)
            .executeTakeFirstOrThrow();
          assert.equal(order.status, 'cancelled');
        });
      }

      test('a pix paid before the void is not voided; its money is flagged on the order as paid after close', async () => {
        const issued = await issue('pix', 'paid-before-void@example.com');
        assert.equal((await cancel(issued.orderId)).statusCode, 200);
        assert.equal(await payAtSandbox(pay, issued.gatewayId), 200);

        assert.equal(await runQueuedJobs(database, pay, merchant.accountId, VOID_CANCELLED_ORDER_JOB), 1);
        assert.equal(await sandboxChargeState(pay, issued.gatewayId), 'paid');
        const skipped = (await events(issued.orderId)).filter((event) => event.type === 'payment.void_skipped');
        assert.equal(skipped.length, 1);
        assert.match(skipped[0]!.cause, /reports it paid before the void/);

        // The gateway's paid event, as its webhook would apply it.
        const applied = await applyPaymentAction(database.db, {
          gateway: 'gateway_a',
          action: { kind: 'payment_paid', gatewayId: issued.gatewayId, paidAt: new Date() },
          accountId: merchant.accountId,
          at: new Date(),
        });
        assert.equal(applied.applied, false);
        assert.equal(await paymentStatus(issued.paymentId), 'cancelled');
        const late = (await events(issued.orderId)).filter((event) => event.type === 'payment.paid_after_close');
        assert.equal(late.length, 1);
        assert.match(late[0]!.cause, /returned to the buyer/);
      });

      test('an order whose payment is still at the gateway is not cancelled: 409 payment_in_progress, nothing changed', async () => {
        const issued = await issue('pix', 'in-flight@example.com');
        // The state of a payment whose gateway call is under way or went unanswered.
        await database.db
          .updateTable('payments')
          .set({ status: 'pending', created_at: new Date() })
          .where('id', '=', issued.paymentId)
          .execute();
        const res = await cancel(issued.orderId);
        assert.equal(res.statusCode, 409, res.body);
        assert.equal(res.json().code, 'payment_in_progress');
        assert.ok(Number(res.headers['retry-after']) >= 1);
        assert.equal(await paymentStatus(issued.paymentId), 'pending');
        const order = await database.db
          .selectFrom('orders')
          .select('status')
          .where('id', '=', issued.orderId)
          .executeTakeFirstOrThrow();
        assert.notEqual(order.status, 'cancelled');
      });

      test('a void run again after it wrote its outcome calls no gateway and logs nothing twice', async () => {
        const issued = await issue('boleto', 'void-again@example.com');
        assert.equal((await cancel(issued.orderId)).statusCode, 200);
        assert.equal(await runQueuedJobs(database, pay, merchant.accountId, VOID_CANCELLED_ORDER_JOB), 1);
        const ref = { accountId: merchant.accountId, paymentId: issued.paymentId };
        assert.equal(
          await voidAttemptOfCancelledOrder(
            database.db,
            { masterKey: pay.config.masterKey, gatewayUrls: { gateway_a: pay.sandboxes.baseUrlFor('gateway_a') } },
            ref,
            new Date(),
          ),
          'skipped',
        );
        const outcomes = (await events(issued.orderId)).filter((event) => event.type === 'payment.voided_at_gateway');
        assert.equal(outcomes.length, 1);
      });

      test('a second cancel answers 409 and queues no second void', async () => {
        const issued = await issue('pix', 'twice@example.com');
        assert.equal((await cancel(issued.orderId)).statusCode, 200);
        assert.equal((await cancel(issued.orderId)).statusCode, 409);
        const jobs = await database.db
          .selectFrom('jobs')
          .select('id')
          .where('type', '=', VOID_CANCELLED_ORDER_JOB)
          .where('account_id', '=', merchant.accountId)
          .where('status', '=', 'queued')
          .execute();
        assert.equal(jobs.length, 1);
      });
    },
  );
}
