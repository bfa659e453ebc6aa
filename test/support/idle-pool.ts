/**
 * Test databases put back for the next test file of the same process, when the test runner asked for reuse
 * (scripts/run-tests.ts sets REUSE_TEST_DATABASES=1 and closes what is left when the process's files are done:
 * `closeIdleDatabases`). Otherwise a database is ended as soon as its file closes it, as an idle PGlite would keep
 * the process alive.
 */
export const reuseTestDatabases = process.env.REUSE_TEST_DATABASES === '1';

const pools: IdlePool<unknown>[] = [];

export class IdlePool<T> {
  private readonly idle: T[] = [];

  constructor(private readonly end: (item: T) => Promise<void>) {
    pools.push(this as IdlePool<unknown>);
  }

  take(): T | undefined {
    return this.idle.pop();
  }

  /** After its file closed it: reset and kept for the next taker when reuse is on, else (or if `reset` fails) ended. */
  async putBack(item: T, reset: () => Promise<boolean>): Promise<void> {
    if (reuseTestDatabases && (await reset())) this.idle.push(item);
    else await this.end(item);
  }

  async endAll(): Promise<void> {
    await Promise.all(this.idle.splice(0).map((item) => this.end(item).catch(() => {})));
  }
}

/**
 * Ends every database kept for reuse, after the last test file of a process: the group files scripts/run-tests.ts
 * writes import it.
 * @public
 */
export async function closeIdleDatabases(): Promise<void> {
  await Promise.all(pools.map((pool) => pool.endAll()));
}
