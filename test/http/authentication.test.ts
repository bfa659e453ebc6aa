import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { rotateKey } from '../../src/modules/accounts/api-keys.ts';
import { bearer, createTenant, startTestApp, type Tenant } from '../support/app.ts';
import { engines } from '../support/engines.ts';

for (const engine of engines()) {
  describe(`authentication on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let shop: Tenant;
    let other: Tenant;
    let productId: number;

    before(async () => {
      database = await engine.open();
      ({ app } = await startTestApp(database));
      shop = await createTenant(database, { allowedHosts: ['shop.example.com', '*.brand.example', 'localhost:5173'] });
      other = await createTenant(database, { allowedHosts: ['other.example.org'] });
      const created = await app.inject({
        method: 'POST',
        url: '/api/v1/products',
        headers: bearer(shop.apiKey),
        payload: { name: 'E-book', value: 10 },
      });
      assert.equal(created.statusCode, 200, created.body);
      productId = created.json().id;
    });
    after(async () => {
      await app.close();
      await database.close();
    });

    describe('key endpoints', () => {
      test('a missing key gets 401 authentication_required', async () => {
        const res = await app.inject({ method: 'GET', url: '/api/v1/products' });
        assert.equal(res.statusCode, 401);
        assert.equal(res.json().code, 'authentication_required');
      });

      test('a malformed, unknown or tampered key gets 401 invalid_api_key', async () => {
        const tampered = shop.apiKey.slice(0, -1) + (shop.apiKey.endsWith('A') ? 'B' : 'A');
        for (const header of [
          'Bearer nope',
          `Bearer ${tampered}`,
          `Basic ${Buffer.from('a:b').toString('base64')}`,
          'Bearer ck_0000000000000000_' + 'x'.repeat(43),
        ]) {
          const res = await app.inject({ method: 'GET', url: '/api/v1/products', headers: { authorization: header } });
          assert.equal(res.statusCode, 401, header);
          assert.equal(res.json().code, 'invalid_api_key');
        }
      });

      test('a valid key reaches its own account only', async () => {
        const mine = await app.inject({ method: 'GET', url: '/api/v1/products', headers: bearer(shop.apiKey) });
        assert.equal(mine.statusCode, 200);
        assert.deepEqual(
          mine.json().map((p: { id: number }) => p.id),
          [productId],
        );
        const theirs = await app.inject({ method: 'GET', url: '/api/v1/products', headers: bearer(other.apiKey) });
        assert.equal(theirs.statusCode, 200);
        assert.deepEqual(theirs.json(), []);
      });

      test('a rotated key keeps working during the grace period, a revoked one does not', async () => {
        const tenant = await createTenant(database);
        const graced = await rotateKey(database.db, tenant.accountId, 3600, new Date());
        assert.equal((await app.inject({ url: '/api/v1/products', headers: bearer(tenant.apiKey) })).statusCode, 200);
        assert.equal(
          (await app.inject({ url: '/api/v1/products', headers: bearer(graced.plaintext) })).statusCode,
          200,
        );
        const fresh = await rotateKey(database.db, tenant.accountId, 0, new Date());
        assert.equal((await app.inject({ url: '/api/v1/products', headers: bearer(tenant.apiKey) })).statusCode, 401);
        assert.equal(
          (await app.inject({ url: '/api/v1/products', headers: bearer(graced.plaintext) })).statusCode,
          401,
        );
        assert.equal((await app.inject({ url: '/api/v1/products', headers: bearer(fresh.plaintext) })).statusCode, 200);
      });

      test('rotations at the same moment leave exactly one live key', async () => {
        const tenant = await createTenant(database);
        const issued = await Promise.all(
          [0, 1, 2, 3].map(() => rotateKey(database.db, tenant.accountId, 0, new Date())),
        );
        const live = await Promise.all(
          issued.map(
            async (key) => (await app.inject({ url: '/api/v1/products', headers: bearer(key.plaintext) })).statusCode,
          ),
        );
        assert.deepEqual(live.filter((status) => status === 200).length, 1, live.join(','));
      });

      test('only a hash of the key is stored', async () => {
        const rows = await database.db
          .selectFrom('api_keys')
          .selectAll()
          .where('account_id', '=', shop.accountId)
          .execute();
        assert.equal(rows.length, 1);
        // The secret is everything after `ck_<16 hex key id>_` (it may itself contain underscores).
        assert.ok(!JSON.stringify(rows).includes(shop.apiKey.slice('ck_0123456789abcdef_'.length)));
        assert.equal(rows[0]!.key_hash.length, 32);
      });
    });

    describe('host restriction on public endpoints', () => {
      const show = (headers: Record<string, string>) =>
        app.inject({ method: 'GET', url: `/api/v1/products/${productId}`, headers });

      test('an allowed origin passes', async () => {
        assert.equal((await show({ origin: 'https://shop.example.com' })).statusCode, 200);
        assert.equal((await show({ origin: 'https://SHOP.example.com:8443' })).statusCode, 200);
      });

      test('a wildcard entry matches subdomains at any depth but not the apex', async () => {
        assert.equal((await show({ origin: 'https://pay.brand.example' })).statusCode, 200);
        assert.equal((await show({ origin: 'https://a.b.brand.example' })).statusCode, 200);
        assert.equal((await show({ origin: 'https://brand.example' })).statusCode, 403);
        assert.equal((await show({ origin: 'https://evilbrand.example' })).statusCode, 403);
      });

      test('an entry with a port matches only that port', async () => {
        assert.equal((await show({ origin: 'http://localhost:5173' })).statusCode, 200);
        assert.equal((await show({ origin: 'http://localhost:3001' })).statusCode, 403);
      });

      test('Referer is used when Origin is absent', async () => {
        assert.equal((await show({ referer: 'https://shop.example.com/checkout?x=1' })).statusCode, 200);
        assert.equal((await show({ referer: 'https://elsewhere.example.com/' })).statusCode, 403);
      });

      test('a disallowed or missing origin gets 403 in the error format', async () => {
        for (const headers of [{ origin: 'https://shop.example.com.evil.io' }, { origin: 'null' }, {}] as Record<
          string,
          string
        >[]) {
          const res = await show(headers);
          assert.equal(res.statusCode, 403, JSON.stringify(headers));
          assert.equal(res.json().code, 'forbidden');
        }
      });

      test("the owner's key passes without an origin; another account's key or an invalid key gets 403", async () => {
        assert.equal((await show(bearer(shop.apiKey))).statusCode, 200);
        assert.equal((await show({ ...bearer(other.apiKey), origin: 'https://other.example.org' })).statusCode, 403);
        assert.equal((await show({ ...bearer('ck_bogus'), origin: 'https://shop.example.com' })).statusCode, 403);
      });

      test("the service's own hosted pages (PUBLIC_URL origin or a company subdomain of it) pass for any account", async () => {
        assert.equal((await show({ origin: 'http://pay.test' })).statusCode, 200);
        assert.equal((await show({ origin: `http://${shop.slug}.pay.test` })).statusCode, 200);
        assert.equal((await show({ origin: 'https://pay.test' })).statusCode, 403, 'another port is another origin');
        assert.equal((await show({ origin: 'http://pay.test.evil.example' })).statusCode, 403);
        assert.equal((await show({ origin: 'http://evilpay.test' })).statusCode, 403);
        assert.equal(
          (await show({ origin: 'http://pay.test', ...bearer(other.apiKey) })).statusCode,
          403,
          'a foreign key is still refused',
        );
      });

      test("another account's allowed origin does not open this account's resource", async () => {
        assert.equal((await show({ origin: 'https://other.example.org' })).statusCode, 403);
      });
    });
  });
}
