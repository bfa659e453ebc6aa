import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isValidBoleto } from '@brazilian-utils/brazilian-utils';
import { hasError, parsePix } from 'pix-utils';
import { pino } from 'pino';
import type { Database } from '../../../src/db/database.ts';
import type { GatewayName } from '../../../src/gateways/port.ts';
import type { Worker } from '../../../src/jobs/worker.ts';
import { createEndpoint } from '../../../src/modules/notifications/endpoints.service.ts';
import { BOLETO_CONFIRMATION_DAYS } from '../../../src/modules/payments/subscriptions/subscription-attempt.ts';
import { scheduleDueRenewals } from '../../../src/modules/payments/subscriptions/subscription-renewal.ts';
import { RENEWAL_PAYMENT_WINDOW_DAYS } from '../../../src/modules/payments/subscriptions/subscriptions.ts';
import { createWorker } from '../../../src/runtime.ts';
import { testClock, type TestClock } from '../../notifications/fixtures.ts';
import { Receiver } from '../../notifications/receiver.ts';
import { engines } from '../../support/engines.ts';
import { BOLETO_PAYER, insertPage, ORIGIN } from '../../support/pay-fixtures.ts';
import { startWebhookApp, type WebhookApp, confirmAtSandbox } from '../../support/webhooks-fixtures.ts';

const DAY = 86_400_000;

type Event = {
  type: string;
  data: {
    order: { id: number; status: string };
    subscription?: { id: string; status: string };
    payment_due?: Record<string, string | number>;
  };
};

/**
 * Subscriptions paid by pix or boleto renew by a new pix or boleto per period: issued ahead of the due
 * date, renewed when the gateway's real webhook confirms it, retried and then cancelled when unpaid. The
 * sandboxes are real HTTP servers that deliver their webhooks to the app; the worker runs on a
 * controllable clock (the subscription's dates are moved with SQL to keep it close to the sandboxes').
 */
