/**
 * How many rows a request inserts, updates and deletes, counted by PostgreSQL itself
 * (`pg_stat_user_tables`, so rows written by triggers count too). A backend publishes its counters
 * when it exits, so the requests counted run on a pool of their own that is closed before the
 * second reading.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

export type TableWrites = { table: string; inserted: number; updated: number; deleted: number };
export type WritesPerRequest = { inserts: number; updates: number; deletes: number; tables: TableWrites[] };

async function readCounters(url: string): Promise<Map<string, TableWrites>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ relname: string; ins: string; upd: string; del: string }>(
      'SELECT relname, n_tup_ins AS ins, n_tup_upd AS upd, n_tup_del AS del FROM pg_stat_user_tables',
    );
    return new Map(
      rows.map((row) => [
        row.relname,
        { table: row.relname, inserted: Number(row.ins), updated: Number(row.upd), deleted: Number(row.del) },
      ]),
    );
  } finally {
    await client.end();
  }
}

/** Counters once they stop moving: exited backends publish theirs shortly after the pool closed. */
async function settledCounters(url: string): Promise<Map<string, TableWrites>> {
  let previous = JSON.stringify([...(await readCounters(url))]);
  for (let attempt = 0; attempt < 20; attempt++) {
    await sleep(250);
    const current = await readCounters(url);
    const text = JSON.stringify([...current]);
    if (text === previous) return current;
    previous = text;
  }
  throw new Error('pg_stat_user_tables did not settle');
}

/**
 * Runs `requests` (`count` of them, on connections opened and closed by `withOwnPool`) and returns the
 * rows written per request, per table and in all. Nothing else may write to the database meanwhile.
 */
export async function countWritesPerRequest(
  url: string,
  count: number,
  withOwnPool: () => Promise<void>,
): Promise<WritesPerRequest> {
  const before = await settledCounters(url);
  await withOwnPool();
  const after = await settledCounters(url);
  const tables: TableWrites[] = [];
  for (const [name, end] of after) {
    const start = before.get(name) ?? { table: name, inserted: 0, updated: 0, deleted: 0 };
    const delta = {
      table: name,
      inserted: (end.inserted - start.inserted) / count,
      updated: (end.updated - start.updated) / count,
      deleted: (end.deleted - start.deleted) / count,
    };
    if (delta.inserted || delta.updated || delta.deleted) tables.push(delta);
  }
  tables.sort((a, b) => a.table.localeCompare(b.table));
  const sum = (pick: (row: TableWrites) => number) => tables.reduce((total, row) => total + pick(row), 0);
  return {
    inserts: sum((row) => row.inserted),
    updates: sum((row) => row.updated),
    deletes: sum((row) => row.deleted),
    tables,
  };
}
