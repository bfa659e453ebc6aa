import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { KyselyPlugin } from 'kysely';
import { buildApp } from '../../src/app.ts';
import type { Database } from '../../src/db/database.ts';
import { clientKey } from '../../src/http/rate-limit.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { TokenBuckets } from '../../src/lib/token-buckets.ts';
import { bearer, createTenant, testConfig, type Tenant } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import { createPricingMerchant, type PricingMerchant } from '../support/pricing-fixtures.ts';

describe('token buckets', () => {
  test('a bucket passes its burst, then refuses with the seconds until the next token; it refills with time', () => {
    const buckets = new TokenBuckets({ perMinute: 60, burst: 3 });
    const results = [0, 0, 0, 0].map(() => buckets.take('a', 1_000));
    assert.deepEqual(
      results.map((r) => r.allowed),
      [true, true, true, false],
    );
    assert.deepEqual(results[3], { allowed: false, retryAfterSeconds: 1 });
    assert.equal(buckets.take('b', 1_000).allowed, true, 'another client has its own bucket');
    assert.equal(buckets.take('a', 1_999).allowed, false);
    assert.equal(buckets.take('a', 2_000).allowed, true);
    assert.equal(buckets.take('a', 2_000).allowed, false);
    assert.equal(buckets.take('a', 500).allowed, false, 'a clock stepping back refills nothing');
  });

  test('Retry-After rounds the wait up to whole seconds', () => {
    const buckets = new TokenBuckets({ perMinute: 6, burst: 1 });
    assert.equal(buckets.take('a', 0).allowed, true);
    assert.deepEqual(buckets.take('a', 0), { allowed: false, retryAfterSeconds: 10 });
    assert.deepEqual(buckets.take('a', 9_001), { allowed: false, retryAfterSeconds: 1 });
  });

  test('memory stays bounded under a flood of distinct clients, and refilled buckets are dropped', () => {
    const buckets = new TokenBuckets({ perMinute: 60, burst: 5, maxBuckets: 1_000 });
    for (let i = 0; i < 10_000; i++) buckets.take(`client-${i}`, 0);
    assert.ok(buckets.size <= 1_000, `${buckets.size} buckets`);
    buckets.take('late', 120_000);
    assert.equal(buckets.size, 1);
  });

  test('clients are counted by IPv4 address and by IPv6 /64', () => {
    assert.equal(clientKey('203.0.113.9'), '203.0.113.9');
    assert.equal(clientKey('::ffff:203.0.113.9'), '203.0.113.9');
    assert.equal(clientKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
    assert.equal(clientKey('2001:0db8:0001:0002:ffff:0:0:9'), '2001:db8:1:2::/64');
    assert.equal(clientKey('2001:db8::1'), '2001:db8:0:0::/64');
    assert.notEqual(clientKey('2001:db8:1:3::1'), clientKey('2001:db8:1:2::1'));
  });
});

/** Counts the queries the app runs, to show that a refused request never reaches the database. */
function countingQueries(database: Database): { database: Database; count(): number } {
  let queries = 0;
  const plugin: KyselyPlugin = {
    transformQuery: (args) => {
      queries += 1;
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  return { database: { ...database, db: database.db.withPlugin(plugin) } as Database, count: () => queries };
}

const NOW = new Date('2026-03-15T15:00:00Z');
const ORIGIN = { origin: 'https://limits.example' };

for (const engine of engines()) {
  describe(`rate limits on ${engine.name}`, () => {
    let database: Database;
    let merchant: PricingMerchant;
    let other: Tenant;
    const apps: FastifyInstance[] = [];
    let now = NOW;

    /** An app whose clock stands still unless the test moves it; env replaces the test suite's raised limits. */
    async function startApp(env: NodeJS.ProcessEnv, db: Database = database): Promise<FastifyInstance> {
      const app = await buildApp({
        config: testConfig(env),
        database: db,
        logger: createLogger('silent'),
        clock: () => now,
      });
      await app.ready();
      apps.push(app);
      return app;
    }

    before(async () => {
      database = await engine.open();
      merchant = await createPricingMerchant(database, ['limits.example']);
      other = await createTenant(database);
    });
    after(async () => {
      for (const app of apps) await app.close();
      await database.close();
    });

    test('the default public limit: 100 requests pass at once from one IP, the 101st gets 429 with Retry-After; time refills it', async () => {
      const defaults = {
        RATE_LIMIT_PUBLIC_PER_MINUTE: undefined,
        RATE_LIMIT_KEY_PER_MINUTE: undefined,
        RATE_LIMIT_IP_PER_MINUTE: undefined,
      };
      const app = await startApp(defaults);
      now = NOW;
      const url = `/api/v1/payment_plans?checkout_page_id=${merchant.page}&products[${merchant.products.course}]=1`;
      for (let i = 0; i < 100; i++)
        assert.equal((await app.inject({ url, headers: ORIGIN })).statusCode, 200, `request ${i + 1}`);
      const refused = await app.inject({ url, headers: ORIGIN });
      assert.equal(refused.statusCode, 429);
      assert.equal(refused.headers['retry-after'], '1');
      assert.deepEqual(
        refused.json(),
        { errors: ['Too many requests; retry after 1 seconds'] },
        'payment plans keep their fixed error format',
      );
      const coupon = await app.inject({
        url: `/api/v1/coupons/TEN/validate?product_id=${merchant.products.course}`,
        headers: ORIGIN,
      });
      assert.equal(coupon.statusCode, 429);
      assert.deepEqual(Object.keys(coupon.json()), ['error']);
      const product = await app.inject({ url: `/api/v1/products/${merchant.products.course}`, headers: ORIGIN });
      assert.equal(product.statusCode, 429);
      assert.equal(product.json().code, 'rate_limited');
      assert.equal(product.json().request_id, product.headers['x-request-id']);

      now = new Date(NOW.getTime() + 1_000); // 600 a minute: ten tokens a second
      const statuses = [];
      for (let i = 0; i < 11; i++) statuses.push((await app.inject({ url, headers: ORIGIN })).statusCode);
      assert.deepEqual(statuses, [...Array(10).fill(200), 429]);
    });

    test('keyed endpoints: each key has its own bucket; the looser per-IP limit is checked before the key is looked up', async () => {
      const counted = countingQueries(database);
      const app = await startApp(
        { RATE_LIMIT_KEY_PER_MINUTE: '60', RATE_LIMIT_IP_PER_MINUTE: '120', RATE_LIMIT_PUBLIC_PER_MINUTE: '60' },
        counted.database,
      );
      now = NOW;
      const list = (key: string) => app.inject({ url: '/api/v1/products', headers: bearer(key) });
      for (let i = 0; i < 10; i++) assert.equal((await list(merchant.tenant.apiKey)).statusCode, 200);
      const refused = await list(merchant.tenant.apiKey);
      assert.equal(refused.statusCode, 429);
      assert.equal(refused.json().code, 'rate_limited');
      assert.equal(refused.headers['retry-after'], '1');
      for (let i = 0; i < 9; i++)
        assert.equal((await list(other.apiKey)).statusCode, 200, 'another key from the same IP still passes');
      // 20 requests from this IP so far: its bucket (120 a minute, 20 at once) is empty for every key.
      const before = counted.count();
      const byIp = await app.inject({
        url: '/api/v1/orders',
        headers: bearer('ck_0000000000000000_not-a-real-key-but-long-enough-to-look-like-one'),
      });
      assert.equal(byIp.statusCode, 429, 'refused before authentication, so an invalid key is not even checked');
      assert.equal(counted.count(), before, 'a refused request runs no query');
    });

    test('public endpoints: counted per client IP; X-Forwarded-For counts only with TRUST_PROXY', async () => {
      const url = `/api/v1/products/${merchant.products.course}`;
      for (const trustProxy of ['false', 'true']) {
        const app = await startApp({ RATE_LIMIT_PUBLIC_PER_MINUTE: '6', TRUST_PROXY: trustProxy });
        const from = (ip: string) => app.inject({ url, headers: { ...ORIGIN, 'x-forwarded-for': ip } });
        assert.equal((await from('198.51.100.1')).statusCode, 200);
        assert.equal((await from('198.51.100.1')).statusCode, 429);
        assert.equal(
          (await from('198.51.100.2')).statusCode,
          trustProxy === 'true' ? 200 : 429,
          `TRUST_PROXY=${trustProxy}`,
        );
      }
    });

    test('upsell and slots are limited like public endpoints; webhook receivers are never limited', async () => {
      const app = await startApp({ RATE_LIMIT_PUBLIC_PER_MINUTE: '60' });
      now = NOW;
      const hooks = [];
      for (let i = 0; i < 30; i++)
        hooks.push(
          (await app.inject({ method: 'POST', url: '/api/v1/webhooks', payload: { id: `e${i}`, type: 'charge.paid' } }))
            .statusCode,
        );
      assert.deepEqual(new Set(hooks), new Set([401]), 'gateway retries are answered by authentication, not dropped');
      const upsells = [];
      for (let i = 0; i < 11; i++)
        upsells.push(
          (await app.inject({ method: 'POST', url: '/api/v1/upsell', payload: { offer: 'not-an-offer' } })).statusCode,
        );
      assert.equal(upsells.filter((s) => s === 429).length, 1);
      assert.equal(upsells[10], 429);
      const slots = await app.inject({
        url: `/api/v1/companies/${merchant.tenant.companyId}/available_schedules?date=2026-03-16`,
      });
      assert.equal(slots.statusCode, 429, 'the same client IP bucket as upsell');
      assert.equal((await app.inject({ url: '/healthz' })).statusCode, 200);
    });
  });
}
