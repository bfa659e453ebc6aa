import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hasError, parsePix } from 'pix-utils';
import { pino } from 'pino';
import type { Database } from '../../../src/db/database.ts';
import type { GatewayName } from '../../../src/gateways/port.ts';
import type { Worker } from '../../../src/jobs/worker.ts';
import { scheduleDueRenewals } from '../../../src/modules/payments/subscriptions/subscription-renewal.ts';
import { RENEWAL_PAYMENT_WINDOW_DAYS } from '../../../src/modules/payments/subscriptions/subscriptions.ts';
import { createWorker } from '../../../src/runtime.ts';
import { testClock, type TestClock } from '../../notifications/fixtures.ts';
import { engines } from '../../support/engines.ts';
import { BOLETO_PAYER, insertPage, ORIGIN } from '../../support/pay-fixtures.ts';
import { startWebhookApp, type WebhookApp, confirmAtSandbox } from '../../support/webhooks-fixtures.ts';

const DAY = 86_400_000;

type LedgerCharge = {
  id: string;
  state: string;
  amount_cents: number;
  payer?: { name: string | null; document: string | null };
  metadata: Record<string, string>;
};

/**
 * A renewal boleto is charged by the same pipeline as a checkout boleto, so it is a boleto híbrido too: the
 * gateway's Pix code of the same charge is kept with it and shown on its hosted page, and the gateway request
 * names the buyer and our references as at checkout. Real sandboxes over HTTP, the worker on a set clock.
 */
