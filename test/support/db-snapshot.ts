import { sql } from 'kysely';
import type { Database } from '../../src/db/database.ts';

/**
 * Row counts and an md5 of every row, per table, to show that requests changed nothing. Tables are read
 * from the catalog, so a table added later is covered without edits.
 */
export type Snapshot = Record<string, string>;

export async function publicTables(database: Database, options: { withColumn?: string } = {}): Promise<string[]> {
  let query = database.db
    .selectFrom('information_schema.columns' as never)
    .select(sql<string>`table_name::text`.as('name'))
    .where(sql`table_schema`, '=', 'public')
    .where(
      sql`table_name`,
      'in',
      sql`(SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE')`,
    )
    .distinct();
  if (options.withColumn) query = query.where(sql`column_name`, '=', options.withColumn);
  return (await query.execute()).map((row) => row.name).sort();
}

/** Every row of `tables`, or only one account's rows when `accountId` is given (the tables need `account_id`). */
export async function snapshot(database: Database, tables: string[], accountId?: string): Promise<Snapshot> {
  const result: Snapshot = {};
  for (const table of tables) {
    const filter = accountId === undefined ? sql`` : sql`WHERE t.account_id = ${accountId}`;
    const { rows } = await sql<{ n: string; digest: string | null }>`
      SELECT count(*)::text AS n, md5(string_agg(t::text, '|' ORDER BY t::text)) AS digest FROM ${sql.table(table)} t ${filter}`.execute(
      database.db,
    );
    result[table] = `${rows[0]!.n} rows, md5 ${rows[0]!.digest ?? '-'}`;
  }
  return result;
}
