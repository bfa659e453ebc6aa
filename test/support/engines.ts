import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import {
  openDatabase,
  openReusablePGlite,
  type Database,
  type Engine,
  type RawSession,
  type ReusablePGlite,
} from '../../src/db/database.ts';
import { loadMigrations, migrate } from '../../src/db/migrate.ts';
import { registerOrderTransitionHooks } from '../../src/order-hooks.ts';
import { migratedState, resetToMigrated, type MigratedState } from './database-reset.ts';
import { IdlePool } from './idle-pool.ts';

export type EngineCase = {
  name: Engine;
  /**
   * A migrated database of its own (the fast path every suite takes): one this process used before and put back
   * into its migrated state when it was closed, else a copy of one migrated once per schema.
   */
  open(): Promise<Database>;
  /** A database of its own migrated from empty here, for the tests of migrating itself. */
  openMigratedFromEmpty(): Promise<Database>;
};

/**
 * The engines every database test runs on: PGlite always, PostgreSQL when DATABASE_URL is set.
 * Under CI=true a missing DATABASE_URL is an error, so PostgreSQL coverage never disappears silently.
 */
export function engines(): EngineCase[] {
  // Every process registers them at start-up; a test that moves orders without building the app needs them too.
  registerOrderTransitionHooks();
  const url = process.env.DATABASE_URL;
  if (!url && process.env.CI === 'true')
    throw new Error('CI=true but DATABASE_URL is not set: the PostgreSQL run cannot be skipped');
  const cases: EngineCase[] = [
    {
      name: 'pglite',
      open: openMigratedPGlite,
      openMigratedFromEmpty: () => migrated(openDatabase({ engine: 'pglite' })),
    },
  ];
  if (url)
    cases.push({
      name: 'postgres',
      open: () => openFreshPostgres(url),
      openMigratedFromEmpty: () => openFreshPostgres(url, { fromEmpty: true }),
    });
  return cases;
}

/**
 * Names the migrated schema: the migrations' text and the PGlite build. Every test process that finds a
 * snapshot or template of this name reuses it instead of migrating again; a changed migration makes a new one.
 */
const SCHEMA_KEY = createHash('sha256')
  .update(readFileSync(join(import.meta.dirname, '../../node_modules/@electric-sql/pglite/package.json')))
  .update(JSON.stringify(loadMigrations()))
  .digest('hex')
  .slice(0, 16);

let pgliteSnapshot: Promise<Blob> | undefined;

type ReusedPGlite = { pglite: ReusablePGlite; state: MigratedState };
// Not awaited: after a reset that timed out, the session may never be free to close.
const idlePGlites = new IdlePool<ReusedPGlite>(async (reused) => void reused.pglite.close().catch(() => {}));

/**
 * A migrated PGlite: one a test file of this process closed before (reset to migrated), else a new one opened from
 * the data-directory snapshot. Opening PGlite costs 1.1-1.5 s of CPU; a reset, a few tens of milliseconds.
 */
async function openMigratedPGlite(): Promise<Database> {
  const reused = idlePGlites.take() ?? (await newMigratedPGlite());
  const database = reused.pglite.database();
  return reusableOnClose(database, () =>
    idlePGlites.putBack(reused, () => resetWithin((fn) => reused.pglite.withSession(fn), reused.state)),
  );
}

async function newMigratedPGlite(): Promise<ReusedPGlite> {
  const pglite = await openReusablePGlite({ loadDataDir: await (pgliteSnapshot ??= migratedPGliteSnapshot()) });
  return { pglite, state: await pglite.withSession(migratedState) };
}

/** The database, whose close() also hands what it ran on to `putBack` (once, however often it is called). */
function reusableOnClose(database: Database, putBack: () => Promise<void>): Database {
  const closeView = database.close.bind(database);
  let closing: Promise<void> | undefined;
  return Object.assign(database, {
    close: () =>
      (closing ??= (async () => {
        await closeView();
        await putBack();
      })()),
  });
}

const RESET_TIMEOUT_MS = 10_000;

/**
 * Resets through `withSession` unless that takes too long (a transaction a test left open holds the session):
 * true when the database is back in its migrated state and may be used again.
 */
async function resetWithin(
  withSession: (fn: (session: RawSession) => Promise<boolean>) => Promise<boolean>,
  state: MigratedState,
): Promise<boolean> {
  const timeout = sleep(RESET_TIMEOUT_MS, false, { ref: false });
  const reset = withSession((session) => resetToMigrated(session, state)).catch(() => false);
  return Promise.race([reset, timeout]);
}

async function migrated(opening: Promise<Database>): Promise<Database> {
  const database = await opening;
  await migrate(database);
  return database;
}

async function migratedPGliteSnapshot(): Promise<Blob> {
  const file = join(tmpdir(), `checkout-test-pglite-${SCHEMA_KEY}.tar`);
  try {
    return new Blob([readFileSync(file)]);
  } catch {
    const database = await openDatabase({ engine: 'pglite' });
    try {
      await migrate(database);
      const tarball = await database.dumpDataDir!();
      // Written aside and renamed: a process reading the snapshot never sees half of it.
      const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
      writeFileSync(partial, new Uint8Array(await tarball.arrayBuffer()));
      renameSync(partial, file);
      return tarball;
    } finally {
      await database.close();
    }
  }
}

