import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Database } from '../../src/db/database.ts';
import { createTenant, type Tenant } from '../support/app.ts';
import { engines } from '../support/engines.ts';

for (const engine of engines()) {
  describe(`order counts on ${engine.name}`, () => {
    let database: Database;
    let shop: Tenant;
    before(async () => {
      database = await engine.open();
      shop = await createTenant(database);
    });
    after(() => database.close());

    /** The trigger-kept counts against a real count, per status and São Paulo day. */
    async function assertCountsMatch(accountId: string, timeZone = 'America/Sao_Paulo') {
      const kept = await sql<{ status: string; day: string; n: number }>`
        SELECT status, day::text AS day, sum(n)::int AS n FROM order_counts WHERE account_id = ${accountId}
        GROUP BY 1, 2 HAVING sum(n) <> 0 ORDER BY 1, 2`.execute(database.db);
      const actual = await sql<{ status: string; day: string; n: number }>`
        SELECT status, (created_at AT TIME ZONE ${timeZone})::date::text AS day, count(*)::int AS n FROM orders
        WHERE account_id = ${accountId} GROUP BY 1, 2 ORDER BY 1, 2`.execute(database.db);
      assert.deepEqual(kept.rows, actual.rows);
    }

    const insertOrder = (createdAt: string, status = 'pending') =>
      database.db
        .insertInto('orders')
        .values({
          uid: randomUUID(),
          account_id: shop.accountId,
          company_id: shop.companyId,
          source: 'api',
          status,
          created_at: new Date(createdAt),
        })
        .returning('id')
        .executeTakeFirstOrThrow();

    test('inserts, status changes and deletes keep the counts exact, by day in the company time zone', async () => {
      // 02:30 UTC is still the previous day in São Paulo.
      const first = await insertOrder('2026-03-10T02:30:00Z');
      await insertOrder('2026-03-10T15:00:00Z', 'paid');
      const third = await insertOrder('2026-03-11T12:00:00Z');
      await assertCountsMatch(shop.accountId);
      await database.db.updateTable('orders').set({ status: 'paid' }).where('id', '=', first.id).execute();
      await database.db
        .updateTable('orders')
        .set({ observation: 'no status change' })
        .where('id', '=', third.id)
        .execute();
      await assertCountsMatch(shop.accountId);
      await database.db.deleteFrom('orders').where('id', '=', third.id).execute();
      await assertCountsMatch(shop.accountId);
    });

    test('a company whose time zone changes gets its counts rebuilt on the days of the new zone', async () => {
      const shifted = await createTenant(database);
      const insert = (createdAt: string, status: string) =>
        database.db
          .insertInto('orders')
          .values({
            uid: randomUUID(),
            account_id: shifted.accountId,
            company_id: shifted.companyId,
            source: 'api',
            status,
            created_at: new Date(createdAt),
          })
          .execute();
      // 01:30 UTC is the previous day in São Paulo and the same day in Tokyo.
      await insert('2026-03-10T01:30:00Z', 'pending');
      await insert('2026-03-10T20:00:00Z', 'paid');
      await assertCountsMatch(shifted.accountId);
      await database.db
        .updateTable('companies')
        .set({ time_zone: 'Asia/Tokyo' })
        .where('id', '=', shifted.companyId)
        .execute();
      await assertCountsMatch(shifted.accountId, 'Asia/Tokyo');
      await database.db.updateTable('companies').set({ name: 'renamed' }).where('id', '=', shifted.companyId).execute();
      await assertCountsMatch(shifted.accountId, 'Asia/Tokyo');
    });

    test('erasing a tenant removes its orders and counts', async () => {
      const gone = await createTenant(database);
      const order = await database.db
        .insertInto('orders')
        .values({ uid: randomUUID(), account_id: gone.accountId, company_id: gone.companyId, source: 'api' })
        .returning('id')
        .executeTakeFirstOrThrow();
      // The append-only event log must not stand in the way of erasing a whole tenant.
      await database.db
        .insertInto('order_events')
        .values({ account_id: gone.accountId, order_id: order.id, type: 'order.created', cause: 'test' })
        .execute();
      await database.db.deleteFrom('accounts').where('id', '=', gone.accountId).execute();
      const left = await database.db
        .selectFrom('order_counts')
        .select('n')
        .where('account_id', '=', gone.accountId)
        .execute();
      assert.deepEqual(left, []);
      await assertCountsMatch(shop.accountId);
    });
  });
}
