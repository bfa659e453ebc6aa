import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../../src/db/database.ts';
import type { GatewayName } from '../../../src/gateways/port.ts';
import { createGateway } from '../../../src/gateways/registry.ts';
import { sandboxGatewayUrls, type WebhookTargets } from '../../../src/gateways/sandbox/server.ts';
import { unseal } from '../../../src/lib/crypto.ts';
import { applyPaymentAction } from '../../../src/modules/payments/attempts/gateway-actions.ts';
import { releaseConfirmedOrder } from '../../../src/modules/payments/settlement/paid-order-release.ts';
import { usePayGatewayClients } from '../../../src/modules/payments/attempts/pay-gateways.ts';
import { reconcilePayment } from '../../../src/modules/payments/attempts/payment-jobs.service.ts';
import { renewSubscription } from '../../../src/modules/payments/subscriptions/subscription-renewal.ts';
import { openOfferToken } from '../../../src/modules/payments/settlement/upsell-offer-token.ts';
import { receiveAndProcessEvent } from '../../../src/modules/webhooks/webhooks.service.ts';
import { engines } from '../../support/engines.ts';
import {
  cardFieldsFor,
  insertPage,
  KEYS,
  ORIGIN,
  type Merchant,
  type PayApp,
  usePayMerchant,
} from '../../support/pay-fixtures.ts';
import { credentialsFor, runWebhookJobs, storeCredentials } from '../../support/webhooks-fixtures.ts';

/** The sandboxes' late-approval card: charged after the hold (2 s), when the pay request's client (1 s) has given up. */
const APPROVED_LATE = '4000000000000267';
const GATEWAYS = ['gateway_a', 'gateway_b', 'gateway_c'] as const;
/** The saved card's number ends so on every gateway. */
const LAST4 = '0267';

type Captured = { gateway: GatewayName; headers: IncomingHttpHeaders; body: string };

/**
 * A card captured after its pay request stopped waiting keeps the card the request asked the gateway to save:
 * learnt by reconciliation (the gateway's status lookup) or by the paid webhook (the payload the sandbox sent),
 * then charged again by the subscription's renewal and by the one-click upsell. Real sandboxes over HTTP;
 * their webhooks are captured and handed to the service's receivers when the test says so.
 */
