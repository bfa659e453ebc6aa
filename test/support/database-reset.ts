import type { RawSession } from '../../src/db/database.ts';

/**
 * Putting a used test database back into its just-migrated state, so the next test file in the same process can
 * take it instead of opening a new one: every table emptied, the rows the migrations wrote put back, every
 * sequence where migrating left it. A database whose schema a test changed (a trigger injected to fail, a probe
 * table) is not reset: `resetToMigrated` says so and the caller opens a new one instead.
 */
export type MigratedState = {
  /** A digest of the schema: tables, columns, defaults, constraints, indexes, triggers, functions, types. */
  schema: string;
  tables: string[];
  /** The rows the migrations themselves wrote, per table, as JSON. */
  rows: { table: string; json: string }[];
  sequences: { name: string; lastValue: string; isCalled: boolean }[];
  /** Whether the session may turn off triggers (and so foreign-key checks) while it empties the tables. */
  superuser: boolean;
};

/** Read once from a database that has just been migrated (or copied from one). */
export async function migratedState(session: RawSession): Promise<MigratedState> {
  const tables = (
    await session.query<{ name: string }>(
      `SELECT quote_ident(c.relname) AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY 1`,
    )
  ).map((row) => row.name);
  const rows: MigratedState['rows'] = [];
  for (const table of tables) {
    const [row] = await session.query<{ json: string | null }>(`SELECT json_agg(t)::text AS json FROM ${table} t`);
    if (row?.json) rows.push({ table, json: row.json });
  }
  const sequences = await session.query<{ name: string; lastValue: string; isCalled: boolean }>(
    `SELECT format('%I.%I', schemaname, sequencename) AS name,
            coalesce(last_value, start_value)::text AS "lastValue", last_value IS NOT NULL AS "isCalled"
     FROM pg_sequences WHERE schemaname = 'public' ORDER BY 1`,
  );
  const [{ superuser } = { superuser: false }] = await session.query<{ superuser: boolean }>(
    `SELECT current_setting('is_superuser') = 'on' AS superuser`,
  );
  return { schema: await schemaDigest(session), tables, rows, sequences, superuser };
}

/**
 * Back to `state`: ends whatever the last user left open (a transaction, session settings, advisory locks,
 * listeners), then empties and refills the tables and puts every sequence back. False, with nothing changed,
 * when the schema differs from the migrated one.
 */
export async function resetToMigrated(session: RawSession, state: MigratedState): Promise<boolean> {
  await session.exec('ROLLBACK');
  await session.exec('DISCARD ALL');
  if ((await schemaDigest(session)) !== state.schema) return false;
  const statements = [
    'BEGIN',
    ...(state.superuser ? await deletions(session, state) : [`TRUNCATE ${state.tables.join(', ')} CASCADE`]),
    ...state.rows.map(
      ({ table, json }) =>
        `INSERT INTO ${table} SELECT * FROM json_populate_recordset(NULL::${table}, ${literal(json)})`,
    ),
    ...state.sequences.map(
      ({ name, lastValue, isCalled }) => `SELECT setval(${literal(name)}, ${lastValue}, ${String(isCalled)})`,
    ),
    'COMMIT',
  ];
  await session.exec(statements.join(';\n'));
  return true;
}

/**
 * Emptying only the tables that hold rows, by DELETE with triggers off (foreign keys too, so in any order): a file
 * leaves rows in a few of the tables, and TRUNCATE of all of them gives each a new file on disk, which cost
 * PostgreSQL about 0.38 s a reset against a few milliseconds (PGlite: 87 ms).
 */
async function deletions(session: RawSession, state: MigratedState): Promise<string[]> {
  const probe = state.tables.map((table) => `SELECT ${literal(table)} AS name WHERE EXISTS (SELECT FROM ${table})`);
  const holding = (await session.query<{ name: string }>(probe.join(' UNION ALL '))).map((row) => row.name);
  return ['SET LOCAL session_replication_role = replica', ...holding.map((table) => `DELETE FROM ${table}`)];
}

function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** Everything in the public schema a test could change, by name and definition (no object ids). */
async function schemaDigest(session: RawSession): Promise<string> {
  const [row] = await session.query<{ digest: string }>(
    `SELECT md5(string_agg(item, E'\\n' ORDER BY item)) AS digest FROM (
       SELECT format('rel %s %s %s %s', c.relname, c.relkind, c.relpersistence, c.relrowsecurity) AS item
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'
       UNION ALL
       SELECT format('col %s.%s %s %s %s', c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
                     pg_get_expr(d.adbin, d.adrelid))
       FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
       WHERE n.nspname = 'public' AND a.attnum > 0 AND NOT a.attisdropped
       UNION ALL
       SELECT format('con %s.%s %s', c.conrelid::regclass, c.conname, pg_get_constraintdef(c.oid))
       FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = 'public'
       UNION ALL
       SELECT format('idx %s', pg_get_indexdef(i.indexrelid))
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'public'
       UNION ALL
       SELECT format('trg %s %s', t.tgenabled, pg_get_triggerdef(t.oid)) FROM pg_trigger t WHERE NOT t.tgisinternal
       UNION ALL
       SELECT format('fn %s(%s) %s', p.proname, pg_get_function_identity_arguments(p.oid), md5(p.prosrc))
       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public'
       UNION ALL
       SELECT format('type %s %s', t.typname, t.typtype) FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
       WHERE n.nspname = 'public'
       UNION ALL
       SELECT format('enum %s %s %s', e.enumtypid::regtype, e.enumsortorder, e.enumlabel) FROM pg_enum e
       UNION ALL
       SELECT format('view %s %s', c.relname, pg_get_viewdef(c.oid))
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('v', 'm')
       UNION ALL
       SELECT format('schema %s', nspname) FROM pg_namespace
       UNION ALL
       SELECT format('ext %s %s', extname, extversion) FROM pg_extension
     ) items`,
  );
  return row!.digest;
}
