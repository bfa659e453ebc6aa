import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import type { RunningSandboxes } from '../../src/gateways/sandbox/server.ts';
import { createTenant, type Tenant } from '../support/app.ts';
import { addGatewayC, SHOP_ORIGIN, startCardHashApp, startGatewaySandboxes } from '../support/card-hash-fixtures.ts';
import { insertCart, insertCompany, insertGateway, insertOrder } from '../support/catalog-fixtures.ts';
import { engines } from '../support/engines.ts';
import { insertCartPage, insertCheckoutPage } from '../support/records-fixtures.ts';

/** A port nothing listens on: the connection is refused at once. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/gateway_c`;
}

for (const engine of engines()) {
  describe(`when a gateway_c card hash key can be issued, on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let sandboxes: RunningSandboxes;
    let app: FastifyInstance;
    let masterKey: Buffer;
    let shop: Tenant;
    let pageId: string;

    before(async () => {
      database = await engine.open();
      sandboxes = await startGatewaySandboxes();
      ({
        app,
        config: { masterKey },
      } = await startCardHashApp(database, { gatewayCUrl: sandboxes.baseUrlFor('gateway_c') }));
      shop = await createTenant(database, { allowedHosts: ['shop.example'] });
      await addGatewayC(database, shop, masterKey);
      pageId = await insertCheckoutPage(database, shop, { gateway: 'gateway_c' });
    });
    after(async () => {
      await app.close();
      await sandboxes.close();
      await database.close();
    });

    test('an unknown id is 422 with errors; a malformed id too', async () => {
      const unknown = randomUUID();
      const expected = {
        checkout_pages: 'checkout page not found',
        carts: 'cart not found',
        charges: 'charge not found',
      };
      for (const [segment, message] of Object.entries(expected)) {
        const res = await app.inject({ url: `/api/v1/${segment}/${unknown}/card_hash_key`, headers: SHOP_ORIGIN });
        assert.equal(res.statusCode, 422);
        assert.deepEqual(res.json(), { errors: [message] });
        const malformed = await app.inject({
          url: `/api/v1/${segment}/not-a-uuid/card_hash_key`,
          headers: SHOP_ORIGIN,
        });
        assert.equal(malformed.statusCode, 422);
        assert.equal(malformed.json().errors.length, 1);
        assert.match(malformed.json().errors[0], /^params\/id /);
      }
    });

    test('a deleted checkout page, and an order that is not a charge, are not found', async () => {
      const deleted = await insertCheckoutPage(database, shop, { gateway: 'gateway_c', deleted: true });
      const res = await app.inject({ url: `/api/v1/checkout_pages/${deleted}/card_hash_key`, headers: SHOP_ORIGIN });
      assert.deepEqual([res.statusCode, res.json()], [422, { errors: ['checkout page not found'] }]);
      const order = await insertOrder(database, shop, { checkout_page_id: pageId });
      const notCharge = await app.inject({ url: `/api/v1/charges/${order.uid}/card_hash_key`, headers: SHOP_ORIGIN });
      assert.deepEqual([notCharge.statusCode, notCharge.json()], [422, { errors: ['charge not found'] }]);
    });

    test('a page or cart on another gateway is 422', async () => {
      const gatewayA = await insertCheckoutPage(database, shop, { gateway: 'gateway_a' });
      const res = await app.inject({ url: `/api/v1/checkout_pages/${gatewayA}/card_hash_key`, headers: SHOP_ORIGIN });
      assert.equal(res.statusCode, 422);
      assert.deepEqual(res.json(), {
        errors: ['card hash keys exist only for gateway_c; this checkout page uses gateway_a'],
      });
      const cartB = await insertCart(database, shop, await insertCartPage(database, shop, { gateway: 'gateway_b' }));
      const cart = await app.inject({ url: `/api/v1/carts/${cartB}/card_hash_key`, headers: SHOP_ORIGIN });
      assert.deepEqual(
        [cart.statusCode, cart.json()],
        [422, { errors: ['card hash keys exist only for gateway_c; this cart uses gateway_b'] }],
      );
    });

    test('a charge follows its page’s gateway, else the company’s first enabled card gateway', async () => {
      const gatewayAPage = await insertCheckoutPage(database, shop, { gateway: 'gateway_a' });
      const onPageA = await insertOrder(database, shop, {
        source: 'charge',
        due_date: '2030-01-10',
        checkout_page_id: gatewayAPage,
      });
      const refused = await app.inject({ url: `/api/v1/charges/${onPageA.uid}/card_hash_key`, headers: SHOP_ORIGIN });
      assert.deepEqual(
        [refused.statusCode, refused.json()],
        [422, { errors: ['card hash keys exist only for gateway_c; this charge uses gateway_a'] }],
      );

      const cartPage = await insertCartPage(database, shop, { gateway: 'gateway_c' });
      const onCartPage = await insertOrder(database, shop, {
        source: 'charge',
        due_date: '2030-01-10',
        cart_page_id: cartPage,
      });
      assert.equal(
        (await app.inject({ url: `/api/v1/charges/${onCartPage.uid}/card_hash_key`, headers: SHOP_ORIGIN })).statusCode,
        200,
      );

      const onlyC = await insertCompany(database, shop);
      await addGatewayC(database, shop, masterKey, { companyId: onlyC });
      const pageless = await insertOrder(database, shop, {
        source: 'charge',
        due_date: '2030-01-10',
        company_id: onlyC,
      });
      const issued = await app.inject({ url: `/api/v1/charges/${pageless.uid}/card_hash_key`, headers: SHOP_ORIGIN });
      assert.equal(issued.statusCode, 200);
      const row = await database.db
        .selectFrom('card_hash_keys')
        .select('company_id')
        .where('account_id', '=', shop.accountId)
        .where('gateway_key_id', '=', issued.json().id)
        .executeTakeFirstOrThrow();
      assert.equal(row.company_id, onlyC, 'the key is bound to the charge’s company');

      const aAndC = await insertCompany(database, shop);
      await addGatewayC(database, shop, masterKey, { companyId: aAndC });
      await insertGateway(database, shop, 'gateway_a', 'pk_test_a', { company_id: aAndC });
      const prefersA = await insertOrder(database, shop, {
        source: 'charge',
        due_date: '2030-01-10',
        company_id: aAndC,
      });
      const res = await app.inject({ url: `/api/v1/charges/${prefersA.uid}/card_hash_key`, headers: SHOP_ORIGIN });
      assert.deepEqual(
        [res.statusCode, res.json()],
        [422, { errors: ['card hash keys exist only for gateway_c; this charge uses gateway_a'] }],
      );
    });

    test('a company without a usable gateway_c integration gets 422', async () => {
      const noIntegration = 'the company has no enabled gateway_c integration with an encryption key and an api key';
      const cases: Array<[string, Parameters<typeof addGatewayC>[3] | undefined]> = [
        ['none at all', undefined],
        ['disabled', { enabled: false }],
        ['without an api key', { apiKey: null }],
        ['without an encryption key', { encryptionKey: null }],
      ];
      for (const [name, integration] of cases) {
        const companyId = await insertCompany(database, shop);
        if (integration) await addGatewayC(database, shop, masterKey, { companyId, ...integration });
        const page = await insertCheckoutPage(database, shop, { gateway: 'gateway_c' });
        await database.db.updateTable('checkout_pages').set({ company_id: companyId }).where('id', '=', page).execute();
        const res = await app.inject({ url: `/api/v1/checkout_pages/${page}/card_hash_key`, headers: SHOP_ORIGIN });
        assert.deepEqual([res.statusCode, res.json()], [422, { errors: [noIntegration] }], name);
      }
    });

    test('an encryption key gateway_c refuses is 422', async () => {
      const companyId = await insertCompany(database, shop);
      await addGatewayC(database, shop, masterKey, { companyId, encryptionKey: 'pk_test_not_an_encryption_key' });
      const page = await insertCheckoutPage(database, shop, { gateway: 'gateway_c' });
      await database.db.updateTable('checkout_pages').set({ company_id: companyId }).where('id', '=', page).execute();
      const res = await app.inject({ url: `/api/v1/checkout_pages/${page}/card_hash_key`, headers: SHOP_ORIGIN });
      assert.deepEqual(
        [res.statusCode, res.json()],
        [422, { errors: ['gateway_c refused the company’s encryption key'] }],
      );
    });

    test('without a gateway_c URL the answer is 503; an unreachable gateway_c is 504', async () => {
      const unconfigured = await startCardHashApp(database);
      try {
        const res = await unconfigured.app.inject({
          url: `/api/v1/checkout_pages/${pageId}/card_hash_key`,
          headers: SHOP_ORIGIN,
        });
        assert.deepEqual([res.statusCode, res.json()], [503, { errors: ['gateway_c is not reachable'] }]);
      } finally {
        await unconfigured.app.close();
      }
      // Each test app has its own master key, so this one needs an integration sealed under it.
      const unreachable = await startCardHashApp(database, { gatewayCUrl: await closedPortUrl() });
      try {
        const tenant = await createTenant(database, { allowedHosts: ['shop.example'] });
        await addGatewayC(database, tenant, unreachable.config.masterKey);
        const page = await insertCheckoutPage(database, tenant, { gateway: 'gateway_c' });
        const res = await unreachable.app.inject({
          url: `/api/v1/checkout_pages/${page}/card_hash_key`,
          headers: SHOP_ORIGIN,
        });
        assert.deepEqual([res.statusCode, res.json()], [504, { errors: ['gateway_c did not answer in time'] }]);
      } finally {
        await unreachable.app.close();
      }
    });
  });
}
