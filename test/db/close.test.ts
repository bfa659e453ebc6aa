import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openDatabase } from '../../src/db/database.ts';
import { createMigratedPostgresDatabase, engines } from '../support/engines.ts';

const postgres = engines().some((engine) => engine.name === 'postgres') ? process.env.DATABASE_URL : undefined;

// A command that fails after migrating has used the database through raw sessions only; closing it must still
// end every connection, or the process waits out the pool's idle timeout before it exits.
test(
  'a PostgreSQL database used through raw sessions alone ends its connections when closed',
  { skip: postgres ? false : 'needs DATABASE_URL (PostgreSQL)' },
  async () => {
    const fresh = await createMigratedPostgresDatabase(postgres!);
    try {
      const database = await openDatabase({ engine: 'postgres', url: fresh.url });
      const [row] = await database.withSession((session) => session.query<{ one: number }>('SELECT 1 AS one'));
      assert.equal(row!.one, 1);
      assert.equal(database.poolStats().total, 1, 'the session left an idle connection');
      await database.close();
      assert.equal(database.poolStats().total, 0);
    } finally {
      await fresh.drop();
    }
  },
);
