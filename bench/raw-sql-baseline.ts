/**
 * The baseline of write-heavy endpoints: the same number of row inserts, updates and deletes as one
 * request performs, as one transaction of plain statements sent through `pg` directly (one round trip
 * per row, as the service's statements are), at the same concurrency. What the endpoint costs beyond
 * this is its own work: reads, validation, pricing, the gateway call, the answer.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { loopLoad, type Load } from './load.ts';

export type RowWrites = { inserts: number; updates: number; deletes: number };

/** A table shaped like the service's own: uuid tenant key, cents, JSON, timestamps, a tenant index. */
export async function createBaselineTable(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`
      CREATE TABLE IF NOT EXISTS bench_baseline_rows (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id uuid NOT NULL,
        kind text NOT NULL,
        amount_cents bigint NOT NULL,
        data jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX IF NOT EXISTS bench_baseline_rows_account_idx ON bench_baseline_rows (account_id, created_at)`);
  } finally {
    await client.end();
  }
}

/** The transaction as a load, on a pool of `concurrency` connections; `close()` ends the pool. */
export function rawTransactionLoad(
  url: string,
  writes: RowWrites,
  concurrency: number,
): { load: Load; close(): Promise<void> } {
  const raw = rawTransaction(url, writes, concurrency);
  return { load: loopLoad(raw.label, concurrency, raw.run), close: raw.close };
}

/** The transaction itself, to run in a loop or behind a route; `close()` ends its pool. */
export function rawTransaction(
  url: string,
  writes: RowWrites,
  concurrency: number,
): { label: string; run(): Promise<void>; close(): Promise<void> } {
  const pool = new pg.Pool({ connectionString: url, max: concurrency });
  const inserts = Math.max(1, Math.round(writes.inserts));
  const updates = Math.round(writes.updates);
  const deletes = Math.round(writes.deletes);
  const accountId = randomUUID();
  const data = JSON.stringify({
    source: 'bench',
    note: 'a payload of a typical size for an order or an event row',
    items: 1,
  });
  const transaction = async () => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const ids: string[] = [];
      for (let i = 0; i < inserts; i++) {
        const { rows } = await client.query<{ id: string }>(
          'INSERT INTO bench_baseline_rows (account_id, kind, amount_cents, data) VALUES ($1, $2, $3, $4) RETURNING id',
          [accountId, 'row', 10_000 + i, data],
        );
        ids.push(rows[0]!.id);
      }
      for (let i = 0; i < updates; i++) {
        await client.query(
          'UPDATE bench_baseline_rows SET amount_cents = amount_cents + 1, updated_at = now() WHERE id = $1',
          [ids[i % ids.length]],
        );
      }
      for (let i = 0; i < deletes; i++)
        await client.query('DELETE FROM bench_baseline_rows WHERE id = $1', [ids[ids.length - 1 - (i % ids.length)]]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  };
  const label = `raw SQL transaction: ${inserts} inserts, ${updates} updates${deletes ? `, ${deletes} deletes` : ''} through pg`;
  return { label, run: transaction, close: () => pool.end() };
}
