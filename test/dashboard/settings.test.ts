import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { signatureHeader } from '../../src/gateways/gateway-b/index.ts';
import { unseal } from '../../src/lib/crypto.ts';
import { createTenant, startTestApp, type Tenant } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import { VALID_ALPHANUMERIC_CNPJ } from '../support/records-fixtures.ts';
import { as, userSignedIn, type SignedInUser } from './support.ts';

const BASE = '/api/v1/dashboard';

for (const engine of engines()) {
  describe(`dashboard settings, allowed hosts and webhook credentials on ${engine.name}`, { timeout: 180_000 }, () => {
    let database: Database;
    let app: FastifyInstance;
    let masterKey: Buffer;
    let shop: Tenant;
    let other: Tenant;
    let owner: SignedInUser;
    let finance: SignedInUser;

    const call = (user: SignedInUser, method: 'GET' | 'PATCH' | 'PUT' | 'POST', url: string, payload?: object) =>
      app.inject({ method, url: `${BASE}${url}`, headers: as(user), ...(payload ? { payload } : {}) });
    const auditActions = async () =>
      ((await call(owner, 'GET', '/audit_log')).json().data as Array<{ action: string; data: unknown }>).map(
        (entry) => ({ action: entry.action, data: JSON.stringify(entry.data) }),
      );

    test('setup', async () => {
      database = await engine.open();
      const started = await startTestApp(database);
      app = started.app;
      masterKey = started.config.masterKey;
      shop = await createTenant(database);
      other = await createTenant(database);
      owner = await userSignedIn(app, database, shop, 'owner');
      finance = await userSignedIn(app, database, shop, 'finance');
    });

    test('company data: the merchant file rules, an alphanumeric CNPJ, the time zone the home figures follow', async () => {
      const path = `/settings/companies/${shop.companyId}`;
      const refused = await call(owner, 'PATCH', path, {
        document: '12ABC34501DE36',
        time_zone: 'CET',
        fine_terms: { fine: 2.005, late_interest_tax: 0.00001 },
      });
      assert.equal(refused.statusCode, 422, refused.body);
      const fields = (refused.json().details as Array<{ field: string }>).map((detail) => detail.field).sort();
      assert.deepEqual(fields, [
        'body.document',
        'body.fine_terms.fine',
        'body.fine_terms.late_interest_tax',
        'body.time_zone',
      ]);
      assert.equal((await call(owner, 'PATCH', path, { postal_code: '01310100' })).statusCode, 422);
      assert.equal((await call(owner, 'PATCH', path, { address: { postal_code: '1310-100' } })).statusCode, 422);

      const saved = await call(owner, 'PATCH', path, {
        name: 'Loja Nova',
        document: VALID_ALPHANUMERIC_CNPJ.toLowerCase(),
        address: { street: 'Av. Paulista', street_number: '1000', district: 'Bela Vista', postal_code: '01310100' },
        city: 'São Paulo',
        state: 'SP',
        time_zone: 'America/Manaus',
        pix_expiration_minutes: 45,
        boleto_due_days: 5,
        fine_terms: { fine_type: 'percentage', fine_tax: 2, late_interest_tax: 0.0333, fine: 0, late_interest: 0 },
      });
      assert.equal(saved.statusCode, 200, saved.body);
      const view = saved.json();
      assert.equal(view.document, VALID_ALPHANUMERIC_CNPJ);
      assert.equal(view.address.postal_code, '01310100');
      assert.equal(view.pix_expiration_minutes, 45);
      assert.deepEqual(view.fine_terms, {
        fine_type: 'percentage',
        fine: 0,
        fine_tax: 2,
        late_interest: 0,
        late_interest_tax: 0.0333,
      });

      const read = await call(finance, 'GET', '/settings');
      assert.equal(read.statusCode, 200);
      assert.equal(read.json().companies[0].name, 'Loja Nova');
      assert.equal(read.json().companies.length, 1, 'only the account’s own companies');
      const summary = await call(finance, 'GET', '/summary?initial_date=2026-01-01&final_date=2026-01-01');
      assert.equal(summary.json().time_zone, 'America/Manaus');

      assert.equal(
        (await call(owner, 'PATCH', `/settings/companies/${other.companyId}`, { name: 'x' })).statusCode,
        404,
      );
      const audit = await auditActions();
      assert.ok(audit.some((entry) => entry.action === 'settings.company_updated' && entry.data.includes('Loja Nova')));
    });

    test('gateway credentials: sealed, shown back only as the last four and when they were set', async () => {
      const secret = 'sk_test_abcdefghijklmnop1234WXYZ';
      const saved = await call(owner, 'PATCH', `/settings/companies/${shop.companyId}/gateways/gateway_a`, {
        public_key: 'pk_test_visible',
        secret_key: secret,
      });
      assert.equal(saved.statusCode, 200, saved.body);
      assert.equal(saved.json().secret_last4, 'WXYZ');
      assert.ok(!saved.body.includes(secret.slice(0, 20)));
      const listed = await call(owner, 'GET', `/settings/companies/${shop.companyId}/gateways`);
      const gatewayA = listed.json().data.find((row: { gateway: string }) => row.gateway === 'gateway_a');
      assert.equal(gatewayA.public_key, 'pk_test_visible');
      assert.ok(Date.parse(gatewayA.secret_set_at) > 0);
      assert.ok(!listed.body.includes(secret.slice(0, 20)));
      const stored = await database.db
        .selectFrom('company_gateways')
        .select('secret_encrypted')
        .where('company_id', '=', shop.companyId)
        .where('gateway', '=', 'gateway_a')
        .executeTakeFirstOrThrow();
      assert.ok(!stored.secret_encrypted!.includes(secret));
      assert.equal(unseal(masterKey, stored.secret_encrypted!), secret);

      // Disabling keeps the secret.
      const disabled = await call(owner, 'PATCH', `/settings/companies/${shop.companyId}/gateways/gateway_a`, {
        enabled: false,
      });
      assert.equal(disabled.json().enabled, false);
      assert.equal(disabled.json().secret_last4, 'WXYZ');
      assert.equal(
        (await call(owner, 'GET', `/settings/companies/${other.companyId}/gateways`)).statusCode,
        404,
        'another account’s company',
      );
      const audit = await auditActions();
      assert.ok(
        audit.some((row) => row.action === 'settings.gateway_updated' && row.data.includes('"secret_changed":true')),
      );
      assert.ok(audit.every((row) => !row.data.includes(secret.slice(0, 20))));
    });

    test('allowed hosts: the merchant file rules, audited', async () => {
      const refused = await call(owner, 'PUT', '/allowed_hosts', {
        allowed_hosts: ['shop.example', 'x.example:70000'],
      });
      assert.equal(refused.statusCode, 422);
      assert.equal(refused.json().details[0].field, 'allowed_hosts[1]');
      assert.match(refused.json().details[0].message, /port outside/);
      const saved = await call(owner, 'PUT', '/allowed_hosts', {
        allowed_hosts: ['loja.example', '*.loja.example', 'localhost:5173', 'loja.example'],
      });
      assert.equal(saved.statusCode, 200, saved.body);
      assert.deepEqual((await call(owner, 'GET', '/allowed_hosts')).json().allowed_hosts, [
        'loja.example',
        '*.loja.example',
        'localhost:5173',
      ]);
      const row = await database.db
        .selectFrom('accounts')
        .select('allowed_hosts')
        .where('id', '=', other.accountId)
        .executeTakeFirstOrThrow();
      assert.deepEqual(row.allowed_hosts, [], 'the other account is untouched');
      assert.ok((await auditActions()).some((entry) => entry.action === 'allowed_hosts.updated'));
    });

    test('gateway_b signing secret: rotation shown once, the previous kept until the next rotation on request', async () => {
      const url = `/api/v1/webhooks/${shop.companyId}/gateway_b`;
      const event = (id: string) =>
        JSON.stringify({ id, object: 'event', type: 'customer.created', created: 1, data: { object: { id: 'c' } } });
      const send = (secret: string, id: string) =>
        app.inject({
          method: 'POST',
          url,
          headers: {
            'content-type': 'application/json',
            'gateway-b-signature': signatureHeader(secret, event(id), Math.floor(Date.now() / 1000)),
          },
          payload: event(id),
        });
      const rotate = (keepPrevious?: boolean) =>
        call(owner, 'POST', `/webhook_credentials/${shop.companyId}/gateway_b/rotate`, {
          ...(keepPrevious === undefined ? {} : { keep_previous: keepPrevious }),
        });

      const first = await rotate();
      assert.equal(first.statusCode, 201, first.body);
      const firstSecret = first.json().secret as string;
      assert.equal(first.json().url, `http://pay.test${url}`);
      assert.equal((await send(firstSecret, 'evt_a')).statusCode, 200);
      const second = (await rotate()).json();
      assert.equal(second.previous_secret_accepted, true);
      assert.equal((await send(second.secret, 'evt_b')).statusCode, 200);
      assert.equal((await send(firstSecret, 'evt_c')).statusCode, 200, 'the previous secret during the grace');
      const third = (await rotate(false)).json();
      assert.equal((await send(third.secret, 'evt_d')).statusCode, 200);
      assert.equal((await send(second.secret, 'evt_e')).statusCode, 401, 'no grace asked: the old secret is refused');

      const listed = await call(owner, 'GET', '/webhook_credentials');
      assert.equal(listed.statusCode, 200);
      assert.ok(!listed.body.includes(third.secret));
      const rows = listed.json().data as Array<Record<string, unknown>>;
      assert.deepEqual(
        rows.map((row) => row.receiver),
        ['gateway_a', 'gateway_b', 'gateway_c', 'bank', 'invoicing', 'topic'],
      );
      const gatewayB = rows.find((row) => row.receiver === 'gateway_b')!;
      assert.equal(gatewayB.configured, true);
      assert.equal(gatewayB.previous_secret_accepted, false);
      assert.equal(gatewayB.grace, 'previous_until_next_rotation');
      const audit = await auditActions();
      assert.equal(audit.filter((entry) => entry.action === 'webhook_credential.rotated').length, 3);
      assert.ok(audit.every((entry) => !entry.data.includes(third.secret)));
    });

    test('bank Basic password: the new one works at once, the old one stops; topic has nothing to rotate', async () => {
      const body = JSON.stringify({ id: 'bank-evt-1', type: 'statement.note', data: {} });
      const send = (username: string, password: string) =>
        app.inject({
          method: 'POST',
          url: `/api/v1/webhooks/${shop.companyId}/bank`,
          headers: {
            'content-type': 'application/json',
            authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
          },
          payload: body,
        });
      const first = (await call(owner, 'POST', `/webhook_credentials/${shop.companyId}/bank/rotate`, {})).json();
      assert.equal(first.username, shop.slug);
      assert.equal((await send(first.username, first.secret)).statusCode, 200);
      const second = (await call(owner, 'POST', `/webhook_credentials/${shop.companyId}/bank/rotate`, {})).json();
      assert.equal(second.previous_secret_accepted, false);
      assert.equal((await send(second.username, first.secret)).statusCode, 401);
      assert.equal((await send(second.username, second.secret)).statusCode, 200);

      // Another company already has the shop's slug as its invoicing username: the first one gets a suffix.
      await database.db
        .insertInto('company_webhook_credentials')
        .values({
          account_id: other.accountId,
          company_id: other.companyId,
          receiver: 'invoicing',
          username: shop.slug,
          secret_encrypted: 'v1.x.y.z',
        })
        .execute();
      const invoicing = await call(owner, 'POST', `/webhook_credentials/${shop.companyId}/invoicing/rotate`, {});
      assert.equal(invoicing.statusCode, 201, invoicing.body);
      assert.match(invoicing.json().username, new RegExp(`^${shop.slug}-[a-z0-9]{6}$`));

      const topic = await call(owner, 'POST', `/webhook_credentials/${shop.companyId}/topic/rotate`, {});
      assert.equal(topic.statusCode, 422);
      const foreign = await call(owner, 'POST', `/webhook_credentials/${other.companyId}/bank/rotate`, {});
      assert.equal(foreign.statusCode, 404);
    });

    test('teardown', async () => {
      await app.close();
      await database.close();
    });
  });
}
