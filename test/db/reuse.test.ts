import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Database } from '../../src/db/database.ts';
import { migratedState, resetToMigrated } from '../support/database-reset.ts';
import { publicTables, snapshot } from '../support/db-snapshot.ts';
import { engines } from '../support/engines.ts';
import { reuseTestDatabases } from '../support/idle-pool.ts';

// Under `npm test`, a test file's database is put back into its migrated state when the file closes it, and the next
// file of the same process may get it: nothing a file wrote, left open or changed may reach the next one.
for (const engine of engines()) {
  const skip = reuseTestDatabases ? false : 'databases are reused only under npm test (REUSE_TEST_DATABASES=1)';
  describe(`a reused test database on ${engine.name}`, { skip }, () => {
    async function migratedLook(database: Database) {
      const tables = await snapshot(database, await publicTables(database));
      const sequences = await sql<{ name: string; last: string | null }>`
        SELECT sequencename AS name, last_value::text AS last FROM pg_sequences WHERE schemaname = 'public'
        ORDER BY 1`.execute(database.db);
      return { tables, sequences: sequences.rows };
    }

    /** Tells whether two opens ran on the same database: its name on PostgreSQL, the transaction counter on PGlite. */
    async function identity(database: Database): Promise<{ name: string; xid: number }> {
      const { rows } = await sql<{ name: string; xid: string }>`
        SELECT current_database() AS name, txid_current()::text AS xid`.execute(database.db);
      return { name: rows[0]!.name, xid: Number(rows[0]!.xid) };
    }

    test('comes back as migrated: rows, sequences and an unfinished transaction are gone', async () => {
      const first = await engine.open();
      const migrated = await migratedLook(first);
      assert.ok(migrated.sequences.length > 0, 'the schema has sequences to check');
      await first.db
        .insertInto('accounts')
        .values({ id: randomUUID(), name: 'Used', slug: `used-${randomUUID()}` })
        .execute();
      for (const { name } of migrated.sequences) await sql`SELECT nextval(${name}::regclass)`.execute(first.db);
      await first.withSession((session) =>
        session.exec(`BEGIN; INSERT INTO accounts (id, name, slug) VALUES ('${randomUUID()}', 'Open', 'open')`),
      );
      const used = await identity(first);
      await first.close();

      const second = await engine.open();
      try {
        const reopened = await identity(second);
        if (engine.name === 'postgres') assert.equal(reopened.name, used.name, 'the same database, reset');
        else assert.ok(reopened.xid > used.xid, 'the same PGlite, reset (a copy of the snapshot starts lower)');
        assert.deepEqual(await migratedLook(second), migrated);
      } finally {
        await second.close();
      }
    });

    test('a role that may not turn triggers off gets the tables emptied by TRUNCATE, to the same state', async () => {
      const database = await engine.open();
      try {
        const migrated = await migratedLook(database);
        const state = await database.withSession(migratedState);
        await database.db
          .insertInto('accounts')
          .values({ id: randomUUID(), name: 'Used', slug: `used-${randomUUID()}` })
          .execute();
        for (const { name } of migrated.sequences) await sql`SELECT nextval(${name}::regclass)`.execute(database.db);
        const reset = await database.withSession((session) => resetToMigrated(session, { ...state, superuser: false }));
        assert.equal(reset, true);
        assert.deepEqual(await migratedLook(database), migrated);
      } finally {
        await database.close();
      }
    });

    test('a closed database refuses further queries', async () => {
      const database = await engine.open();
      await database.close();
      await assert.rejects(database.db.selectFrom('accounts').select('id').execute());
    });

    test('a database whose schema a test changed is not handed out again', async () => {
      const changed = await engine.open();
      await sql`CREATE TABLE reuse_probe (id int PRIMARY KEY)`.execute(changed.db);
      await sql`CREATE INDEX accounts_reuse_probe ON accounts (name)`.execute(changed.db);
      await changed.close();

      const next = await engine.open();
      try {
        const { rows } = await sql<{ n: number }>`
          SELECT count(*)::int AS n FROM pg_class WHERE relname IN ('reuse_probe', 'accounts_reuse_probe')`.execute(
          next.db,
        );
        assert.equal(rows[0]!.n, 0);
      } finally {
        await next.close();
      }
    });
  });
}
