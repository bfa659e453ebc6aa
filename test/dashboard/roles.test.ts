import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { ROLES, type Role } from '../../src/modules/dashboard/roles.ts';
import { createTenant, startTestApp, type Tenant } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import { insertOrder } from '../support/records-fixtures.ts';
import { as, signIn, userSignedIn, type SignedInUser } from './support.ts';

const BASE = '/api/v1/dashboard';
const MISSING_UUID = '00000000-0000-4000-8000-000000000000';
const MISSING_COMPANY = 2_000_000_000;

type Action = {
  name: string;
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  url: () => string;
  payload?: unknown;
  allowed: Role[];
  done: number;
};

/**
 * Every dashboard action with the roles allowed to take it. An action on a missing id or with an invalid body proves
 * the role passed (404/422) without changing anything; a refused role gets 403 before any of that.
 */
function actions(orderId: () => number): Action[] {
  const everyone: Role[] = ['owner', 'admin', 'finance', 'support'];
  return [
    {
      name: 'home figures',
      method: 'GET',
      url: () => `${BASE}/summary?initial_date=2026-01-01&final_date=2026-01-31`,
      allowed: everyone,
      done: 200,
    },
    { name: 'orders list', method: 'GET', url: () => `${BASE}/orders`, allowed: everyone, done: 200 },
    { name: 'order page', method: 'GET', url: () => `${BASE}/orders/${orderId()}`, allowed: everyone, done: 200 },
    {
      name: 'CSV export',
      method: 'GET',
      url: () => `${BASE}/orders.csv`,
      allowed: ['owner', 'admin', 'finance'],
      done: 200,
    },
    {
      name: 'refund',
      method: 'POST',
      url: () => `${BASE}/payments/999999999/refund`,
      payload: {},
      allowed: ['owner', 'admin', 'finance'],
      done: 404,
    },
    { name: 'API keys list', method: 'GET', url: () => `${BASE}/api_keys`, allowed: ['owner', 'admin'], done: 200 },
    {
      name: 'API key create',
      method: 'POST',
      url: () => `${BASE}/api_keys`,
      payload: { label: '' },
      allowed: ['owner', 'admin'],
      done: 422,
    },
    {
      name: 'API key rotate',
      method: 'POST',
      url: () => `${BASE}/api_keys/rotate`,
      payload: { grace_seconds: -1 },
      allowed: ['owner', 'admin'],
      done: 422,
    },
    {
      name: 'API key revoke',
      method: 'DELETE',
      url: () => `${BASE}/api_keys/${MISSING_UUID}`,
      allowed: ['owner', 'admin'],
      done: 404,
    },
    {
      name: 'endpoints list',
      method: 'GET',
      url: () => `${BASE}/notification_endpoints`,
      allowed: ['owner', 'admin'],
      done: 200,
    },
    {
      name: 'endpoint create',
      method: 'POST',
      url: () => `${BASE}/notification_endpoints`,
      payload: { url: 'ftp://x' },
      allowed: ['owner', 'admin'],
      done: 422,
    },
    {
      name: 'endpoint disable',
      method: 'PATCH',
      url: () => `${BASE}/notification_endpoints/ep_000000000000000000000000`,
      payload: { enabled: false },
      allowed: ['owner', 'admin'],
      done: 404,
    },
    {
      name: 'endpoint secret rotation',
      method: 'POST',
      url: () => `${BASE}/notification_endpoints/ep_000000000000000000000000/rotate_secret`,
      payload: { grace_seconds: 0 },
      allowed: ['owner', 'admin'],
      done: 404,
    },
    { name: 'users list', method: 'GET', url: () => `${BASE}/users`, allowed: ['owner'], done: 200 },
    {
      name: 'invite',
      method: 'POST',
      url: () => `${BASE}/users`,
      payload: { email: 'not an address', role: 'support' },
      allowed: ['owner'],
      done: 422,
    },
    {
      name: 'role change',
      method: 'PATCH',
      url: () => `${BASE}/users/${MISSING_UUID}`,
      payload: { role: 'admin' },
      allowed: ['owner'],
      done: 404,
    },
    {
      name: 'user removal',
      method: 'DELETE',
      url: () => `${BASE}/users/${MISSING_UUID}`,
      allowed: ['owner'],
      done: 404,
    },
    { name: 'audit log', method: 'GET', url: () => `${BASE}/audit_log`, allowed: ['owner'], done: 200 },
    // Settings, allowed hosts, inbound webhook credentials.
    { name: 'settings', method: 'GET', url: () => `${BASE}/settings`, allowed: everyone, done: 200 },
    {
      name: 'settings change',
      method: 'PATCH',
      url: () => `${BASE}/settings/companies/${MISSING_COMPANY}`,
      payload: { boleto_due_days: 5 },
      allowed: ['owner', 'admin'],
      done: 404,
    },
    {
      name: 'gateway credentials',
      method: 'GET',
      url: () => `${BASE}/settings/companies/${MISSING_COMPANY}/gateways`,
      allowed: ['owner', 'admin'],
      done: 404,
    },
    {
      name: 'gateway credentials change',
      method: 'PATCH',
      url: () => `${BASE}/settings/companies/${MISSING_COMPANY}/gateways/gateway_a`,
      payload: { secret_key: 'sk_live_0000000000000000' },
      allowed: ['owner', 'admin'],
      done: 404,
    },
    {
      name: 'allowed hosts',
      method: 'GET',
      url: () => `${BASE}/allowed_hosts`,
      allowed: ['owner', 'admin'],
      done: 200,
    },
    {
      name: 'allowed hosts change',
      method: 'PUT',
      url: () => `${BASE}/allowed_hosts`,
      payload: { allowed_hosts: ['not a host'] },
      allowed: ['owner', 'admin'],
      done: 422,
    },
    {
      name: 'inbound webhook credentials',
      method: 'GET',
      url: () => `${BASE}/webhook_credentials`,
      allowed: ['owner', 'admin'],
      done: 200,
    },
    {
      name: 'inbound webhook credential rotation',
      method: 'POST',
      url: () => `${BASE}/webhook_credentials/${MISSING_COMPANY}/gateway_b/rotate`,
      payload: {},
      allowed: ['owner', 'admin'],
      done: 404,
    },
  ];
}

