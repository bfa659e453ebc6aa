import type { PGlite } from '@electric-sql/pglite';
import { KyselyPGlite } from 'kysely-pglite';
import type { DatabaseConnection, Dialect, Driver, TransactionSettings } from 'kysely';
import { type Mutex } from '../lib/mutex.ts';

/**
 * PGlite is a single session, so two interleaved transactions would share one BEGIN.
 * This driver hands the session to one Kysely connection at a time: a transaction holds
 * it from acquire to release, and every other query waits its turn.
 */
class SerializedDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    private readonly lock: Mutex,
  ) {}
  private readonly releases = new WeakMap<DatabaseConnection, () => void>();

  init(): Promise<void> {
    return this.inner.init();
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    const release = await this.lock.acquire();
    const connection = await this.inner.acquireConnection();
    this.releases.set(connection, release);
    return connection;
  }
  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(connection, settings);
  }
  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection);
  }
  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(connection);
  }
  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    await this.inner.releaseConnection(connection);
    this.releases.get(connection)?.();
    this.releases.delete(connection);
  }
  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

export function serializedPGliteDialect(client: PGlite, lock: Mutex): Dialect {
  const base = new KyselyPGlite(client).dialect;
  return {
    createAdapter: () => base.createAdapter(),
    createDriver: () => new SerializedDriver(base.createDriver(), lock),
    createIntrospector: (db) => base.createIntrospector(db),
    createQueryCompiler: () => base.createQueryCompiler(),
  };
}
