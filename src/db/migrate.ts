import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database } from './database.ts';

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');
// Arbitrary constant: several processes starting at once apply migrations one after another.
const MIGRATION_LOCK_ID = 74_209_113;

export type Migration = { version: string; sql: string };

export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((name) => /^\d{4}_[a-z0-9_]+\.sql$/.test(name))
    .sort()
    .map((name) => ({ version: name.replace(/\.sql$/, ''), sql: readFileSync(join(dir, name), 'utf8') }));
}

/** Applies every pending migration, each in its own transaction; returns the versions applied. */
export async function migrate(database: Database, migrations = loadMigrations()): Promise<string[]> {
  return database.withSession(async (session) => {
    await session.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    await session.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    try {
      const rows = await session.query<{ version: string }>('SELECT version FROM schema_migrations');
      const applied = new Set(rows.map((row) => row.version));
      const done: string[] = [];
      for (const migration of migrations) {
        if (applied.has(migration.version)) continue;
        await session.exec('BEGIN');
        try {
          await session.exec(migration.sql);
          await session.query('INSERT INTO schema_migrations (version) VALUES ($1)', [migration.version]);
          await session.exec('COMMIT');
        } catch (error) {
          await session.exec('ROLLBACK');
          throw new Error(`migration ${migration.version} failed: ${(error as Error).message}`, { cause: error });
        }
        done.push(migration.version);
      }
      return done;
    } finally {
      await session.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]);
    }
  });
}
