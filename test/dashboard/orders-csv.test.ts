import assert from 'node:assert/strict';
import { text } from 'node:stream/consumers';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { ordersCsv } from '../../src/modules/dashboard/orders-csv.ts';
import { createTenant, type Tenant } from '../support/app.ts';
import { engines } from '../support/engines.ts';

for (const engine of engines()) {
  describe(`CSV export pages on ${engine.name}`, () => {
    let database: Database;
    let shop: Tenant;
    let other: Tenant;
    const ids: number[] = [];

    /** Orders sharing created_at down to the microsecond, and some a microsecond apart: the cursor must tell them apart. */
    async function insertOrder(tenant: Tenant, createdAt: string): Promise<number> {
      const row = await database.db
        .insertInto('orders')
        .values({
          uid: crypto.randomUUID(),
          account_id: tenant.accountId,
          company_id: tenant.companyId,
          source: 'api',
          status: 'paid',
          subtotal_cents: 1000,
          total_cents: 1000,
          created_at: createdAt as unknown as Date,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    }

    before(async () => {
      database = await engine.open();
      shop = await createTenant(database);
      other = await createTenant(database);
      for (const at of ['2026-01-02 10:00:00.000001+00', '2026-01-02 10:00:00.000002+00']) {
        for (let i = 0; i < 4; i++) ids.push(await insertOrder(shop, at));
        await insertOrder(other, at);
      }
      ids.push(await insertOrder(shop, '2026-01-01 09:00:00+00'));
    });
    after(() => database.close());

    test('every order once, newest first, across pages that split equal timestamps', async () => {
      for (const pageSize of [1, 3, 4, 500]) {
        const csv = await text(ordersCsv(database.db, shop.accountId, {}, pageSize));
        const listed = csv
          .trim()
          .split('\r\n')
          .slice(1)
          .map((line) => Number(line.split(',')[0]));
        const expected = [...ids.slice(4, 8).sort((a, b) => b - a), ...ids.slice(0, 4).sort((a, b) => b - a), ids[8]];
        assert.deepEqual(listed, expected, `page size ${pageSize}`);
      }
    });

    test('the filter still applies on every page', async () => {
      const csv = await text(
        ordersCsv(database.db, shop.accountId, { period: { field: 'created_at', from: '2026-01-02' } }, 2),
      );
      assert.equal(csv.trim().split('\r\n').length, 1 + 8);
    });
  });
}
