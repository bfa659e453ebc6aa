import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { loadMigrations } from '../db/migrate.ts';

/** /healthz: the process answers. /readyz: the database answers and every migration is applied. */
export function registerHealth(app: FastifyInstance, database: Database): void {
  const expected = loadMigrations().map((m) => m.version);
  app.get('/healthz', { schema: { hide: true }, config: { access: 'open' } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true }, config: { access: 'open' } }, async (_request, reply) => {
    try {
      const { rows } = await sql<{ version: string }>`SELECT version FROM schema_migrations`.execute(database.db);
      const applied = new Set(rows.map((row) => row.version));
      const pending = expected.filter((version) => !applied.has(version));
      if (pending.length) return reply.code(503).send({ status: 'migrations_pending', pending });
      return { status: 'ready' };
    } catch {
      return reply.code(503).send({ status: 'database_unavailable' });
    }
  });
}
