import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { ROLES, type Role } from '../../src/modules/dashboard/roles.ts';
import { createTenant, startTestApp, type Tenant } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import { insertOrder } from '../support/records-fixtures.ts';
import { insertSubscriber } from './ops-fixtures.ts';
import { as, userSignedIn, type SignedInUser } from './support.ts';

const BASE = '/api/v1/dashboard';
const MISSING_UUID = '00000000-0000-4000-8000-000000000000';
const MISSING_DELIVERY = 'dlv_000000000000000000000000';
const MISSING_ENDPOINT = 'ep_000000000000000000000000';
const everyone: Role[] = ['owner', 'admin', 'finance', 'support'];

type Action = { name: string; method: 'GET' | 'POST'; url: () => string; allowed: Role[]; done: number };

/** The customers, subscriptions, order-action and delivery routes with the roles allowed; a missing id proves the role passed. */
function actions(ids: { customer: number; subscription: string; order: number }): Action[] {
  return [
    { name: 'customers list', method: 'GET', url: () => `${BASE}/customers?q=joana`, allowed: everyone, done: 200 },
    {
      name: 'customer page',
      method: 'GET',
      url: () => `${BASE}/customers/${ids.customer}`,
      allowed: everyone,
      done: 200,
    },
    {
      name: 'subscription page',
      method: 'GET',
      url: () => `${BASE}/subscriptions/${ids.subscription}`,
      allowed: everyone,
      done: 200,
    },
    {
      name: 'subscription cancel',
      method: 'POST',
      url: () => `${BASE}/subscriptions/${MISSING_UUID}/cancel`,
      allowed: ['owner', 'admin'],
      done: 404,
    },
    {
      name: 'order cancel',
      method: 'POST',
      url: () => `${BASE}/orders/999999999/cancel`,
      allowed: ['owner', 'admin', 'finance'],
      done: 404,
    },
    {
      name: 'order notification resend',
      method: 'POST',
      url: () => `${BASE}/orders/999999999/resend_notification`,
      allowed: ['owner', 'admin', 'finance'],
      done: 404,
    },
    {
      name: 'endpoint deliveries',
      method: 'GET',
      url: () => `${BASE}/notification_endpoints/${MISSING_ENDPOINT}/deliveries`,
      allowed: ['owner', 'admin'],
      done: 404,
    },
    {
      name: 'redeliver',
      method: 'POST',
      url: () => `${BASE}/notification_deliveries/${MISSING_DELIVERY}/redeliver`,
      allowed: ['owner', 'admin'],
      done: 404,
    },
  ];
}

for (const engine of engines()) {
  describe(`dashboard customers, subscriptions and order actions by role on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let shop: Tenant;
    let other: Tenant;
    const ids = { customer: 0, subscription: '', order: 0 };
    const users = {} as Record<Role, SignedInUser>;

    test('setup', async () => {
      database = await engine.open();
      ({ app } = await startTestApp(database));
      shop = await createTenant(database);
      other = await createTenant(database);
      const subscriber = await insertSubscriber(database, shop);
      Object.assign(ids, { customer: subscriber.customerId, subscription: subscriber.subscriptionId });
      for (const role of ROLES) users[role] = await userSignedIn(app, database, shop, role);
    });

    test('every action answers each role as its permission says', async () => {
      for (const action of actions(ids))
        for (const role of ROLES) {
          const res = await app.inject({ method: action.method, url: action.url(), headers: as(users[role]) });
          const expected = action.allowed.includes(role) ? action.done : 403;
          assert.equal(res.statusCode, expected, `${action.name} as ${role}: ${res.body.slice(0, 300)}`);
        }
    });

    test('support changes nothing: a real subscription and an unpaid order stay as they were', async () => {
      const unpaid = await insertOrder(database, shop, { status: 'waiting_payment' });
      for (const url of [`${BASE}/subscriptions/${ids.subscription}/cancel`, `${BASE}/orders/${unpaid.id}/cancel`]) {
        const res = await app.inject({ method: 'POST', url, headers: as(users.support) });
        assert.equal(res.statusCode, 403, url);
      }
      const subscription = await database.db
        .selectFrom('subscriptions')
        .select('status')
        .where('id', '=', ids.subscription)
        .executeTakeFirstOrThrow();
      assert.equal(subscription.status, 'past_due');
      const order = await database.db
        .selectFrom('orders')
        .select('status')
        .where('id', '=', unpaid.id)
        .executeTakeFirstOrThrow();
      assert.equal(order.status, 'waiting_payment');
    });

    test("another account's customers, subscriptions and orders answer 404 and stay untouched", async () => {
      const theirs = await insertSubscriber(database, other, 'Outra Pessoa');
      const theirOrder = await insertOrder(database, other, { status: 'pending' });
      const attempts = [
        { method: 'GET' as const, url: `${BASE}/customers/${theirs.customerId}` },
        { method: 'GET' as const, url: `${BASE}/subscriptions/${theirs.subscriptionId}` },
        { method: 'POST' as const, url: `${BASE}/subscriptions/${theirs.subscriptionId}/cancel` },
        { method: 'POST' as const, url: `${BASE}/orders/${theirOrder.id}/cancel` },
        { method: 'POST' as const, url: `${BASE}/orders/${theirOrder.id}/resend_notification` },
      ];
      for (const attempt of attempts) {
        const res = await app.inject({ ...attempt, headers: as(users.owner) });
        assert.equal(res.statusCode, 404, `${attempt.method} ${attempt.url}: ${res.body}`);
      }
      const list = await app.inject({ method: 'GET', url: `${BASE}/customers?q=Outra`, headers: as(users.owner) });
      assert.equal(list.json().meta.total_count, 0);
      const order = await database.db
        .selectFrom('orders')
        .select('status')
        .where('id', '=', theirOrder.id)
        .executeTakeFirstOrThrow();
      assert.equal(order.status, 'pending');
    });

    test('teardown', async () => {
      await app.close();
      await database.close();
    });
  });
}