for (const engine of engines()) {
  describe(`a renewal boleto carries its Pix on ${engine.name}`, { timeout: 240_000 }, () => {
    let database: Database;
    let hooks: WebhookApp;
    let clock: TestClock;
    let worker: Worker;

    before(async () => {
      database = await engine.open();
      hooks = await startWebhookApp(database);
      clock = testClock();
      worker = createWorker(database, pino({ level: 'silent' }), {
        masterKey: hooks.config.masterKey,
        gatewayUrls: hooks.sandboxes.urls,
        clock: clock.now,
        notifications: { publicUrl: hooks.config.publicUrl, allowPrivateNetworks: true },
      });
    });
    after(async () => {
      await hooks.close();
      await database.close();
    });

    const drain = async () => {
      await scheduleDueRenewals(database.db, clock.now());
      for (let runs = 0; runs < 100; runs++) if ((await worker.runOnce()) === 0) return;
      throw new Error('the worker did not go idle');
    };
    const confirm = (gateway: GatewayName, gatewayId: string, orderId: number) =>
      confirmAtSandbox(hooks, database, { gateway, gatewayId, orderId });
    const ledgerCharge = async (gateway: GatewayName, gatewayId: string) => {
      const ledger = (await (await fetch(`${hooks.sandboxes.urls[gateway]}/sandbox/charges`)).json()) as {
        data: LedgerCharge[];
      };
      return ledger.data.find((charge) => charge.id === gatewayId)!;
    };

    /** A boleto subscription paid at checkout, its renewal issued now (the period ends a payment window from now). */
    const renewalBoleto = async (gateway: GatewayName, email: string) => {
      const page = await insertPage(database.db, hooks.merchant, {
        gateway,
        products: [hooks.merchant.subscriptionProductId],
        plans: [hooks.merchant.boletoPlanId],
      });
      const res = await hooks.app.inject({
        method: 'POST',
        url: '/api/v1/payments',
        headers: ORIGIN,
        payload: {
          checkout_page_id: page,
          products: [{ id: hooks.merchant.subscriptionProductId, quantity: 1 }],
          customer_email: email,
          ...BOLETO_PAYER,
          payment_plan_id: `${hooks.merchant.boletoPlanId}-1`,
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      const first = await database.db
        .selectFrom('payments')
        .select(['order_id', 'gateway_id'])
        .where('gateway_id', '=', res.json().payments[0])
        .executeTakeFirstOrThrow();
      await confirm(gateway, first.gateway_id!, first.order_id);
      await drain(); // the paid order starts its subscription
      const sub = await database.db
        .selectFrom('subscriptions')
        .selectAll()
        .where('origin_order_id', '=', first.order_id)
        .executeTakeFirstOrThrow();
      await database.db
        .updateTable('subscriptions')
        .set({
          current_period_end: new Date(clock.now().getTime() + RENEWAL_PAYMENT_WINDOW_DAYS * DAY),
          next_charge_at: clock.now(),
        })
        .where('id', '=', sub.id)
        .execute();
      await drain();
      const renewal = await database.db
        .selectFrom('payments as p')
        .innerJoin('orders as o', 'o.id', 'p.order_id')
        .innerJoin('customers as c', 'c.id', 'o.customer_id')
        .select(['p.uid', 'p.method', 'p.status', 'p.gateway_id', 'p.pix_code', 'p.amount_cents'])
        .select(['o.id as order_id', 'o.uid as order_uid', 'c.name as customer_name', 'c.identification'])
        .where('o.parent_order_id', '=', first.order_id)
        .where('o.source', '=', 'subscription')
        .executeTakeFirstOrThrow();
      return { sub, renewal };
    };

    for (const gateway of ['gateway_a', 'gateway_b'] as const) {
      test(`${gateway}: the renewal boleto keeps the Pix of its own charge, shows it, and is renewed when paid`, async () => {
        const { sub, renewal } = await renewalBoleto(gateway, `club-${gateway}@example.com`);
        assert.deepEqual(
          { method: renewal.method, status: renewal.status },
          { method: 'bank_slip', status: 'waiting_payment' },
        );
        assert.ok(renewal.pix_code, 'the renewal boleto has its Pix code');
        const pix = parsePix(renewal.pix_code);
        assert.equal(hasError(pix), false, 'a valid BR Code');

        // The dynamic Pix's location is the gateway's Pix of this very charge: its amount and its description.
        assert.ok(!hasError(pix) && pix.type === 'DYNAMIC', 'a dynamic Pix, with a location');
        const txid = pix.url.split('/').at(-1);
        const location = (await (await fetch(`${hooks.sandboxes.urls[gateway]}/qr/${txid}`)).json()) as {
          status: string;
          valor: { original: string };
          solicitacaoPagador: string;
        };
        const company = await database.db
          .selectFrom('companies')
          .select('name')
          .where('id', '=', hooks.merchant.companyId)
          .executeTakeFirstOrThrow();
        assert.deepEqual(location, {
          ...location,
          status: 'ATIVA',
          valor: { original: (renewal.amount_cents / 100).toFixed(2) },
          solicitacaoPagador: `${company.name} subscription ${sub.id}`,
        });

        // The request named the buyer the boleto is registered for, and our references, as a checkout boleto does.
        const charge = await ledgerCharge(gateway, renewal.gateway_id!);
        assert.equal(charge.payer?.name, renewal.customer_name);
        assert.equal(charge.payer?.document?.replace(/\D/g, ''), renewal.identification!.replace(/\D/g, ''));
        assert.deepEqual(
          { order: charge.metadata.order_uid, payment: charge.metadata.payment_uid },
          { order: renewal.order_uid, payment: renewal.uid },
        );

        // The hosted boleto page shows the Pix beside the slip, as for a checkout boleto.
        const page = await hooks.app.inject({ url: `/pay/boleto/${renewal.uid}` });
        assert.equal(page.statusCode, 200);
        assert.ok(page.body.includes(`>${renewal.pix_code}</textarea>`));
        assert.match(page.body, /id="boleto-pix-qr"/);

        // Paid at the gateway, the charge the Pix belongs to is settled and the subscription renews.
        await confirm(gateway, renewal.gateway_id!, renewal.order_id);
        await drain();
        const renewed = await database.db
          .selectFrom('subscriptions')
          .select(['status', 'renewal_order_id', 'current_period_start'])
          .where('id', '=', sub.id)
          .executeTakeFirstOrThrow();
        assert.deepEqual(
          { status: renewed.status, inFlight: renewed.renewal_order_id },
          { status: 'active', inFlight: null },
        );
        assert.ok(renewed.current_period_start > sub.current_period_start, 'a new period started');
        const paidLocation = (await (await fetch(`${hooks.sandboxes.urls[gateway]}/qr/${txid}`)).json()) as {
          status: string;
        };
        assert.equal(paidLocation.status, 'CONCLUIDA');
      });
    }
  });
}
