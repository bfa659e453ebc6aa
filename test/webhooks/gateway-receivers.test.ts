import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Stripe from 'stripe';
import type { Database } from '../../src/db/database.ts';
import { signatureHeader } from '../../src/gateways/gateway-b/index.ts';
import { engines } from '../support/engines.ts';
import { BOLETO_PAYER, insertPage, ORIGIN } from '../support/pay-fixtures.ts';
import { basic, runWebhookJobs, startWebhookApp, waitFor, type WebhookApp } from '../support/webhooks-fixtures.ts';

for (const engine of engines()) {
  describe(`gateway webhook receivers on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let hooks: WebhookApp;
    let pageB: string;

    before(async () => {
      database = await engine.open();
      hooks = await startWebhookApp(database);
      pageB = await insertPage(database.db, hooks.merchant, {
        gateway: 'gateway_b',
        products: [hooks.merchant.productId],
        plans: [hooks.merchant.pixPlanId, hooks.merchant.boletoPlanId],
      });
    });
    after(async () => {
      await hooks.close();
      await database.close();
    });

    const pay = async (pageId: string, planId: number) => {
      const res = await hooks.app.inject({
        method: 'POST',
        url: '/api/v1/payments',
        headers: ORIGIN,
        payload: {
          checkout_page_id: pageId,
          products: [{ id: hooks.merchant.productId, quantity: 1 }],
          customer_email: 'hook@example.com',
          // A boleto is registered in the payer's name and CPF/CNPJ; the same payer pays the Pix.
          ...BOLETO_PAYER,
          payment_plan_id: `${planId}-1`,
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().payments[0] as string;
    };
    const orderStatusOf = async (gatewayId: string) => {
      const row = await database.db
        .selectFrom('payments as p')
        .innerJoin('orders as o', 'o.id', 'p.order_id')
        .select(['o.status as order', 'p.status as payment'])
        .where('p.gateway_id', '=', gatewayId)
        .executeTakeFirstOrThrow();
      return row;
    };
    const confirm = async (gateway: string, gatewayId: string) => {
      const res = await fetch(`${hooks.sandboxes.urls[gateway as 'gateway_a']}/sandbox/charges/${gatewayId}/confirm`, {
        method: 'POST',
      });
      assert.equal(res.status, 200);
      return ((await res.json()) as { webhook: { event_id: string; delivery: string } }).webhook;
    };
    const eventRow = (eventId: string) =>
      database.db.selectFrom('webhook_events').selectAll().where('external_event_id', '=', eventId).executeTakeFirst();
    /** The sandbox's delivery is stored (acknowledged); nothing is applied until the worker runs. */
    const delivered = (eventId: string) => waitFor(() => eventRow(eventId));

    for (const [gateway, plan] of [
      ['gateway_a', 'pix'],
      ['gateway_a', 'boleto'],
      ['gateway_b', 'pix'],
      ['gateway_b', 'boleto'],
    ] as const) {
      test(`${gateway} ${plan}: the sandbox's webhook over HTTP is acknowledged as received; the worker then pays the order, once`, async () => {
        const pageId = gateway === 'gateway_a' ? hooks.merchant.pageId : pageB;
        const gatewayId = await pay(pageId, plan === 'pix' ? hooks.merchant.pixPlanId : hooks.merchant.boletoPlanId);
        assert.equal((await orderStatusOf(gatewayId)).order, 'waiting_payment');
        const webhook = await confirm(gateway, gatewayId);
        assert.equal(webhook.delivery, 'pending');
        const received = await delivered(webhook.event_id);
        assert.equal(received.status, 'received');
        assert.deepEqual(await orderStatusOf(gatewayId), { order: 'waiting_payment', payment: 'waiting_payment' });

        await runWebhookJobs(database);
        assert.deepEqual(await orderStatusOf(gatewayId), { order: 'paid', payment: 'paid' });
        const stored = (await eventRow(webhook.event_id))!;
        assert.equal(stored.status, 'processed');
        assert.equal(stored.receiver, gateway);
        assert.equal(stored.account_id, hooks.merchant.accountId);
        assert.equal(Number(stored.company_id), hooks.merchant.companyId);
        const paidEvents = await database.db
          .selectFrom('order_events as e')
          .innerJoin('payments as p', 'p.order_id', 'e.order_id')
          .select('e.type')
          .where('p.gateway_id', '=', gatewayId)
          .where('e.to_status', '=', 'paid')
          .execute();
        assert.deepEqual(paidEvents.map((event) => event.type).sort(), [
          'order.status_changed',
          'payment.status_changed',
        ]);
      });
    }

    test('a delivery answers 200 received at once, with its job due now; a duplicate before the worker ran answers duplicate and is applied once', async () => {
      const gatewayId = await pay(pageB, hooks.merchant.pixPlanId);
      const body = JSON.stringify({
        id: `evt_ack_${gatewayId}`,
        object: 'event',
        type: 'payment_intent.succeeded',
        created: Math.floor(Date.now() / 1000),
        data: {
          object: {
            id: gatewayId,
            object: 'payment_intent',
            amount: 10_000,
            amount_received: 10_000,
            currency: 'brl',
            status: 'succeeded',
            metadata: { company_id: String(hooks.merchant.companyId) },
            payment_method_types: ['pix'],
          },
        },
      });
      const deliver = () =>
        hooks.app.inject({
          method: 'POST',
          url: `/api/v1/webhooks/${hooks.merchant.companyId}/gateway_b`,
          headers: {
            'content-type': 'application/json',
            'gateway-b-signature': signatureHeader(hooks.credentials.gatewayB, body, Math.floor(Date.now() / 1000)),
          },
          payload: body,
        });
      const before = new Date();
      const first = await deliver();
      assert.equal(first.statusCode, 200, first.body);
      assert.deepEqual(first.json(), { status: 'received' });
      const stored = (await eventRow(`evt_ack_${gatewayId}`))!;
      assert.deepEqual({ status: stored.status, attempts: stored.attempts }, { status: 'received', attempts: 0 });
      const jobs = await database.db
        .selectFrom('jobs')
        .select(['status', 'run_at', 'payload', 'account_id'])
        .where('dedup_key', '=', `webhooks.process_event:${stored.id}`)
        .execute();
      assert.equal(jobs.length, 1);
      assert.deepEqual(
        { status: jobs[0]!.status, payload: jobs[0]!.payload, account: jobs[0]!.account_id },
        { status: 'queued', payload: { event_id: Number(stored.id) }, account: hooks.merchant.accountId },
      );
      assert.ok(
        jobs[0]!.run_at.getTime() <= Date.now() && jobs[0]!.run_at.getTime() >= before.getTime() - 1_000,
        'due now',
      );
      assert.deepEqual(await orderStatusOf(gatewayId), { order: 'waiting_payment', payment: 'waiting_payment' });

      const again = await deliver();
      assert.equal(again.statusCode, 200);
      assert.deepEqual(again.json(), { status: 'duplicate' });
      assert.equal(
        (
          await database.db
            .selectFrom('jobs')
            .select('id')
            .where('dedup_key', '=', `webhooks.process_event:${stored.id}`)
            .execute()
        ).length,
        1,
      );
      assert.equal(
        (
          await database.db
            .selectFrom('webhook_events')
            .select('id')
            .where('external_event_id', '=', `evt_ack_${gatewayId}`)
            .execute()
        ).length,
        1,
      );

      await runWebhookJobs(database);
      assert.deepEqual(await orderStatusOf(gatewayId), { order: 'paid', payment: 'paid' });
      const paid = await database.db
        .selectFrom('order_events as e')
        .innerJoin('payments as p', 'p.order_id', 'e.order_id')
        .select('e.type')
        .where('p.gateway_id', '=', gatewayId)
        .where('e.to_status', '=', 'paid')
        .execute();
      assert.deepEqual(paid.map((event) => event.type).sort(), ['order.status_changed', 'payment.status_changed']);
      assert.deepEqual((await deliver()).json(), { status: 'duplicate' });
      await runWebhookJobs(database);
      assert.equal(
        paid.length,
        (
          await database.db
            .selectFrom('order_events as e')
            .innerJoin('payments as p', 'p.order_id', 'e.order_id')
            .select('e.id')
            .where('p.gateway_id', '=', gatewayId)
            .where('e.to_status', '=', 'paid')
            .execute()
        ).length,
      );
    });

    test('gateway_a: the same event twice answers 200 and changes nothing; a late pending event is recorded and ignored', async () => {
      const gatewayId = await pay(hooks.merchant.pageId, hooks.merchant.pixPlanId);
      const webhook = await confirm('gateway_a', gatewayId);
      const stored = await delivered(webhook.event_id);
      await runWebhookJobs(database);
      assert.deepEqual(await orderStatusOf(gatewayId), { order: 'paid', payment: 'paid' });
      const events = await database.db.selectFrom('order_events').select('id').execute();
      const body = JSON.stringify(stored.payload);
      const again = await hooks.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: {
          ...basic(hooks.credentials.gatewayA.username, hooks.credentials.gatewayA.password),
          'content-type': 'application/json',
        },
        payload: body,
      });
      assert.equal(again.statusCode, 200);
      assert.deepEqual(again.json(), { status: 'duplicate' });
      assert.equal((await database.db.selectFrom('order_events').select('id').execute()).length, events.length);
      const late = {
        ...(stored.payload as Record<string, unknown>),
        id: `${webhook.event_id}_late`,
        type: 'order.created',
      };
      const res = await hooks.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: basic(hooks.credentials.gatewayA.username, hooks.credentials.gatewayA.password),
        payload: late,
      });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { status: 'received' });
      await runWebhookJobs(database);
      assert.equal((await eventRow(`${webhook.event_id}_late`))!.status, 'ignored');
      assert.deepEqual(await orderStatusOf(gatewayId), { order: 'paid', payment: 'paid' });
    });

    test('gateway_a authentication: missing, wrong, unknown company and another company’s credentials answer 401 invalid_credentials', async () => {
      const body = {
        id: 'hook_auth',
        type: 'charge.paid',
        data: { id: 'ch_x', metadata: { company_id: String(hooks.merchant.companyId) } },
      };
      const send = (headers: Record<string, string>, payload: unknown = body) =>
        hooks.app.inject({ method: 'POST', url: '/api/v1/webhooks', headers, payload: payload as object });
      const { username, password } = hooks.credentials.gatewayA;
      const cases = [
        await send({}),
        await send(basic(username, 'wrong')),
        await send(basic('wrong', password)),
        await send(basic(username, password), {
          ...body,
          data: { ...body.data, metadata: { company_id: '999999999' } },
        }),
        await send(basic(username, password), {
          ...body,
          data: { ...body.data, metadata: { company_id: String(hooks.other.companyId) } },
        }),
      ];
      for (const res of cases) {
        assert.equal(res.statusCode, 401);
        assert.equal(res.json().code, 'invalid_credentials');
      }
      assert.equal(await eventRow('hook_auth'), undefined);
    });

    test('gateway_b signature: missing, wrong secret, stale or another company’s secret answer 401; Stripe’s signer and the previous secret are accepted', async () => {
      const url = `/api/v1/webhooks/${hooks.merchant.companyId}/gateway_b`;
      const event = (id: string) =>
        JSON.stringify({
          id,
          object: 'event',
          type: 'customer.created',
          created: 1,
          data: { object: { id: 'cus_1', object: 'customer' } },
        });
      const send = (payload: string, signature?: string, path = url) =>
        hooks.app.inject({
          method: 'POST',
          url: path,
          headers: { 'content-type': 'application/json', ...(signature ? { 'gateway-b-signature': signature } : {}) },
          payload,
        });
      const now = Math.floor(Date.now() / 1000);
      for (const res of [
        await send(event('evt_1')),
        await send(event('evt_1'), signatureHeader('whsec_wrong', event('evt_1'), now)),
        await send(event('evt_1'), signatureHeader(hooks.credentials.gatewayB, event('evt_1'), now - 301)),
        await send(
          event('evt_1'),
          signatureHeader(hooks.credentials.gatewayB, event('evt_1'), now),
          `/api/v1/webhooks/${hooks.other.companyId}/gateway_b`,
        ),
        await send(
          event('evt_1'),
          signatureHeader(hooks.credentials.gatewayB, event('evt_1'), now),
          '/api/v1/webhooks/999999999/gateway_b',
        ),
      ]) {
        assert.equal(res.statusCode, 401);
        assert.equal(res.json().code, 'invalid_signature');
      }
      const stripe = new Stripe('sk_test_unused');
      const signed = await send(
        event('evt_2'),
        stripe.webhooks.generateTestHeaderString({ payload: event('evt_2'), secret: hooks.credentials.gatewayB }),
      );
      assert.equal(signed.statusCode, 200);
      assert.deepEqual(signed.json(), { status: 'received' });
      const rotated = await send(event('evt_3'), signatureHeader('whsec_previous', event('evt_3'), now));
      assert.equal(rotated.statusCode, 200);
      await runWebhookJobs(database);
      assert.equal((await eventRow('evt_2'))!.status, 'ignored');
      assert.equal((await eventRow('evt_3'))!.status, 'ignored');
    });
  });
}
