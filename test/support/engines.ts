import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database, type Engine } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';

export type EngineCase = { name: Engine; open(): Promise<Database> };

/**
 * The engines every database test runs on: PGlite always, PostgreSQL when DATABASE_URL is set.
 * Under CI=true a missing DATABASE_URL is an error, so PostgreSQL coverage never disappears silently.
 */
export function engines(): EngineCase[] {
  const url = process.env.DATABASE_URL;
  if (!url && process.env.CI === 'true')
    throw new Error('CI=true but DATABASE_URL is not set: the PostgreSQL run cannot be skipped');
  const cases: EngineCase[] = [{ name: 'pglite', open: openMigratedPGlite }];
  if (url) cases.push({ name: 'postgres', open: () => openFreshPostgres(url) });
  return cases;
}

async function openMigratedPGlite(): Promise<Database> {
  const database = await openDatabase({ engine: 'pglite' });
  await migrate(database);
  return database;
}

/** An empty PostgreSQL database of its own, and how to drop it. */
export async function createFreshPostgresDatabase(baseUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `checkout_test_${randomBytes(6).toString('hex')}`;
  await adminQuery(baseUrl, `CREATE DATABASE ${name}`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => adminQuery(baseUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** A new database per test file, dropped when the file closes it. */
export async function openFreshPostgres(baseUrl: string): Promise<Database> {
  const fresh = await createFreshPostgresDatabase(baseUrl);
  const database = await openDatabase({ engine: 'postgres', url: fresh.url, poolSize: 20 });
  await migrate(database);
  const close = database.close.bind(database);
  return Object.assign(database, {
    async close() {
      await close();
      await fresh.drop();
    },
  });
}

async function adminQuery(baseUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
