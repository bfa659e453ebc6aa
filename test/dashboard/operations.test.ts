import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { createTenant, startTestApp, type Tenant } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import { insertCustomer, insertOrder, orderEvents } from '../support/records-fixtures.ts';
import { insertSubscriber } from './ops-fixtures.ts';
import { as, userSignedIn, type SignedInUser } from './support.ts';

const BASE = '/api/v1/dashboard';

for (const engine of engines()) {
  describe(`dashboard customers, subscriptions, order actions and deliveries on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let shop: Tenant;
    let owner: SignedInUser;
    let finance: SignedInUser;
    let subscriber: Awaited<ReturnType<typeof insertSubscriber>>;
    const get = (user: SignedInUser, url: string) =>
      app.inject({ method: 'GET', url: `${BASE}${url}`, headers: as(user) });
    const post = (user: SignedInUser, url: string, payload?: object) =>
      app.inject({ method: 'POST', url: `${BASE}${url}`, headers: as(user), ...(payload ? { payload } : {}) });
    const auditActions = async () =>
      ((await get(owner, '/audit_log')).json().data as Array<{ action: string; subject: string | null }>).map(
        (entry) => `${entry.action} ${entry.subject}`,
      );

    test('setup', async () => {
      database = await engine.open();
      ({ app } = await startTestApp(database));
      shop = await createTenant(database);
      owner = await userSignedIn(app, database, shop, 'owner');
      finance = await userSignedIn(app, database, shop, 'finance');
      subscriber = await insertSubscriber(database, shop);
      for (let n = 0; n < 30; n += 1) await insertCustomer(database, shop, { name: `Cliente ${n}` });
      const endpoint = await post(owner, '/notification_endpoints', { url: 'http://127.0.0.1:9/hooks' });
      assert.equal(endpoint.statusCode, 201, endpoint.body);
    });

    test('customers are searched by name, e-mail or document (typed with punctuation) and paginated', async () => {
      for (const q of ['joana', 'JOANA-', '529.982.247-25']) {
        const res = await get(owner, `/customers?q=${encodeURIComponent(q)}`);
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(
          res.json().data.map((customer: { id: number }) => customer.id),
          [subscriber.customerId],
          q,
        );
      }
      const first = (await get(owner, '/customers')).json();
      assert.deepEqual(first.meta, { current_page: 1, total_pages: 2, total_count: 31, per_page: 25 });
      const second = (await get(owner, '/customers?page=2')).json();
      assert.equal(second.data.length, 6);
      assert.equal((await get(owner, '/customers?page=0')).statusCode, 422);
    });

    test("a customer's page lists its orders and subscriptions; a subscription's page its failed renewal", async () => {
      const page = (await get(owner, `/customers/${subscriber.customerId}`)).json();
      assert.deepEqual(
        page.orders.map((order: { id: number }) => order.id).sort(),
        [subscriber.originOrderId, subscriber.renewalOrderId].sort(),
      );
      assert.equal(page.subscriptions[0].id, subscriber.subscriptionId);
      const subscription = (await get(owner, `/subscriptions/${subscriber.subscriptionId}`)).json();
      assert.equal(subscription.subscription.status, 'past_due');
      assert.equal(subscription.subscription.failed_attempts, 1);
      assert.ok(subscription.subscription.next_charge_at);
      assert.deepEqual(
        subscription.renewals.map((order: { id: number; status: string }) => [order.id, order.status]),
        [[subscriber.renewalOrderId, 'cancelled']],
      );
      assert.equal((await get(owner, '/customers/999999999')).statusCode, 404);
      assert.equal((await get(owner, '/subscriptions/not-a-uuid')).statusCode, 422);
    });

    test('an owner cancels the subscription once: no next renewal, a subscription.cancelled event, audited; again: 409', async () => {
      const cancel = await post(owner, `/subscriptions/${subscriber.subscriptionId}/cancel`);
      assert.equal(cancel.statusCode, 200, cancel.body);
      const row = await database.db
        .selectFrom('subscriptions')
        .select(['status', 'next_charge_at', 'cancelled_at'])
        .where('id', '=', subscriber.subscriptionId)
        .executeTakeFirstOrThrow();
      assert.equal(row.status, 'cancelled');
      assert.equal(row.next_charge_at, null);
      assert.ok(row.cancelled_at);
      const events = await database.db
        .selectFrom('notification_events')
        .select('type')
        .where('subscription_id', '=', subscriber.subscriptionId)
        .execute();
      assert.deepEqual(
        events.map((event) => event.type),
        ['subscription.cancelled'],
      );
      assert.ok((await auditActions()).includes(`subscription.cancelled subscription:${subscriber.subscriptionId}`));
      const again = await post(owner, `/subscriptions/${subscriber.subscriptionId}/cancel`);
      assert.equal(again.statusCode, 409);
      assert.equal(again.json().code, 'conflict');
    });

    test('finance cancels an unpaid order through the transition log, named; a paid order answers 409 unchanged', async () => {
      const unpaid = await insertOrder(database, shop, { status: 'waiting_payment' });
      const res = await post(finance, `/orders/${unpaid.id}/cancel`);
      assert.equal(res.statusCode, 200, res.body);
      const [event] = (await orderEvents(database, unpaid.id)).filter((e) => e.to_status === 'cancelled');
      assert.equal(event?.from_status, 'waiting_payment');
      assert.match(event!.cause, new RegExp(`dashboard: cancelled by ${finance.email}`));
      const page = (await get(owner, `/orders/${unpaid.id}`)).json();
      assert.equal(page.order.status, 'cancelled');
      assert.deepEqual(
        page.actions.map((action: { actor: string; action: string }) => [action.actor, action.action]),
        [[finance.email, 'order.cancelled']],
      );
      for (const status of ['paid', 'cancelled'] as const) {
        const order = await insertOrder(database, shop, { status });
        const refused = await post(finance, `/orders/${order.id}/cancel`);
        assert.equal(refused.statusCode, 409, refused.body);
        assert.match(refused.json().message, /Only an unpaid order can be cancelled/);
        assert.equal((await orderEvents(database, order.id)).length, 0);
      }
    });

    test("the order's latest notification is sent again, audited; an order that sent none answers 409", async () => {
      const order = await insertOrder(database, shop, { status: 'pending' });
      assert.equal((await post(finance, `/orders/${order.id}/resend_notification`)).statusCode, 409);
      assert.equal((await post(owner, `/orders/${order.id}/cancel`)).statusCode, 200);
      const resend = await post(finance, `/orders/${order.id}/resend_notification`);
      assert.equal(resend.statusCode, 200, resend.body);
      assert.equal(resend.json().event_type, 'order.cancelled');
      const delivery = await database.db
        .selectFrom('notification_deliveries')
        .innerJoin('notification_events', 'notification_events.id', 'notification_deliveries.event_id')
        .select(['notification_deliveries.status', 'notification_deliveries.max_attempts'])
        .where('notification_events.id', '=', resend.json().event_id)
        .executeTakeFirstOrThrow();
      assert.equal(delivery.status, 'pending');
      assert.ok((await auditActions()).includes(`order.notification_resent order:${order.id}`));
    });

    test("an endpoint's deliveries show the request sent; one is redelivered and audited", async () => {
      const endpoints = (await get(owner, '/notification_endpoints')).json().data as Array<{ id: string }>;
      const list = await get(owner, `/notification_endpoints/${endpoints[0]!.id}/deliveries`);
      assert.equal(list.statusCode, 200, list.body);
      const deliveries = list.json().data as Array<{
        id: string;
        event_type: string;
        request_body: string;
        status: string;
      }>;
      assert.deepEqual(deliveries.map((d) => d.event_type).sort(), [
        'order.cancelled',
        'order.cancelled',
        'subscription.cancelled',
      ]);
      const body = JSON.parse(deliveries[0]!.request_body) as { type: string; data: unknown };
      assert.equal(body.type, deliveries[0]!.event_type);
      await database.db
        .updateTable('notification_deliveries')
        .set({ status: 'failed', failed_at: new Date(), next_attempt_at: null })
        .where('id', '=', deliveries[0]!.id)
        .execute();
      const again = await post(owner, `/notification_deliveries/${deliveries[0]!.id}/redeliver`);
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(again.json().redelivered, true);
      assert.equal(again.json().delivery.status, 'pending');
      assert.ok((await auditActions()).some((entry) => entry.startsWith('notification_delivery.redelivered')));
    });

    test('teardown', async () => {
      await app.close();
      await database.close();
    });
  });
}
