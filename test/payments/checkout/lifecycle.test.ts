import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Database } from '../../../src/db/database.ts';
import { paymentJobHandlers } from '../../../src/modules/payments/payments.jobs.ts';
import type { Job } from '../../../src/queue/job-handler.ts';
import { dateIn } from '../../../src/modules/orders/company-calendar.ts';
import { applyPaymentAction } from '../../../src/modules/payments/attempts/gateway-actions.ts';
import { scheduleDueRenewals } from '../../../src/modules/payments/subscriptions/subscription-renewal.ts';
import { engines } from '../../support/engines.ts';
import { sandboxChargeState } from '../../support/pay-jobs.ts';
import {
  BOLETO_PAYER,
  insertPage,
  ORIGIN,
  tokenA,
  type Merchant,
  type PayApp,
  usePayMerchant,
} from '../../support/pay-fixtures.ts';
import { insertCoupon } from '../../support/pricing-fixtures.ts';

const DAY = 86_400_000;

for (const engine of engines()) {
  describe(
    `subscriptions, pix expiry, gateway actions, scheduling and coupons on ${engine.name}`,
    { timeout: 120_000 },
    () => {
      let database: Database;
      let pay: PayApp;
      let merchant: Merchant;

      usePayMerchant(engine, (setup) => ({ database, pay, merchant } = setup));

      const post = (payload: Record<string, unknown>) =>
        pay.app.inject({ method: 'POST', url: '/api/v1/payments', headers: ORIGIN, payload });
      const handlersAt = (now: Date) =>
        paymentJobHandlers({
          masterKey: pay.config.masterKey,
          gatewayUrls: { gateway_a: pay.sandboxes.baseUrlFor('gateway_a') },
          clock: () => now,
        });
      const job = (type: string, payload: unknown): Job => ({
        id: 0,
        type,
        payload,
        accountId: merchant.accountId,
        attempts: 1,
      });
      const runJob = (now: Date, type: string, payload: unknown) =>
        handlersAt(now)[type]!(job(type, payload), { database });

      test('a subscription product: is_subscription, the card saved, a subscription row and its renewal job; renewals with a controllable clock', async () => {
        const res = await post({
          checkout_page_id: merchant.pageId,
          products: [{ id: merchant.subscriptionProductId, quantity: 1 }],
          customer_email: 'sub@example.com',
          payment_plan_id: `${merchant.cardPlanId}-1`,
          credit_card_0_token: await tokenA(pay.sandboxes),
        });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.json().is_subscription, true);
        const sub = await database.db
          .selectFrom('subscriptions')
          .selectAll()
          .where('account_id', '=', merchant.accountId)
          .executeTakeFirstOrThrow();
        assert.equal(sub.interval, 'month');
        assert.equal(sub.amount_cents, 4_990);
        assert.ok(sub.saved_payment_method_id);
        assert.equal(sub.next_charge_at!.getTime(), sub.current_period_end.getTime());
        const queued = await database.db
          .selectFrom('jobs')
          .select(['run_at'])
          .where('type', '=', 'subscriptions.renew')
          .where('status', '=', 'queued')
          .execute();
        assert.equal(queued.length, 1);
        assert.equal(queued[0]!.run_at.getTime(), sub.next_charge_at!.getTime());

        assert.equal(await scheduleDueRenewals(database.db, new Date()), 0); // not due yet
        const early = new Date(sub.next_charge_at!.getTime() - 1000);
        await runJob(early, 'subscriptions.renew', { account_id: merchant.accountId, subscription_id: sub.id });
        assert.equal(
          (await database.db.selectFrom('orders').select('id').where('source', '=', 'subscription').execute()).length,
          0,
        );

        const due = new Date(sub.next_charge_at!.getTime() + 1000);
        await runJob(due, 'subscriptions.renew', { account_id: merchant.accountId, subscription_id: sub.id });
        await runJob(due, 'subscriptions.renew', { account_id: merchant.accountId, subscription_id: sub.id }); // a duplicate job charges nothing
        const renewals = await database.db
          .selectFrom('orders')
          .select(['id', 'status', 'parent_order_id', 'total_cents'])
          .where('source', '=', 'subscription')
          .execute();
        assert.equal(renewals.length, 1);
        assert.equal(renewals[0]!.status, 'paid');
        assert.equal(renewals[0]!.total_cents, 4_990);
        assert.equal(renewals[0]!.parent_order_id, sub.origin_order_id);
        const renewed = await database.db
          .selectFrom('subscriptions')
          .selectAll()
          .where('id', '=', sub.id)
          .executeTakeFirstOrThrow();
        assert.equal(renewed.current_period_start.getTime(), sub.current_period_end.getTime());
        assert.ok(renewed.next_charge_at! > sub.next_charge_at!);

        // Without a usable card the renewal fails, is retried after 1, 3 and 5 days, then the subscription is cancelled.
        await database.db
          .updateTable('saved_payment_methods')
          .set({ revoked_at: new Date() })
          .where('id', '=', sub.saved_payment_method_id!)
          .execute();
        let now = new Date(renewed.next_charge_at!.getTime() + 1000);
        const retries: number[] = [];
        for (let attempt = 0; attempt < 4; attempt++) {
          await runJob(now, 'subscriptions.renew', { account_id: merchant.accountId, subscription_id: sub.id });
          const state = await database.db
            .selectFrom('subscriptions')
            .select(['status', 'next_charge_at', 'failed_attempts'])
            .where('id', '=', sub.id)
            .executeTakeFirstOrThrow();
          if (state.next_charge_at) {
            retries.push(Math.round((state.next_charge_at.getTime() - now.getTime()) / DAY));
            now = new Date(state.next_charge_at.getTime() + 1000);
          } else
            assert.deepEqual(
              { status: state.status, failed_attempts: state.failed_attempts },
              { status: 'cancelled', failed_attempts: 4 },
            );
        }
        assert.deepEqual(retries, [1, 3, 5]);
      });

      test('a renewal due at a time written by SQL (microseconds) is charged once, like one written by the service', async () => {
        const res = await post({
          checkout_page_id: merchant.pageId,
          products: [{ id: merchant.subscriptionProductId, quantity: 1 }],
          customer_email: 'sql-due@example.com',
          payment_plan_id: `${merchant.cardPlanId}-1`,
          credit_card_0_token: await tokenA(pay.sandboxes),
        });
        assert.equal(res.statusCode, 200, res.body);
        const order = await database.db
          .selectFrom('payments')
          .select('order_id')
          .where('gateway_id', '=', res.json().payments[0])
          .executeTakeFirstOrThrow();
        const sub = await database.db
          .selectFrom('subscriptions')
          .select('id')
          .where('origin_order_id', '=', order.order_id)
          .executeTakeFirstOrThrow();
        await sql`UPDATE subscriptions SET current_period_end = now() - interval '1.234567 seconds', next_charge_at = now() - interval '1.234567 seconds' WHERE id = ${sub.id}`.execute(
          database.db,
        );
        const now = new Date();
        await runJob(now, 'subscriptions.renew', { account_id: merchant.accountId, subscription_id: sub.id });
        await runJob(now, 'subscriptions.renew', { account_id: merchant.accountId, subscription_id: sub.id });
        const renewals = await database.db
          .selectFrom('orders')
          .select('status')
          .where('source', '=', 'subscription')
          .where('parent_order_id', '=', order.order_id)
          .execute();
        assert.deepEqual(renewals, [{ status: 'paid' }]);
      });

      const ledgerState = (gatewayId: string) => sandboxChargeState(pay, gatewayId);

      test('payments.expire_pix: a pix still waiting at expiry is voided at the gateway, then cancelled with its checkout order; earlier it waits', async () => {
        const res = await post({
          checkout_page_id: merchant.pageId,
          products: [{ id: merchant.productId, quantity: 1 }],
          customer_email: 'pix@example.com',
          payment_plan_id: `${merchant.pixPlanId}-1`,
        });
        const payment = await database.db
          .selectFrom('payments')
          .selectAll()
          .where('gateway_id', '=', res.json().payments[0])
          .executeTakeFirstOrThrow();
        await runJob(new Date(payment.pix_expires_at!.getTime() - 1000), 'payments.expire_pix', {
          account_id: merchant.accountId,
          payment_id: payment.id,
        });
        assert.equal(
          (
            await database.db
              .selectFrom('payments')
              .select('status')
              .where('id', '=', payment.id)
              .executeTakeFirstOrThrow()
          ).status,
          'waiting_payment',
        );
        assert.equal(await ledgerState(payment.gateway_id!), 'waiting_payment');
        await runJob(new Date(payment.pix_expires_at!.getTime() + 1000), 'payments.expire_pix', {
          account_id: merchant.accountId,
          payment_id: payment.id,
        });
        assert.equal(
          (
            await database.db
              .selectFrom('payments')
              .select('status')
              .where('id', '=', payment.id)
              .executeTakeFirstOrThrow()
          ).status,
          'cancelled',
        );
        // The buyer can no longer pay it: the gateway's charge is cancelled and refuses a confirmation.
        assert.equal(await ledgerState(payment.gateway_id!), 'cancelled');
        const confirm = await fetch(
          `${pay.sandboxes.baseUrlFor('gateway_a')}/sandbox/charges/${payment.gateway_id}/confirm`,
          { method: 'POST' },
        );
        assert.equal(confirm.status, 409);
        const events = await database.db
          .selectFrom('order_events')
          .select(['from_status', 'to_status', 'type'])
          .where('order_id', '=', payment.order_id)
          .where('type', '=', 'order.status_changed')
          .orderBy('id')
          .execute();
        assert.deepEqual(
          events.map((event) => [event.from_status, event.to_status]),
          [
            ['pending', 'waiting_payment'],
            ['waiting_payment', 'pending'],
            ['pending', 'cancelled'],
          ],
        );
      });

      test('payments.expire_pix: a pix the gateway shows paid (its webhook not applied) is recorded paid at expiry, never cancelled', async () => {
        const res = await post({
          checkout_page_id: merchant.pageId,
          products: [{ id: merchant.productId, quantity: 1 }],
          customer_email: 'pix-late@example.com',
          payment_plan_id: `${merchant.pixPlanId}-1`,
        });
        const payment = await database.db
          .selectFrom('payments')
          .selectAll()
          .where('gateway_id', '=', res.json().payments[0])
          .executeTakeFirstOrThrow();
        // Paid at the gateway; this suite's sandboxes deliver no webhook, as when a delivery is lost.
        const confirm = await fetch(
          `${pay.sandboxes.baseUrlFor('gateway_a')}/sandbox/charges/${payment.gateway_id}/confirm`,
          { method: 'POST' },
        );
        assert.equal(confirm.status, 200);
        assert.equal(
          (
            await database.db
              .selectFrom('payments')
              .select('status')
              .where('id', '=', payment.id)
              .executeTakeFirstOrThrow()
          ).status,
          'waiting_payment',
        );
        await runJob(new Date(payment.pix_expires_at!.getTime() + 1000), 'payments.expire_pix', {
          account_id: merchant.accountId,
          payment_id: payment.id,
        });
        const after = await database.db
          .selectFrom('payments')
          .innerJoin('orders', 'orders.id', 'payments.order_id')
          .select(['payments.status', 'orders.status as order_status'])
          .where('payments.id', '=', payment.id)
          .executeTakeFirstOrThrow();
        assert.deepEqual(after, { status: 'paid', order_status: 'paid' });
        assert.equal(await ledgerState(payment.gateway_id!), 'paid');
      });

      test('applyPaymentAction: a boleto paid later is paid once; a late failure or a duplicate changes nothing; refunds are counted once', async () => {
        const coupon = await insertCoupon(database.db, merchant, { code: 'LATER5', percentage: 5, usageLimit: 10 });
        const res = await post({
          checkout_page_id: merchant.pageId,
          products: [{ id: merchant.productId, quantity: 1 }],
          customer_email: 'slip@example.com',
          ...BOLETO_PAYER,
          payment_plan_id: `${merchant.boletoPlanId}-1`,
          coupon: 'later5',
        });
        assert.equal(res.statusCode, 200, res.body);
        const gatewayId = res.json().payments[0];
        const paid = await applyPaymentAction(database.db, {
          gateway: 'gateway_a',
          action: { kind: 'payment_paid', gatewayId, paidAt: new Date() },
          at: new Date(),
        });
        assert.equal(paid.applied, true);
        assert.equal(
          (
            await applyPaymentAction(database.db, {
              gateway: 'gateway_a',
              action: { kind: 'payment_paid', gatewayId, paidAt: new Date() },
              at: new Date(),
            })
          ).applied,
          false,
        );
        assert.equal(
          (
            await applyPaymentAction(database.db, {
              gateway: 'gateway_a',
              action: { kind: 'payment_failed', gatewayId, reason: 'late' },
              at: new Date(),
            })
          ).applied,
          false,
        );
        const payment = await database.db
          .selectFrom('payments')
          .select(['status', 'order_id', 'amount_cents'])
          .where('gateway_id', '=', gatewayId)
          .executeTakeFirstOrThrow();
        assert.equal(payment.status, 'paid');
        assert.equal(
          (
            await database.db
              .selectFrom('orders')
              .select('status')
              .where('id', '=', payment.order_id)
              .executeTakeFirstOrThrow()
          ).status,
          'paid',
        );
        assert.equal(
          (
            await database.db
              .selectFrom('coupons')
              .select('used_count')
              .where('id', '=', coupon)
              .executeTakeFirstOrThrow()
          ).used_count,
          1,
        );
        const refund = { kind: 'payment_refunded' as const, gatewayId, amountCents: 1000, refundId: 're_1' };
        assert.equal(
          (await applyPaymentAction(database.db, { gateway: 'gateway_a', action: refund, at: new Date() })).applied,
          true,
        );
        assert.equal(
          (await applyPaymentAction(database.db, { gateway: 'gateway_a', action: refund, at: new Date() })).applied,
          false,
        );
        assert.equal(
          (
            await database.db
              .selectFrom('payments')
              .select('refunded_cents')
              .where('gateway_id', '=', gatewayId)
              .executeTakeFirstOrThrow()
          ).refunded_cents,
          1000,
        );
        assert.equal(
          (
            await database.db
              .selectFrom('orders')
              .select('status')
              .where('id', '=', payment.order_id)
              .executeTakeFirstOrThrow()
          ).status,
          'partially_refunded',
        );
        assert.equal(
          (
            await applyPaymentAction(database.db, {
              gateway: 'gateway_a',
              action: { kind: 'payment_paid', gatewayId: 'ch_unknown', paidAt: new Date() },
              at: new Date(),
            })
          ).reason,
          'unknown payment',
        );
      });

      test('scheduling: required on a scheduling page, refused elsewhere, must be a slot; two buyers of one slot: one 409', async () => {
        for (let weekday = 0; weekday < 7; weekday++) {
          await database.db
            .insertInto('company_schedules')
            .values({
              account_id: merchant.accountId,
              company_id: merchant.companyId,
              weekday,
              starts_at: '09:00',
              ends_at: '17:00',
              slot_minutes: 60,
            })
            .execute();
        }
        const pageId = await insertPage(database.db, merchant, {
          products: [merchant.productId],
          plans: [merchant.pixPlanId],
          requireScheduling: true,
        });
        const day = dateIn('America/Sao_Paulo', new Date(Date.now() + 2 * DAY));
        const slot = `${day}T10:00:00-03:00`;
        const body = (email: string, extra: Record<string, unknown> = {}) => ({
          checkout_page_id: pageId,
          products: [{ id: merchant.productId, quantity: 1 }],
          customer_email: email,
          payment_plan_id: `${merchant.pixPlanId}-1`,
          ...extra,
        });
        assert.equal((await post(body('s0@example.com'))).statusCode, 422);
        assert.equal((await post(body('s0@example.com', { scheduled_at: `${day}T10:30:00-03:00` }))).statusCode, 422);
        assert.equal(
          (
            await post({
              ...body('s0@example.com', { scheduled_at: slot }),
              checkout_page_id: merchant.pageId,
              payment_plan_id: `${merchant.pixPlanId}-1`,
            })
          ).statusCode,
          422,
        );
        const [first, second] = await Promise.all([
          post(body('s1@example.com', { scheduled_at: slot })),
          post(body('s2@example.com', { scheduled_at: slot })),
        ]);
        assert.deepEqual([first.statusCode, second.statusCode].sort(), [200, 409]);
        const bookings = await database.db
          .selectFrom('appointment_bookings')
          .select(['status', 'order_id'])
          .where('account_id', '=', merchant.accountId)
          .execute();
        assert.equal(bookings.filter((booking) => booking.status === 'booked').length, 1);
        assert.ok(bookings[0]!.order_id);
      });

      test('coupons: an invalid one is a 422 with its message; the discount is the server’s', async () => {
        const unknown = await post({
          checkout_page_id: merchant.pageId,
          products: [{ id: merchant.productId, quantity: 1 }],
          customer_email: 'c@example.com',
          payment_plan_id: `${merchant.pixPlanId}-1`,
          coupon: 'NOPE',
        });
        assert.equal(unknown.statusCode, 422);
        assert.equal(unknown.json().message, 'Coupon not found');
        await insertCoupon(database.db, merchant, { code: 'TEN', percentage: 10 });
        const res = await post({
          checkout_page_id: merchant.pageId,
          products: [{ id: merchant.productId, quantity: 1 }],
          customer_email: 'c@example.com',
          payment_plan_id: `${merchant.cardPlanId}-1`,
          coupon: 'ten',
          credit_card_0_token: await tokenA(pay.sandboxes),
          credit_card_0_amount: 90,
        });
        assert.equal(res.statusCode, 200, res.body);
        const payment = await database.db
          .selectFrom('payments as p')
          .innerJoin('orders as o', 'o.id', 'p.order_id')
          .select(['p.amount_cents', 'o.discount_cents', 'o.coupon_code'])
          .where('p.gateway_id', '=', res.json().payments[0])
          .executeTakeFirstOrThrow();
        assert.deepEqual(payment, { amount_cents: 9_000, discount_cents: 1_000, coupon_code: 'TEN' });
      });

      if (engine.name === 'postgres') {
        test('a coupon limited to 2 uses under 10 concurrent card payments is used exactly twice; the others are refused before charging', async () => {
          const couponId = await insertCoupon(database.db, merchant, { code: 'LIMIT2', percentage: 10, usageLimit: 2 });
          const tokens = await Promise.all(Array.from({ length: 10 }, () => tokenA(pay.sandboxes)));
          const results = await Promise.all(
            tokens.map((token, i) =>
              post({
                checkout_page_id: merchant.pageId,
                products: [{ id: merchant.productId, quantity: 1 }],
                customer_email: `race${i}@example.com`,
                payment_plan_id: `${merchant.cardPlanId}-1`,
                coupon: 'LIMIT2',
                credit_card_0_token: token,
              }),
            ),
          );
          assert.equal(results.filter((res) => res.statusCode === 200).length, 2);
          assert.ok(results.every((res) => res.statusCode === 200 || res.statusCode === 422));
          assert.equal(
            (
              await database.db
                .selectFrom('coupons')
                .select('used_count')
                .where('id', '=', couponId)
                .executeTakeFirstOrThrow()
            ).used_count,
            2,
          );
          const redemptions = await database.db
            .selectFrom('coupon_redemptions')
            .select('order_id')
            .where('coupon_id', '=', couponId)
            .execute();
          assert.equal(redemptions.length, 2);
          const charged = await database.db
            .selectFrom('payments as p')
            .innerJoin('orders as o', 'o.id', 'p.order_id')
            .select('p.status')
            .where('o.coupon_id', '=', couponId)
            .execute();
          assert.deepEqual(
            charged.map((row) => row.status),
            ['paid', 'paid'],
          );
        });
      }
    },
  );
}
