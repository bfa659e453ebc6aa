import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import type { RunningSandboxes } from '../../src/gateways/sandbox/server.ts';
import { gatewayCClient } from '../../src/gateways/registry.ts';
import { bearer, createTenant, type Tenant } from '../support/app.ts';
import {
  addGatewayC,
  encryptCard,
  GATEWAY_C_KEYS,
  SHOP_ORIGIN,
  startCardHashApp,
  startGatewaySandboxes,
  STRANGER_ORIGIN,
} from '../support/card-hash-fixtures.ts';
import { insertCart, insertOrder } from '../support/catalog-fixtures.ts';
import { engines } from '../support/engines.ts';
import { insertCartPage, insertCheckoutPage } from '../support/records-fixtures.ts';

const PEM = /^-----BEGIN PUBLIC KEY-----\n[\s\S]+\n-----END PUBLIC KEY-----\n?$/;

for (const engine of engines()) {
  describe(`gateway_c card hash key endpoints on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let sandboxes: RunningSandboxes;
    let app: FastifyInstance;
    let masterKey: Buffer;
    let shop: Tenant;
    let stranger: Tenant;
    let pageId: string;
    let cartId: string;
    let chargeUid: string;
    const paths = () => ({
      'checkout page': `/api/v1/checkout_pages/${pageId}/card_hash_key`,
      cart: `/api/v1/carts/${cartId}/card_hash_key`,
      charge: `/api/v1/charges/${chargeUid}/card_hash_key`,
    });

    before(async () => {
      database = await engine.open();
      sandboxes = await startGatewaySandboxes();
      ({
        app,
        config: { masterKey },
      } = await startCardHashApp(database, { gatewayCUrl: sandboxes.baseUrlFor('gateway_c') }));
      shop = await createTenant(database, { allowedHosts: ['shop.example'] });
      stranger = await createTenant(database, { allowedHosts: ['stranger.example'] });
      await addGatewayC(database, shop, masterKey);
      pageId = await insertCheckoutPage(database, shop, { gateway: 'gateway_c' });
      cartId = await insertCart(database, shop, await insertCartPage(database, shop, { gateway: 'gateway_c' }));
      ({ uid: chargeUid } = await insertOrder(database, shop, {
        source: 'charge',
        due_date: '2030-01-10',
        checkout_page_id: pageId,
      }));
    });
    after(async () => {
      await app.close();
      await sandboxes.close();
      await database.close();
    });

    test('the key object has exactly id, public_key and date_created, and is recorded as single-use for five minutes', async () => {
      const before = Date.now();
      const res = await app.inject({ url: paths()['checkout page'], headers: SHOP_ORIGIN });
      assert.equal(res.statusCode, 200);
      const key = res.json();
      assert.deepEqual(Object.keys(key).sort(), ['date_created', 'id', 'public_key']);
      assert.ok(Number.isInteger(key.id) && key.id > 0);
      assert.match(key.public_key, PEM);
      assert.match(key.date_created, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
      assert.ok(Math.abs(Date.parse(key.date_created) - before) < 10_000);
      const row = await database.db
        .selectFrom('card_hash_keys')
        .selectAll()
        .where('account_id', '=', shop.accountId)
        .where('gateway_key_id', '=', key.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.company_id, shop.companyId);
      assert.equal(row.public_key_pem, key.public_key);
      assert.equal(row.consumed_at, null);
      assert.equal(row.expires_at.getTime() - row.created_at.getTime(), 5 * 60_000);
    });

    test('every context issues its own key, and a card hash made with it is accepted by gateway_c', async () => {
      const account = {
        baseUrl: sandboxes.baseUrlFor('gateway_c'),
        publicKey: GATEWAY_C_KEYS.encryptionKey,
        secretKey: GATEWAY_C_KEYS.apiKey,
      };
      const ids = new Set<number>();
      for (const [context, path] of Object.entries(paths())) {
        const res = await app.inject({ url: path, headers: SHOP_ORIGIN });
        assert.equal(res.statusCode, 200, context);
        const key = res.json();
        ids.add(key.id);
        const outcome = await gatewayCClient().chargeCard(account, {
          amountCents: 4_990,
          installments: 1,
          cardToken: encryptCard(key),
          saveForLater: false,
          buyer: { name: 'Maria da Silva', email: 'maria@example.com' },
          description: `card hash from the ${context}`,
          metadata: { companyId: shop.companyId, orderUid: randomUUID(), paymentUid: randomUUID() },
          idempotencyKey: randomUUID(),
        });
        assert.equal(outcome.status, 'paid', context);
      }
      assert.equal(ids.size, 3);
    });

    test('the owner’s API key stands in for an allowed origin', async () => {
      for (const path of Object.values(paths())) {
        const res = await app.inject({ url: path, headers: bearer(shop.apiKey) });
        assert.equal(res.statusCode, 200, path);
      }
    });

    test('another account’s origin or key, or no origin, gets 403 with no body', async () => {
      for (const path of Object.values(paths())) {
        for (const headers of [
          STRANGER_ORIGIN,
          bearer(stranger.apiKey),
          {},
          { authorization: 'Bearer ck_not_a_key' },
        ]) {
          const res = await app.inject({ url: path, headers });
          assert.equal(res.statusCode, 403, `${path} ${JSON.stringify(headers)}`);
          assert.equal(res.body, '');
        }
      }
      const stored = await database.db
        .selectFrom('card_hash_keys')
        .select('gateway_key_id')
        .where('account_id', '=', stranger.accountId)
        .execute();
      assert.deepEqual(stored, []);
    });

    test('the three paths are in the OpenAPI document', async () => {
      const document = (await app.inject({ url: '/api/v1/openapi.json' })).json();
      for (const path of [
        '/checkout_pages/{id}/card_hash_key',
        '/carts/{id}/card_hash_key',
        '/charges/{id}/card_hash_key',
      ]) {
        assert.ok(document.paths[path]?.get, path);
        assert.deepEqual(Object.keys(document.paths[path].get.responses).sort(), [
          '200',
          '403',
          '422',
          '502',
          '503',
          '504',
        ]);
      }
    });
  });
}