for (const engine of engines()) {
  describe(`a card captured late keeps its saved method on ${engine.name}`, { timeout: 240_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;
    let pages: Record<GatewayName, string>;
    let plainPageC: string;
    let hooks: Server;
    let hooksUrl = '';
    const captured: Captured[] = [];

    // The sandboxes deliver every company's webhooks to the capture server, with the company's credentials.
    const targets: WebhookTargets = (gateway) => {
      if (!hooksUrl || !merchant) return undefined;
      const credentials = credentialsFor(merchant);
      return { url: `${hooksUrl}/${gateway}`, basicAuth: credentials.gatewayA, signingSecret: credentials.gatewayB };
    };

    before(async () => {
      hooks = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          captured.push({
            gateway: request.url!.slice(1) as GatewayName,
            headers: request.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          });
          response.writeHead(200).end('{}');
        });
      });
      await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
      hooksUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}`;
    });
    after(async () => {
      const closed = new Promise<void>((resolve) => hooks.close(() => resolve()));
      hooks.closeAllConnections();
      await closed;
    });

    usePayMerchant(
      engine,
      async (setup) => {
        ({ database, pay, merchant } = setup);
        await storeCredentials(database, pay.config, merchant);
        // A page selling the subscription product, with an upsell product: the pay request asks to save the card.
        pages = {} as Record<GatewayName, string>;
        for (const gateway of GATEWAYS)
          pages[gateway] = await insertPage(database.db, merchant, {
            gateway,
            products: [merchant.subscriptionProductId, merchant.productId],
            plans: [merchant.cardPlanId],
            upsellProductId: merchant.upsellProductId,
          });
        plainPageC = await insertPage(database.db, merchant, {
          gateway: 'gateway_c',
          products: [merchant.productId],
          plans: [merchant.cardPlanId],
        });
      },
      { webhookTargets: targets },
    );

    const deps = () => ({ masterKey: pay.config.masterKey, gatewayUrls: sandboxGatewayUrls(pay.sandboxes) });
    const ref = (id: number) => ({ accountId: merchant.accountId, paymentId: id });

    /** Pays on `page` with the late-approval card: the call times out (504) and leaves one pending payment without a gateway id. */
    const timedOut = async (gateway: GatewayName, page: string, product: number) => {
      const before = await database.db
        .selectFrom('payments')
        .select('id')
        .where('account_id', '=', merchant.accountId)
        .orderBy('id', 'desc')
        .executeTakeFirst();
      const payload = {
        checkout_page_id: page,
        products: [{ id: product, quantity: 1 }],
        customer_email: `late-${randomUUID().slice(0, 8)}@example.com`,
        payment_plan_id: `${merchant.cardPlanId}-1`,
        ...(await cardFieldsFor(database, pay.sandboxes, merchant, gateway, APPROVED_LATE)),
      };
      const res = await pay.app.inject({ method: 'POST', url: '/api/v1/payments', headers: ORIGIN, payload });
      assert.equal(res.statusCode, 504, res.body);
      const payment = await database.db
        .selectFrom('payments')
        .selectAll()
        .where('account_id', '=', merchant.accountId)
        .where('id', '>', before?.id ?? 0)
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        { status: payment.status, gatewayId: payment.gateway_id, saved: payment.saved_payment_method_id },
        { status: 'pending', gatewayId: null, saved: null },
      );
      return payment;
    };
    /** The paid webhook the sandbox sent for the charge of `paymentUid`, once it made it (gateway_a's charge event; its order event is ignored). */
    const PAID = {
      gateway_a: '"type":"charge.paid"',
      gateway_b: '"type": "payment_intent.succeeded"',
      gateway_c: 'current_status=paid',
    } as const;
    const paidWebhook = async (gateway: GatewayName, paymentUid: string) => {
      for (let tries = 0; tries < 100; tries++) {
        const found = captured.find(
          (hook) => hook.gateway === gateway && hook.body.includes(paymentUid) && hook.body.includes(PAID[gateway]),
        );
        if (found) return found;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error('the sandbox never sent the late charge its paid webhook');
    };
    /** The charge the sandbox made for `paymentUid`, from its ledger. */
    const ledgerEntry = async (gateway: GatewayName, paymentUid: string) => {
      const { data } = (await (await fetch(`${pay.sandboxes.baseUrlFor(gateway)}/sandbox/charges`)).json()) as {
        data: Array<{ id: string; metadata: Record<string, string> }>;
      };
      return data.find((charge) => charge.metadata.payment_uid === paymentUid)!;
    };
    /** Hands a captured webhook to the service as its sender would, and lets the worker apply it. */
    const deliver = async (hook: Captured) => {
      if (hook.gateway === 'gateway_a') {
        const res = await pay.app.inject({
          method: 'POST',
          url: '/api/v1/webhooks',
          headers: { 'content-type': 'application/json', authorization: hook.headers.authorization! },
          payload: hook.body,
        });
        assert.equal(res.statusCode, 200, res.body);
      } else if (hook.gateway === 'gateway_b') {
        const res = await pay.app.inject({
          method: 'POST',
          url: `/api/v1/webhooks/${merchant.companyId}/gateway_b`,
          headers: {
            'content-type': 'application/json',
            'gateway-b-signature': String(hook.headers['gateway-b-signature']),
          },
          payload: hook.body,
        });
        assert.equal(res.statusCode, 200, res.body);
      } else {
        // gateway_c's postbacks reach the service relayed by the topic: the receiver's pipeline once the message's signature is verified.
        const message = {
          Type: 'Notification',
          MessageId: randomUUID(),
          Message: JSON.stringify({ source: 'gateway_c', company_id: merchant.companyId, postback: hook.body }),
        };
        const receipt = await receiveAndProcessEvent(
          {
            db: database.db,
            clock: () => new Date(),
            applyAction: applyPaymentAction,
            masterKey: pay.config.masterKey,
          },
          {
            receiver: 'topic',
            accountId: merchant.accountId,
            companyId: merchant.companyId,
            eventId: message.MessageId,
            type: 'gateway_c.message',
            payload: message,
          },
        );
        assert.equal(receipt.error, undefined);
      }
      await runWebhookJobs(database, { masterKey: pay.config.masterKey });
    };
    const paymentRow = (id: number) =>
      database.db
        .selectFrom('payments as p')
        .innerJoin('orders as o', 'o.id', 'p.order_id')
        .select([
          'p.status',
          'p.gateway_id',
          'p.saved_payment_method_id',
          'o.status as order_status',
          'o.id as order_id',
          'o.customer_id',
        ])
        .where('p.id', '=', id)
        .executeTakeFirstOrThrow();
    const savedMethodsOf = (customerId: number) =>
      database.db
        .selectFrom('saved_payment_methods')
        .selectAll()
        .where('account_id', '=', merchant.accountId)
        .where('customer_id', '=', customerId)
        .execute();

    /** The late-approval card keeps its behaviour when charged again: clients that wait past the hold see it approved. */
    const withPatientClients = async <T>(run: () => Promise<T>): Promise<T> => {
      const previous = usePayGatewayClients((name) => createGateway(name, { timeoutMs: 5_000 }));
      try {
        return await run();
      } finally {
        usePayGatewayClients(previous);
      }
    };

    /**
     * The payment learnt late has its card: one sealed saved method of the order's customer on its gateway, linked on
     * the payment. Released, the order starts a card subscription and makes an offer; the renewal and the upsell both
     * charge that card, and the gateway makes both charges.
     */
    const chargesTheKeptCard = async (gateway: GatewayName, paymentId: number, expect: { details: boolean }) => {
      const paid = await paymentRow(paymentId);
      assert.equal(paid.status, 'paid');
      assert.equal(paid.order_status, 'paid');
      assert.ok(paid.saved_payment_method_id, 'the payment links the kept card');
      const [saved, ...others] = await savedMethodsOf(paid.customer_id!);
      assert.equal(others.length, 0, 'one saved method');
      assert.equal(saved!.id, paid.saved_payment_method_id);
      assert.equal(saved!.gateway, gateway);
      assert.match(
        unseal(pay.config.masterKey, saved!.gateway_reference_encrypted),
        gateway === 'gateway_b' ? /^pm_/ : /^card_/,
      );
      const details = {
        brand: saved!.brand,
        last4: saved!.last4,
        expMonth: saved!.exp_month,
        expYear: saved!.exp_year,
      };
      assert.deepEqual(
        details,
        expect.details
          ? { brand: 'visa', last4: LAST4, expMonth: 12, expYear: 2031 }
          : { brand: null, last4: null, expMonth: null, expYear: null },
      );

      assert.equal(
        await releaseConfirmedOrder(database.db, { accountId: merchant.accountId, orderId: paid.order_id }, new Date()),
        'released',
      );
      const sub = await database.db
        .selectFrom('subscriptions')
        .selectAll()
        .where('origin_order_id', '=', paid.order_id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        { method: sub.renewal_method, saved: sub.saved_payment_method_id },
        { method: 'credit_card', saved: saved!.id },
      );
      const offer = await openOfferToken(
        database.db,
        pay.config.masterKey,
        { accountId: merchant.accountId, orderId: paid.order_id },
        new Date(),
      );
      assert.ok(offer, 'the released order has its upsell offer');

      const due = new Date(sub.next_charge_at!.getTime() + 1_000);
      const [renewal, upsell] = await withPatientClients(() =>
        Promise.all([
          renewSubscription(database.db, deps(), { accountId: merchant.accountId, subscriptionId: sub.id }, due),
          pay.app.inject({ method: 'POST', url: '/api/v1/upsell', headers: ORIGIN, payload: { offer } }),
        ]),
      );
      assert.equal(renewal, 'renewed');
      assert.equal(upsell.statusCode, 200, upsell.body);
      assert.equal(upsell.json().order_status, 'paid');
      const charges = await database.db
        .selectFrom('payments as p')
        .innerJoin('orders as o', 'o.id', 'p.order_id')
        .select(['o.source', 'p.status', 'p.gateway', 'p.gateway_id', 'p.saved_payment_method_id'])
        .where('o.parent_order_id', '=', paid.order_id)
        .orderBy('o.source')
        .execute();
      assert.deepEqual(
        charges.map((charge) => ({
          source: charge.source,
          status: charge.status,
          gateway: charge.gateway,
          saved: charge.saved_payment_method_id,
        })),
        [
          { source: 'subscription', status: 'paid', gateway, saved: saved!.id },
          { source: 'upsell', status: 'paid', gateway, saved: saved!.id },
        ],
      );
      for (const charge of charges)
        assert.equal(
          await createGateway(gateway, { timeoutMs: 2_000 }).fetchStatus(
            { baseUrl: pay.sandboxes.baseUrlFor(gateway), publicKey: null, secretKey: KEYS[gateway].secretKey },
            charge.gateway_id!,
          ),
          'paid',
        );
    };

    for (const gateway of GATEWAYS) {
      test(`${gateway}: reconciliation learns the saved card from the status lookup; the renewal and the upsell charge it; the paid webhook afterwards keeps no second card`, async () => {
        const payment = await timedOut(gateway, pages[gateway], merchant.subscriptionProductId);
        const webhook = await paidWebhook(gateway, payment.uid);
        // The first look finds the charge by our reference (no gateway id yet)...
        assert.equal(await reconcilePayment(database.db, deps(), ref(payment.id), new Date()), 'paid');
        await chargesTheKeptCard(gateway, payment.id, { details: true });
        // ... and the paid event arriving after it changes nothing.
        await deliver(webhook);
        assert.equal((await savedMethodsOf((await paymentRow(payment.id)).customer_id!)).length, 1);
      });

      test(`${gateway}: the paid webhook of the timed-out charge carries the saved card; the renewal and the upsell charge it; reconciliation then finds the payment settled`, async () => {
        const payment = await timedOut(gateway, pages[gateway], merchant.subscriptionProductId);
        await deliver(await paidWebhook(gateway, payment.uid));
        // A Stripe-style event names the payment method without expanding it: gateway_b's card comes without its details.
        await chargesTheKeptCard(gateway, payment.id, { details: gateway !== 'gateway_b' });
        assert.equal(await reconcilePayment(database.db, deps(), ref(payment.id), new Date()), 'skipped');
      });
    }

    for (const gateway of GATEWAYS) {
      test(`${gateway}: a payment whose gateway id was recorded before (a look-up found the charge still processing) is settled by fetching the charge, which names the saved card`, async () => {
        const payment = await timedOut(gateway, pages[gateway], merchant.subscriptionProductId);
        await paidWebhook(gateway, payment.uid);
        const charge = await ledgerEntry(gateway, payment.uid);
        await database.db.updateTable('payments').set({ gateway_id: charge.id }).where('id', '=', payment.id).execute();
        assert.equal(await reconcilePayment(database.db, deps(), ref(payment.id), new Date()), 'paid');
        const paid = await paymentRow(payment.id);
        assert.equal(paid.status, 'paid');
        const [saved, ...others] = await savedMethodsOf(paid.customer_id!);
        assert.equal(others.length, 0);
        assert.equal(saved!.id, paid.saved_payment_method_id);
        assert.deepEqual(
          { brand: saved!.brand, last4: saved!.last4, expMonth: saved!.exp_month, expYear: saved!.exp_year },
          { brand: 'visa', last4: LAST4, expMonth: 12, expYear: 2031 },
        );
      });
    }

    test('gateway_c keeps every card it charges: a late card whose pay request did not ask to save it (no subscription, no upsell) keeps no saved method', async () => {
      const payment = await timedOut('gateway_c', plainPageC, merchant.productId);
      await paidWebhook('gateway_c', payment.uid);
      assert.equal(await reconcilePayment(database.db, deps(), ref(payment.id), new Date()), 'paid');
      const paid = await paymentRow(payment.id);
      assert.deepEqual({ status: paid.status, saved: paid.saved_payment_method_id }, { status: 'paid', saved: null });
      assert.equal((await savedMethodsOf(paid.customer_id!)).length, 0);
    });
  });
}
