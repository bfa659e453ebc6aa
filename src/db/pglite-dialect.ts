import type { PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
} from 'kysely';
import { type Mutex } from '../lib/mutex.ts';

/**
 * The PGlite session as a Kysely connection. Written here rather than taken from kysely-pglite: that package's
 * entry point also loads its code generator (kysely-codegen and a Babel build), about 0.8 s of CPU at every
 * process start, and hands PGlite's `affectedRows` to Kysely under a name it does not read, so an update's or
 * a delete's row count was always 0 on PGlite.
 */
class PGliteConnection implements DatabaseConnection {
  constructor(private readonly client: PGlite) {}

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.client.query<R>(compiledQuery.sql, [...compiledQuery.parameters]);
    return result.affectedRows === undefined
      ? { rows: result.rows }
      : { rows: result.rows, numAffectedRows: BigInt(result.affectedRows) };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('PGlite does not stream query results');
  }
}

/**
 * PGlite is a single session, so two interleaved transactions would share one BEGIN.
 * This driver hands the session to one Kysely connection at a time: a transaction holds
 * it from acquire to release, and every other query waits its turn.
 */
class SerializedPGliteDriver implements Driver {
  private readonly connection: PGliteConnection;
  private release: (() => void) | undefined;

  constructor(
    private readonly client: PGlite,
    private readonly lock: Mutex,
    private readonly view: DatabaseView,
  ) {
    this.connection = new PGliteConnection(client);
  }

  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    this.release = await this.lock.acquire();
    if (this.view.closed) {
      this.release();
      throw new Error('database closed');
    }
    return this.connection;
  }
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('BEGIN'));
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('COMMIT'));
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('ROLLBACK'));
  }
  async releaseConnection(): Promise<void> {
    const release = this.release;
    this.release = undefined;
    release?.();
  }
  // The database that owns the client closes it (src/db/database.ts): several databases may use one PGlite in turn.
  async destroy(): Promise<void> {}
}

/** Set when the database is closed, after which no connection is handed out. */
type DatabaseView = { readonly closed: boolean };

export function serializedPGliteDialect(client: PGlite, lock: Mutex, view: DatabaseView): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new SerializedPGliteDriver(client, lock, view),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  };
}