/** An empty PostgreSQL database of its own, and how to drop it. */
export async function createFreshPostgresDatabase(baseUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  return createPostgresDatabase(baseUrl, '');
}

/** A migrated PostgreSQL database of its own, copied from the run's template, and how to drop it. */
export async function createMigratedPostgresDatabase(baseUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  return createPostgresDatabase(baseUrl, ` TEMPLATE ${await migratedTemplate(baseUrl)}`);
}

async function createPostgresDatabase(
  baseUrl: string,
  clause: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `checkout_test_${randomBytes(6).toString('hex')}`;
  // A copy fails while another session is on the template: the builder's pool closing, or autovacuum.
  for (let attempt = 1; ; attempt++) {
    try {
      await adminQuery(baseUrl, `CREATE DATABASE ${name}${clause}`);
      break;
    } catch (error) {
      if ((error as { code?: string }).code !== OBJECT_IN_USE || attempt === 50) throw error;
      await sleep(100 * Math.min(attempt, 10));
    }
  }
  return {
    url: databaseUrl(baseUrl, name),
    drop: () => adminQuery(baseUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/** A new migrated database per test file, dropped when the file closes it. */
async function openFreshPostgres(baseUrl: string, options: { fromEmpty?: boolean } = {}): Promise<Database> {
  if (!options.fromEmpty) return openMigratedPostgres(baseUrl);
  const fresh = await createFreshPostgresDatabase(baseUrl);
  const database = await openDatabase({ engine: 'postgres', url: fresh.url, poolSize: 20 });
  await migrate(database);
  return reusableOnClose(database, () => fresh.drop());
}

type ReusedPostgres = { url: string; drop(): Promise<void>; state: MigratedState };
const idlePostgres = new IdlePool<ReusedPostgres>((reused) => reused.drop());

/**
 * A migrated PostgreSQL database: one a test file of this process closed before (reset to migrated), else a new
 * copy of the template. Copying and dropping a database cost the server about two seconds per file (dropping
 * one forces a checkpoint).
 */
async function openMigratedPostgres(baseUrl: string): Promise<Database> {
  let reused = idlePostgres.take();
  if (!reused) {
    const fresh = await createMigratedPostgresDatabase(baseUrl);
    reused = { ...fresh, state: await withAdminSession(fresh.url, migratedState) };
  }
  const kept = reused;
  const database = await openDatabase({ engine: 'postgres', url: kept.url, poolSize: 20 });
  return reusableOnClose(database, () => {
    const reset = (fn: (session: RawSession) => Promise<boolean>) =>
      withAdminSession(kept.url, async (session) => {
        // What the test started and left connected (a child process's pool) must not write after the reset.
        await session.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
        );
        return fn(session);
      });
    return idlePostgres.putBack(kept, () => resetWithin(reset, kept.state));
  });
}

async function withAdminSession<T>(url: string, fn: (session: RawSession) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn({
      exec: async (sql) => void (await client.query(sql)),
      query: async <R>(sql: string, params: unknown[] = []) => (await client.query(sql, params)).rows as R[],
    });
  } finally {
    await client.end();
  }
}

const OBJECT_IN_USE = '55006';
// Arbitrary constant: test processes starting at once build the template one at a time.
const TEMPLATE_LOCK_ID = 74_209_114;
const templates = new Map<string, Promise<string>>();

function migratedTemplate(baseUrl: string): Promise<string> {
  let template = templates.get(baseUrl);
  if (!template) templates.set(baseUrl, (template = buildTemplate(baseUrl)));
  return template;
}

/**
 * The migrated template database of this schema, built once on the server. It is flagged a template and closed
 * to connections only when complete: a copy fails while anyone is connected to its source, and a template left
 * half-built by a crashed process is not flagged, so the next process builds it again.
 */
async function buildTemplate(baseUrl: string): Promise<string> {
  const name = `checkout_template_${SCHEMA_KEY}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK_ID]);
    const { rows } = await admin.query<{ ready: boolean }>(
      'SELECT datistemplate AND NOT datallowconn AS ready FROM pg_database WHERE datname = $1',
      [name],
    );
    if (rows[0]?.ready) return name;
    if (rows[0]) await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
    const database = await openDatabase({ engine: 'postgres', url: databaseUrl(baseUrl, name), poolSize: 1 });
    try {
      await migrate(database);
    } finally {
      await database.close();
    }
    await admin.query(`ALTER DATABASE ${name} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
    return name;
  } finally {
    await admin.end();
  }
}

function databaseUrl(baseUrl: string, name: string): string {
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

function adminQuery(baseUrl: string, sql: string): Promise<void> {
  return withAdminSession(baseUrl, (session) => session.exec(sql));
}