for (const engine of engines()) {
  describe(`subscriptions renewed by pix and boleto on ${engine.name}`, { timeout: 240_000 }, () => {
    let database: Database;
    let hooks: WebhookApp;
    let clock: TestClock;
    let worker: Worker;
    const receiver = new Receiver({ secrets: [], now: () => clock.now() });
    let boletoPageB: string;

    before(async () => {
      database = await engine.open();
      hooks = await startWebhookApp(database);
      clock = testClock();
      const url = await receiver.start();
      receiver.options.secrets = [
        (
          await createEndpoint(
            database.db,
            hooks.config.masterKey,
            {
              accountId: hooks.merchant.accountId,
              url,
              eventTypes: ['subscription.payment_due', 'subscription.renewed', 'subscription.cancelled'],
            },
            new Date(),
          )
        ).secret,
      ];
      worker = createWorker(database, pino({ level: 'silent' }), {
        masterKey: hooks.config.masterKey,
        gatewayUrls: hooks.sandboxes.urls,
        clock: clock.now,
        notifications: { publicUrl: hooks.config.publicUrl, allowPrivateNetworks: true },
      });
      boletoPageB = await insertPage(database.db, hooks.merchant, {
        gateway: 'gateway_b',
        products: [hooks.merchant.subscriptionProductId],
        plans: [hooks.merchant.boletoPlanId],
      });
    });
    after(async () => {
      await receiver.close();
      await hooks.close();
      await database.close();
    });

    /** The worker's tick (due renewals swept into jobs), then its runs until nothing is due. */
    const drain = async () => {
      await scheduleDueRenewals(database.db, clock.now());
      for (let runs = 0; runs < 100; runs++) if ((await worker.runOnce()) === 0) return;
      throw new Error('the worker did not go idle');
    };
    /** The subscription's notifications the merchant received (signature verified), in the order they arrived. */
    const eventsOf = (subscriptionId: string) =>
      receiver.received
        .filter((entry) => entry.answered === 200 && entry.verifiedBy.length === 1)
        .map((entry) => JSON.parse(entry.body) as Event)
        .filter((event) => event.data.subscription?.id === subscriptionId);
    const subscriptionOf = (originOrderId: number) =>
      database.db
        .selectFrom('subscriptions')
        .selectAll()
        .where('origin_order_id', '=', originOrderId)
        .executeTakeFirstOrThrow();
    const renewalPayments = (originOrderId: number) =>
      database.db
        .selectFrom('payments as p')
        .innerJoin('orders as o', 'o.id', 'p.order_id')
        .select([
          'p.id',
          'p.uid',
          'p.method',
          'p.gateway',
          'p.gateway_id',
          'p.status',
          'p.pix_code',
          'p.pix_expires_at',
          'p.boleto_digitable_line',
          'p.boleto_due_date',
          'o.id as order_id',
          'o.status as order_status',
        ])
        .where('o.parent_order_id', '=', originOrderId)
        .where('o.source', '=', 'subscription')
        .orderBy('p.id')
        .execute();
    const orderStatus = async (orderId: number) =>
      (await database.db.selectFrom('orders').select('status').where('id', '=', orderId).executeTakeFirstOrThrow())
        .status;
    const confirm = (gateway: GatewayName, gatewayId: string, orderId: number) =>
      confirmAtSandbox(hooks, database, { gateway, gatewayId, orderId });
    const subscribe = async (pageId: string, planId: number, gateway: GatewayName, email: string) => {
      const res = await hooks.app.inject({
        method: 'POST',
        url: '/api/v1/payments',
        headers: ORIGIN,
        payload: {
          checkout_page_id: pageId,
          products: [{ id: hooks.merchant.subscriptionProductId, quantity: 1 }],
          customer_email: email,
          ...BOLETO_PAYER,
          payment_plan_id: `${planId}-1`,
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().is_subscription, true);
      const payment = await database.db
        .selectFrom('payments')
        .select(['order_id', 'gateway_id'])
        .where('gateway_id', '=', res.json().payments[0])
        .executeTakeFirstOrThrow();
      await confirm(gateway, payment.gateway_id!, payment.order_id);
      await drain(); // payments.release_paid_order starts the subscription
      return subscriptionOf(payment.order_id);
    };
    /** The period ends a payment window from now, so its renewal is due now (and the clock stays near the sandboxes'). */
    const dueNow = async (id: string) => {
      await database.db
        .updateTable('subscriptions')
        .set({
          current_period_end: new Date(clock.now().getTime() + RENEWAL_PAYMENT_WINDOW_DAYS * DAY),
          next_charge_at: clock.now(),
        })
        .where('id', '=', id)
        .execute();
    };

    test("pix: issued a payment window before the period ends, announced with its copy-paste code, renewed by the gateway's webhook; an unpaid one is retried", async () => {
      const sub = await subscribe(hooks.merchant.pageId, hooks.merchant.pixPlanId, 'gateway_a', 'pix-club@example.com');
      assert.deepEqual(
        { method: sub.renewal_method, gateway: sub.renewal_gateway, card: sub.saved_payment_method_id },
        { method: 'pix', gateway: 'gateway_a', card: null },
      );
      assert.equal(
        sub.next_charge_at!.getTime(),
        sub.current_period_end.getTime() - RENEWAL_PAYMENT_WINDOW_DAYS * DAY,
        'issued a payment window ahead',
      );

      await dueNow(sub.id);
      const periodEnd = (await subscriptionOf(sub.origin_order_id)).current_period_end;
      await drain();
      const [pix] = await renewalPayments(sub.origin_order_id);
      assert.deepEqual(
        { method: pix!.method, status: pix!.status, order: pix!.order_status },
        { method: 'pix', status: 'waiting_payment', order: 'waiting_payment' },
      );
      // The gateway states the expiry in whole seconds from its own clock: within a few seconds of the one asked for.
      assert.ok(
        Math.abs(pix!.pix_expires_at!.getTime() - (clock.now().getTime() + RENEWAL_PAYMENT_WINDOW_DAYS * DAY)) < 5_000,
      );
      let state = await subscriptionOf(sub.origin_order_id);
      assert.deepEqual(
        { renewalOrder: state.renewal_order_id, nextAt: state.next_charge_at?.getTime(), status: state.status },
        { renewalOrder: pix!.order_id, nextAt: pix!.pix_expires_at!.getTime(), status: 'active' },
      );
      const [due] = eventsOf(sub.id);
      assert.equal(due!.type, 'subscription.payment_due');
      assert.equal(due!.data.subscription!.id, sub.id);
      assert.equal(due!.data.order.id, pix!.order_id);
      assert.deepEqual(due!.data.payment_due, {
        payment_id: pix!.id,
        amount: 49.9,
        method: 'pix',
        pix_code: pix!.pix_code,
        pix_qr_code_url: `${hooks.config.publicUrl}/pay/pix/${pix!.uid}`,
        pix_expires_at: pix!.pix_expires_at!.toISOString(),
      });
      assert.equal(hasError(parsePix(String(due!.data.payment_due!.pix_code))), false, 'a valid BR Code');
      assert.equal((await hooks.app.inject({ method: 'GET', url: `/pay/pix/${pix!.uid}` })).statusCode, 200);

      await confirm('gateway_a', pix!.gateway_id!, pix!.order_id);
      await drain();
      state = await subscriptionOf(sub.origin_order_id);
      assert.deepEqual(
        {
          status: state.status,
          failed: state.failed_attempts,
          renewalOrder: state.renewal_order_id,
          start: state.current_period_start.getTime(),
        },
        { status: 'active', failed: 0, renewalOrder: null, start: periodEnd.getTime() },
      );
      assert.equal(
        state.next_charge_at!.getTime(),
        state.current_period_end.getTime() - RENEWAL_PAYMENT_WINDOW_DAYS * DAY,
      );
      const renewed = eventsOf(sub.id).filter((event) => event.type === 'subscription.renewed');
      assert.deepEqual(
        renewed.map((event) => [event.data.order.id, event.data.order.status, event.data.subscription!.status]),
        [[pix!.order_id, 'paid', 'active']],
      );

      // The next period's pix lapses unpaid: a failure, retried a day later with a new pix that is paid.
      await dueNow(sub.id);
      await drain();
      const lapsing = (await renewalPayments(sub.origin_order_id))[1]!;
      clock.set(new Date(lapsing.pix_expires_at!.getTime() + 1_000));
      await drain();
      state = await subscriptionOf(sub.origin_order_id);
      assert.deepEqual(
        {
          status: state.status,
          failed: state.failed_attempts,
          renewalOrder: state.renewal_order_id,
          nextAt: state.next_charge_at?.getTime(),
        },
        { status: 'past_due', failed: 1, renewalOrder: null, nextAt: clock.now().getTime() + DAY },
      );
      assert.deepEqual(
        [(await renewalPayments(sub.origin_order_id))[1]!.status, await orderStatus(lapsing.order_id)],
        ['cancelled', 'cancelled'],
      );
      clock.set(new Date(state.next_charge_at!.getTime() + 1_000));
      await drain();
      const retry = (await renewalPayments(sub.origin_order_id))[2]!;
      assert.equal(retry.status, 'waiting_payment');
      await confirm('gateway_a', retry.gateway_id!, retry.order_id);
      await drain();
      state = await subscriptionOf(sub.origin_order_id);
      assert.deepEqual(
        { status: state.status, failed: state.failed_attempts, renewalOrder: state.renewal_order_id },
        { status: 'active', failed: 0, renewalOrder: null },
      );
      assert.deepEqual(
        eventsOf(sub.id).map((event) => event.type),
        [
          'subscription.payment_due',
          'subscription.renewed',
          'subscription.payment_due',
          'subscription.payment_due',
          'subscription.renewed',
        ],
      );
    });

    test('boleto on gateway_b: each unpaid boleto is voided at the gateway after its due date, retried after 1, 3 and 5 days, then the subscription is cancelled', async () => {
      const sub = await subscribe(boletoPageB, hooks.merchant.boletoPlanId, 'gateway_b', 'boleto-club@example.com');
      assert.deepEqual(
        { method: sub.renewal_method, gateway: sub.renewal_gateway },
        { method: 'bank_slip', gateway: 'gateway_b' },
      );
      await dueNow(sub.id);
      const waits: number[] = [];
      for (let attempt = 1; attempt <= 4; attempt++) {
        await drain();
        const boleto = (await renewalPayments(sub.origin_order_id))[attempt - 1]!;
        assert.deepEqual(
          { method: boleto.method, gateway: boleto.gateway, status: boleto.status },
          { method: 'bank_slip', gateway: 'gateway_b', status: 'waiting_payment' },
          `boleto ${attempt}`,
        );
        assert.equal(isValidBoleto(boleto.boleto_digitable_line!), true);
        const waiting = await subscriptionOf(sub.origin_order_id);
        const deadline = Date.parse(`${boleto.boleto_due_date}T00:00:00Z`) + (1 + BOLETO_CONFIRMATION_DAYS) * DAY;
        assert.equal(waiting.next_charge_at!.getTime(), deadline, 'looked at again some days after the due date');
        clock.set(new Date(deadline + 1_000));
        await drain();
        const given = (await renewalPayments(sub.origin_order_id))[attempt - 1]!;
        assert.deepEqual([given.status, given.order_status], ['cancelled', 'cancelled'], `boleto ${attempt} given up`);
        const remote = (await (await fetch(`${hooks.sandboxes.urls.gateway_b}/sandbox/charges`)).json()) as {
          data: Array<{ id: string; state: string }>;
        };
        assert.equal(
          remote.data.find((charge) => charge.id === given.gateway_id)!.state,
          'cancelled',
          'voided at the gateway',
        );
        const state = await subscriptionOf(sub.origin_order_id);
        assert.equal(state.failed_attempts, attempt);
        if (attempt === 4) {
          assert.deepEqual(
            { status: state.status, nextAt: state.next_charge_at, renewalOrder: state.renewal_order_id },
            { status: 'cancelled', nextAt: null, renewalOrder: null },
          );
          break;
        }
        assert.equal(state.status, 'past_due');
        waits.push(Math.round((state.next_charge_at!.getTime() - clock.now().getTime()) / DAY));
        clock.set(new Date(state.next_charge_at!.getTime() + 1_000));
      }
      assert.deepEqual(waits, [1, 3, 5]);
      const types = eventsOf(sub.id).map((event) => event.type);
      assert.deepEqual(types, [
        'subscription.payment_due',
        'subscription.payment_due',
        'subscription.payment_due',
        'subscription.payment_due',
        'subscription.cancelled',
      ]);
      const due = eventsOf(sub.id)[0]!.data.payment_due!;
      const first = (await renewalPayments(sub.origin_order_id))[0]!;
      assert.deepEqual(due, {
        payment_id: first.id,
        amount: 49.9,
        method: 'bank_slip',
        bank_slip_url: `${hooks.config.publicUrl}/pay/boleto/${first.uid}`,
        boleto_digitable_line: first.boleto_digitable_line,
        boleto_barcode: due.boleto_barcode,
        boleto_due_date: first.boleto_due_date,
        pix_code: first.pix_code,
      });
      assert.match(String(due.pix_code), /^000201/, "the boleto híbrido's Pix, as stored with the payment");
      assert.equal(eventsOf(sub.id).at(-1)!.data.subscription!.status, 'cancelled');
    });
  });
}
