import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { PAGE_CACHE_TTL_MS } from '../../src/modules/payment-plans/payment-plans.reads.ts';
import { quoteOption } from '../../src/modules/payment-plans/payment-plans.service.ts';
import { TtlCache } from '../../src/modules/payment-plans/ttl-cache.ts';
import { engines } from '../support/engines.ts';
import {
  createPricingMerchant,
  insertCoupon,
  startPricingApp,
  type PricingMerchant,
} from '../support/pricing-fixtures.ts';

describe('TtlCache', () => {
  test('an entry is served until its time is up, then loaded again', async () => {
    let now = 0;
    let loads = 0;
    const cache = new TtlCache<string, number>(1_000, 10, () => now);
    const load = async () => ++loads;
    assert.equal(await cache.get('a', load), 1);
    now = 999;
    assert.equal(await cache.get('a', load), 1);
    now = 1_000;
    assert.equal(await cache.get('a', load), 2);
  });

  test('concurrent misses share one load; empty or failed loads are not kept', async () => {
    let loads = 0;
    const cache = new TtlCache<string, number>(1_000, 10, () => 0);
    const [a, b] = await Promise.all([cache.get('k', async () => ++loads), cache.get('k', async () => ++loads)]);
    assert.deepEqual([a, b, loads], [1, 1, 1]);
    assert.equal(await cache.get('none', async () => undefined), undefined);
    await assert.rejects(cache.get('boom', async () => Promise.reject(new Error('db down'))));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(cache.size, 1);
    assert.equal(await cache.get('none', async () => 7), 7);
  });

  test('at most maxEntries are kept, the oldest leaves first', async () => {
    const cache = new TtlCache<number, number>(1_000, 2, () => 0);
    for (const key of [1, 2, 3]) await cache.get(key, async () => key);
    assert.equal(cache.size, 2);
    assert.equal(await cache.get(1, async () => 10), 10);
    assert.equal(await cache.get(3, async () => 30), 3);
  });
});

const NOW = new Date('2026-03-15T15:00:00Z');

for (const engine of engines()) {
  describe(`the payment plans display cache on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let alpha: PricingMerchant;
    let setNow: (now: Date) => void;

    before(async () => {
      database = await engine.open();
      ({ app, setNow } = await startPricingApp(database, NOW));
      alpha = await createPricingMerchant(database, ['alpha.example']);
    });
    after(async () => {
      await app.close();
      await database.close();
    });

    test('a price edit reaches the endpoint within the TTL, and quoteOption at once', async () => {
      const url = `/api/v1/payment_plans?checkout_page_id=${alpha.page}&products[${alpha.products.course}]=1`;
      const pix = async () =>
        (await app.inject({ url, headers: { origin: 'https://alpha.example' } })).json().pix[0].value;
      assert.equal(await pix(), 100);
      await database.db
        .updateTable('products')
        .set({ value_cents: 12_000 })
        .where('id', '=', alpha.products.course)
        .returning('id')
        .execute();
      const quote = await quoteOption(
        database.db,
        { checkout_page_id: alpha.page, products: { [alpha.products.course]: 1 } },
        `${alpha.plans.pix}-1`,
        NOW,
      );
      assert.equal(quote.totalCents, 12_000);
      await sleep(PAGE_CACHE_TTL_MS + 50);
      assert.equal(await pix(), 120);
    });

    const money = (value: number) => Math.round(value * 100) / 100;
    const plans = (query: string) =>
      app.inject({
        url: `/api/v1/payment_plans?checkout_page_id=${alpha.page}&${query}`,
        headers: { origin: 'https://alpha.example' },
      });

    test('remembered answers are kept apart by quantities, coupon and amount', async () => {
      const price = (await plans(`products[${alpha.products.course}]=1`)).json().pix[0].value as number;
      const cases: Array<[string, number]> = [
        [`products[${alpha.products.course}]=2`, money(2 * price)],
        [`products[${alpha.products.course}]=2&coupon=TEN`, money(1.8 * price)],
        [`products[${alpha.products.course}]=2&coupon=MINUS20`, money(2 * price - 20)],
        [`products[${alpha.products.course}]=2&amount=55.5`, 55.5],
        [`products[${alpha.products.course}]=1`, price],
      ];
      for (const [query, pix] of cases) {
        const res = await plans(query);
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.json().pix[0].value, pix, query);
      }
    });

    test('a remembered answer with a coupon is refused as soon as the coupon expires, not a TTL later', async () => {
      await insertCoupon(database.db, alpha.tenant, {
        code: 'SOON',
        percentage: 10,
        expiresAt: new Date(NOW.getTime() + 60_000),
      });
      const query = `products[${alpha.products.course}]=1&coupon=SOON`;
      const price = (await plans(`products[${alpha.products.course}]=1`)).json().pix[0].value as number;
      try {
        for (let i = 0; i < 2; i++) assert.equal((await plans(query)).json().pix[0].value, money(0.9 * price));
        setNow(new Date(NOW.getTime() + 61_000));
        const expired = await plans(query);
        assert.equal(expired.statusCode, 422);
        assert.deepEqual(expired.json(), { errors: ['Coupon has expired'] });
      } finally {
        setNow(NOW);
      }
    });

    test('a coupon exhausted meanwhile is refused within the TTL, remembered answer or not', async () => {
      const couponId = await insertCoupon(database.db, alpha.tenant, { code: 'ONCE', percentage: 5, usageLimit: 1 });
      const query = `products[${alpha.products.course}]=1&coupon=ONCE`;
      const price = (await plans(`products[${alpha.products.course}]=1`)).json().pix[0].value as number;
      for (let i = 0; i < 2; i++) assert.equal((await plans(query)).json().pix[0].value, money(0.95 * price));
      await database.db
        .updateTable('coupons')
        .set({ used_count: 1 })
        .where('id', '=', couponId)
        .returning('id')
        .execute();
      await sleep(PAGE_CACHE_TTL_MS + 50);
      const exhausted = await plans(query);
      assert.equal(exhausted.statusCode, 422);
      assert.deepEqual(exhausted.json(), { errors: ['Coupon has reached its usage limit'] });
    });
  });
}
