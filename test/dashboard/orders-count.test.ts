import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Database } from '../../src/db/database.ts';
import { ORDER_COUNT_CAP } from '../../src/modules/dashboard/orders-page.repo.ts';
import { bearer, createTenant, startTestApp, type Tenant } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import { as, userSignedIn, type SignedInUser } from './support.ts';

const BASE = '/api/v1/dashboard';
const ORDERS = ORDER_COUNT_CAP + 5;
const PAID = 3;

type Listed = {
  meta: { current_page: number; per_page: number; has_more: boolean; total_count: number; total_count_exact: boolean };
  data: Array<{ id: number }>;
};

/**
 * The dashboard's list counts up to a cap and says whether more follow; `GET /api/v1/orders` keeps the exact total
 * the specification states.
 */
for (const engine of engines()) {
  describe(`the dashboard's orders count on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let app: FastifyInstance;
    let shop: Tenant;
    let owner: SignedInUser;
    const list = async (query: string) => {
      const res = await app.inject({ method: 'GET', url: `${BASE}/orders?${query}`, headers: as(owner) });
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as Listed;
    };

    test('setup: more orders than the cap, a few of them paid, and another account’s', async () => {
      database = await engine.open();
      ({ app } = await startTestApp(database));
      shop = await createTenant(database);
      const other = await createTenant(database);
      owner = await userSignedIn(app, database, shop, 'owner');
      for (const [tenant, count] of [
        [shop, ORDERS],
        [other, 50],
      ] as const) {
        await sql`
          INSERT INTO orders (uid, account_id, company_id, source, subtotal_cents, total_cents, status, created_at)
          SELECT gen_random_uuid(), ${tenant.accountId}, ${tenant.companyId}, 'api', 1000, 1000,
                 CASE WHEN n <= ${PAID} THEN 'paid' ELSE 'pending' END, now() - n * interval '1 minute'
          FROM generate_series(1, ${count}::int) AS n`.execute(database.db);
      }
    });

    test('past the cap: the count stops at it, is marked inexact, and has_more leads to the last page', async () => {
      const first = await list('limit=100');
      assert.deepEqual(first.meta, {
        current_page: 1,
        per_page: 100,
        has_more: true,
        total_count: ORDER_COUNT_CAP,
        total_count_exact: false,
      });
      assert.equal(first.data.length, 100);
      const last = await list(`limit=100&page=${Math.ceil(ORDERS / 100)}`);
      assert.equal(last.meta.has_more, false);
      assert.equal(last.data.length, ORDERS % 100);
      const exactlyFull = await list(`limit=5&page=${ORDERS / 5}`);
      assert.equal(exactlyFull.data.length, 5);
      assert.equal(exactlyFull.meta.has_more, false);
    });

    test('under the cap: the exact count, no further page', async () => {
      const paid = await list('status[]=paid');
      assert.deepEqual(paid.meta, {
        current_page: 1,
        per_page: 25,
        has_more: false,
        total_count: PAID,
        total_count_exact: true,
      });
      assert.equal(paid.data.length, PAID);
    });

    test('GET /api/v1/orders keeps its exact total_count and total_pages', async () => {
      const res = await app.inject({ method: 'GET', url: '/api/v1/orders?limit=100', headers: bearer(shop.apiKey) });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json().meta, {
        current_page: 1,
        total_pages: Math.ceil(ORDERS / 100),
        total_count: ORDERS,
        per_page: 100,
      });
      await app.close();
      await database.close();
    });
  });
}