for (const engine of engines()) {
  describe(`dashboard roles and tenancy on ${engine.name}`, { timeout: 180_000 }, () => {
    let database: Database;
    let app: FastifyInstance;
    let shop: Tenant;
    let other: Tenant;
    let orderId = 0;
    const users = {} as Record<Role, SignedInUser>;

    test('setup', async () => {
      database = await engine.open();
      ({ app } = await startTestApp(database));
      shop = await createTenant(database);
      other = await createTenant(database);
      orderId = (await insertOrder(database, shop)).id;
      for (const role of ROLES) users[role] = await userSignedIn(app, database, shop, role);
    });

    for (const action of actions(() => orderId)) {
      test(`${action.name}: ${action.allowed.join(', ')} only`, async () => {
        for (const role of ROLES) {
          const res = await app.inject({
            method: action.method,
            url: action.url(),
            headers: as(
              users[role],
              action.method === 'POST' && action.name === 'refund'
                ? { 'idempotency-key': `k-${role}-${Date.now()}` }
                : {},
            ),
            ...(action.payload !== undefined ? { payload: action.payload as object } : {}),
          });
          const expected = action.allowed.includes(role) ? action.done : 403;
          assert.equal(res.statusCode, expected, `${role}: ${res.body.slice(0, 300)}`);
        }
      });
    }

    test('a role change takes effect on the next request; a removal ends the sessions', async () => {
      const admin = await userSignedIn(app, database, shop, 'admin', 'moving@example.com');
      assert.equal((await app.inject({ method: 'GET', url: `${BASE}/api_keys`, headers: as(admin) })).statusCode, 200);
      const demoted = await app.inject({
        method: 'PATCH',
        url: `${BASE}/users/${admin.id}`,
        headers: as(users.owner),
        payload: { role: 'support' },
      });
      assert.equal(demoted.statusCode, 200, demoted.body);
      assert.equal((await app.inject({ method: 'GET', url: `${BASE}/api_keys`, headers: as(admin) })).statusCode, 403);
      const removed = await app.inject({
        method: 'DELETE',
        url: `${BASE}/users/${admin.id}`,
        headers: as(users.owner),
      });
      assert.equal(removed.statusCode, 204);
      assert.equal((await app.inject({ method: 'GET', url: `${BASE}/orders`, headers: as(admin) })).statusCode, 401);
      const audit = await app.inject({ method: 'GET', url: `${BASE}/audit_log`, headers: as(users.owner) });
      const actions = (audit.json().data as Array<{ action: string; data: Record<string, unknown> }>).map(
        (e) => e.action,
      );
      assert.ok(actions.includes('user.role_changed') && actions.includes('user.removed'));
    });

    test('the last owner can be neither demoted nor removed', async () => {
      const demote = await app.inject({
        method: 'PATCH',
        url: `${BASE}/users/${users.owner.id}`,
        headers: as(users.owner),
        payload: { role: 'admin' },
      });
      assert.equal(demote.statusCode, 422);
      const remove = await app.inject({
        method: 'DELETE',
        url: `${BASE}/users/${users.owner.id}`,
        headers: as(users.owner),
      });
      assert.equal(remove.statusCode, 422);
    });

    test("another account's ids answer 404", async () => {
      const theirs = await insertOrder(database, other);
      const payment = await database.db
        .insertInto('payments')
        .values({
          uid: crypto.randomUUID(),
          account_id: other.accountId,
          company_id: other.companyId,
          order_id: theirs.id,
          gateway: 'gateway_a',
          method: 'credit_card',
          status: 'paid',
          amount_cents: 1000,
          installment_value_cents: 1000,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const theirOwner = await userSignedIn(app, database, other, 'owner');
      const theirKey = await database.db
        .selectFrom('api_keys')
        .select('id')
        .where('account_id', '=', other.accountId)
        .executeTakeFirstOrThrow();
      const attempts = [
        { method: 'GET' as const, url: `${BASE}/orders/${theirs.id}` },
        {
          method: 'POST' as const,
          url: `${BASE}/payments/${payment.id}/refund`,
          payload: {},
          headers: { 'idempotency-key': 'cross-account' },
        },
        { method: 'PATCH' as const, url: `${BASE}/users/${theirOwner.id}`, payload: { role: 'support' } },
        { method: 'DELETE' as const, url: `${BASE}/users/${theirOwner.id}` },
        { method: 'DELETE' as const, url: `${BASE}/api_keys/${theirKey.id}` },
      ];
      for (const attempt of attempts) {
        const res = await app.inject({
          method: attempt.method,
          url: attempt.url,
          headers: as(users.owner, attempt.headers ?? {}),
          ...(attempt.payload ? { payload: attempt.payload } : {}),
        });
        assert.equal(res.statusCode, 404, `${attempt.method} ${attempt.url}: ${res.body}`);
      }
      const list = await app.inject({ method: 'GET', url: `${BASE}/orders`, headers: as(users.owner) });
      assert.ok((list.json().data as Array<{ id: number }>).every((order) => order.id !== theirs.id));
      await signIn(app, theirOwner.email);
    });

    test('teardown', async () => {
      await app.close();
      await database.close();
    });
  });
}
