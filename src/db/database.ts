import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { Mutex } from '../lib/mutex.ts';
import { serializedPGliteDialect } from './pglite-dialect.ts';
import type { DB } from './schema.ts';
import type { Config } from '../config.ts';

export type Engine = 'pglite' | 'postgres';

/** Runs raw SQL (several statements allowed) on one session; used by migrations and maintenance. */
export type RawSession = { exec(sql: string): Promise<void>; query<R>(sql: string, params?: unknown[]): Promise<R[]> };

export interface Database {
  readonly db: Kysely<DB>;
  readonly engine: Engine;
  /** Hands one session to `fn` exclusively (a pooled client, or the PGlite session under its lock). */
  withSession<T>(fn: (session: RawSession) => Promise<T>): Promise<T>;
  /** Pool figures for metrics; PGlite reports one connection. */
  poolStats(): { total: number; idle: number; waiting: number };
  close(): Promise<void>;
  /** PGlite only: the data directory as a tarball, which `loadDataDir` opens again as a copy. */
  dumpDataDir?(): Promise<Blob>;
}

export type DatabaseOptions =
  { engine: 'postgres'; url: string; poolSize?: number } | { engine: 'pglite'; dataDir?: string; loadDataDir?: Blob };

const INT8 = 20;
const NUMERIC = 1700;
const DATE = 1082;

/** Money columns are bigint cents; they stay far below 2^53, and a value that does not is a bug to surface. */
function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`int8 value out of safe range: ${text}`);
  return value;
}
// Dates stay 'YYYY-MM-DD' strings: a JS Date would shift them by the process time zone.
const parseDate = (text: string): string => text;

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.engine === 'postgres'
    ? openPostgres(options.url, options.poolSize ?? 10)
    : openPGlite(options.dataDir, options.loadDataDir);
}

function openPostgres(url: string, poolSize: number): Database {
  const typeParsers: Record<number, (text: string) => unknown> = {
    [INT8]: parseInt8,
    [NUMERIC]: Number,
    [DATE]: parseDate,
  };
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        typeParsers[oid] ?? pg.types.getTypeParser(oid, (format ?? 'text') as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client that loses its server must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    engine: 'postgres',
    async withSession(fn) {
      const client = await pool.connect();
      try {
        return await fn({
          exec: async (sql) => void (await client.query(sql)),
          query: async <R>(sql: string, params: unknown[] = []) => (await client.query(sql, params)).rows as R[],
        });
      } finally {
        client.release();
      }
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    // Kysely ends the pool only if it ever opened its driver: a process that used raw sessions alone (a command
    // that failed after migrating) would otherwise wait out the idle clients' timeout before it can exit.
    close: async () => {
      await db.destroy();
      if (!pool.ended) await pool.end();
    },
  };
}

async function openPGlite(dataDir?: string, loadDataDir?: Blob): Promise<Database> {
  let path: string | undefined;
  if (dataDir) {
    path = resolve(dataDir, 'pgdata');
    mkdirSync(path, { recursive: true });
  }
  return pgliteDatabase(await createPGlite({ dataDir: path, loadDataDir }), new Mutex(), { closesClient: true });
}

function createPGlite(options: { dataDir?: string | undefined; loadDataDir?: Blob | undefined }): Promise<PGlite> {
  return PGlite.create({
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
    parsers: { [INT8]: parseInt8, [NUMERIC]: Number, [DATE]: parseDate },
    // Trigram indexes serve the `%text%` searches over customer names and emails, as on PostgreSQL.
    extensions: { pg_trgm },
  });
}

/**
 * A database over `client`. When it does not close the client, closing it ends only this view: its Kysely and
 * sessions refuse further work, and the client stays open for the next view.
 */
function pgliteDatabase(client: PGlite, lock: Mutex, options: { closesClient: boolean }): Database {
  const view = { closed: false };
  const db = new Kysely<DB>({ dialect: serializedPGliteDialect(client, lock, view) });
  const session = (): RawSession => {
    if (view.closed) throw new Error('database closed');
    return {
      exec: async (sql) => void (await client.exec(sql)),
      query: async <R>(sql: string, params: unknown[] = []) => (await client.query<R>(sql, params)).rows,
    };
  };
  return {
    db,
    engine: 'pglite',
    withSession: (fn) => lock.run(() => fn(session())),
    poolStats: () => ({ total: 1, idle: 1, waiting: 0 }),
    dumpDataDir: () => lock.run(() => client.dumpDataDir('none')),
    close: async () => {
      view.closed = true;
      await db.destroy();
      if (options.closesClient && !client.closed) await client.close();
    },
  };
}

/**
 * One PGlite used by several databases one after another (the test processes reuse a migrated one across test
 * files instead of opening PGlite again for each). `database()` opens a view that leaves PGlite open when it
 * closes; `withSession` runs maintenance between views, under the same lock as the views' sessions.
 */
export type ReusablePGlite = {
  database(): Database;
  withSession<T>(fn: (session: RawSession) => Promise<T>): Promise<T>;
  close(): Promise<void>;
};

export async function openReusablePGlite(options: { loadDataDir?: Blob } = {}): Promise<ReusablePGlite> {
  const client = await createPGlite(options);
  const lock = new Mutex();
  const maintenance = pgliteDatabase(client, lock, { closesClient: false });
  return {
    database: () => pgliteDatabase(client, lock, { closesClient: false }),
    withSession: (fn) => maintenance.withSession(fn),
    close: () => client.close(),
  };
}

/** The database the configuration names: PostgreSQL at DATABASE_URL, else the embedded PGlite in DATA_DIR. */
export async function openConfiguredDatabase(
  config: Pick<Config, 'databaseUrl' | 'dbPoolSize' | 'dataDir'>,
): Promise<Database> {
  return config.databaseUrl
    ? openDatabase({ engine: 'postgres', url: config.databaseUrl, poolSize: config.dbPoolSize })
    : openDatabase({ engine: 'pglite', dataDir: config.dataDir });
}
