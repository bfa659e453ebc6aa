import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Database } from '../../src/db/database.ts';
import { engines } from '../support/engines.ts';

for (const engine of engines()) {
  describe(`affected row counts on ${engine.name}`, () => {
    let database: Database;
    before(async () => {
      database = await engine.open();
      await sql`CREATE TABLE row_count_probe (id int PRIMARY KEY, n int NOT NULL)`.execute(database.db);
    });
    after(() => database.close());

    test('inserts, updates and deletes report how many rows they touched; a select reports none', async () => {
      const probe = database.db.withTables<{ row_count_probe: { id: number; n: number } }>();
      const inserted = await probe
        .insertInto('row_count_probe')
        .values([1, 2, 3].map((id) => ({ id, n: 0 })))
        .executeTakeFirst();
      assert.equal(inserted.numInsertedOrUpdatedRows, 3n);
      const updated = await probe.updateTable('row_count_probe').set({ n: 1 }).where('id', '<', 3).executeTakeFirst();
      assert.equal(updated.numUpdatedRows, 2n);
      const none = await probe.updateTable('row_count_probe').set({ n: 1 }).where('id', '>', 9).executeTakeFirst();
      assert.equal(none.numUpdatedRows, 0n);
      const deleted = await probe.deleteFrom('row_count_probe').where('n', '=', 1).executeTakeFirst();
      assert.equal(deleted.numDeletedRows, 2n);
      assert.deepEqual(await probe.selectFrom('row_count_probe').select('id').execute(), [{ id: 3 }]);
    });

    test('two transactions on one engine never interleave their statements', async () => {
      const probe = database.db.withTables<{ row_count_probe: { id: number; n: number } }>();
      await Promise.all(
        [10, 20].map((id) =>
          probe.transaction().execute(async (trx) => {
            await trx.insertInto('row_count_probe').values({ id, n: id }).execute();
            await trx
              .updateTable('row_count_probe')
              .set({ n: sql`n + 1` })
              .where('id', '=', id)
              .execute();
          }),
        ),
      );
      const rows = await probe
        .selectFrom('row_count_probe')
        .select(['id', 'n'])
        .where('id', '>=', 10)
        .orderBy('id')
        .execute();
      assert.deepEqual(rows, [
        { id: 10, n: 11 },
        { id: 20, n: 21 },
      ]);
    });
  });
}
