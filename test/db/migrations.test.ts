import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Database } from '../../src/db/database.ts';
import { loadMigrations, migrate } from '../../src/db/migrate.ts';
import { engines } from '../support/engines.ts';

for (const engine of engines()) {
  describe(`migrations on ${engine.name}`, () => {
    let database: Database;
    before(async () => (database = await engine.openMigratedFromEmpty()));
    after(() => database.close());

    test('apply every migration from empty and record each version', async () => {
      const { rows } = await sql<{ version: string }>`SELECT version FROM schema_migrations ORDER BY version`.execute(
        database.db,
      );
      assert.deepEqual(
        rows.map((r) => r.version),
        loadMigrations().map((m) => m.version),
      );
    });

    test('a second run applies nothing', async () => {
      assert.deepEqual(await migrate(database), []);
    });

    test('every tenant table carries account_id and its indexes lead with it', async () => {
      const { rows } = await sql<{ table_name: string }>`
        SELECT table_name FROM information_schema.columns
        WHERE table_schema = 'public' AND column_name = 'account_id'`.execute(database.db);
      const tenantTables = new Set(rows.map((r) => r.table_name));
      for (const table of [
        'companies',
        'products',
        'orders',
        'payments',
        'customers',
        'coupons',
        'order_events',
        'idempotency_keys',
      ]) {
        assert.ok(tenantTables.has(table), `${table} has account_id`);
      }
      const indexes = await sql<{ tablename: string; indexname: string; indexdef: string }>`
        SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'`.execute(database.db);
      // Global lookups by an unguessable public identifier, and trigram (GIN) search indexes whose matches
      // are then filtered by tenant, are the documented exceptions.
      const globalLookups =
        /(_pkey|_uid_key|_key_id_key|_slug_key|companies_.*|webhook_events_dedup_idx|jobs_.*|_expiry_idx|_due_idx|company_webhook_credentials_(company|username)_idx|dashboard_users_email_key|orders_meta_idx|_trgm_idx)$/;
      for (const index of indexes.rows) {
        if (!tenantTables.has(index.tablename) || globalLookups.test(index.indexname)) continue;
        assert.match(index.indexdef, /\(account_id[,)]/, `${index.indexname} leads with account_id`);
      }
    });
  });
}
