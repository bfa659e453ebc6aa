/**
 * Letting the system settle after the load: the safety nets and recoveries the kills left (intents whose
 * process died, leased jobs of killed workers, refund reservations whose request died, orphan captures) run
 * now instead of minutes later. Time is brought forward in the database the way the crash test does: queued
 * jobs are made due, and refund reservations still pending are made old enough to be settled by their job.
 */

import { sql } from 'kysely';
import type { Database } from '../../../../src/db/database.ts';
import { jobQueueDrained } from '../../support/job-queue.ts';

export type Settled = { at: Date; passes: number };

/** Passes until a pass brings nothing forward but re-asks about payments the gateway never saw. */
export async function settle(database: Database, options: { timeoutMs: number }): Promise<Settled> {
  const db = database.db;
  let at = new Date();
  for (let pass = 1; pass <= 8; pass++) {
    await sql`UPDATE refunds SET created_at = created_at - interval '11 minutes' WHERE status = 'pending'`.execute(db);
    const moved = await sql<{ type: string; payment_id: string | null }>`
      UPDATE jobs SET run_at = now()
      WHERE status = 'queued' AND type NOT LIKE 'maintenance.%' AND run_at > now()
      RETURNING type, payload->>'payment_id' AS payment_id`.execute(db);
    at = await jobQueueDrained(db, options.timeoutMs);
    const stillUnseen = await paymentsTheGatewayNeverSaw(database);
    const news = moved.rows.filter(
      (row) => !(row.type === 'payments.reconcile' && stillUnseen.has(Number(row.payment_id))),
    );
    if (pass > 1 && news.length === 0) return { at, passes: pass };
  }
  return { at, passes: 8 };
}

/**
 * Payments whose call the gateway never received (the process died first): pending, no gateway id. They are
 * asked about every 5 minutes for 30 minutes before they are failed; the reconciliation accepts them pending.
 */
async function paymentsTheGatewayNeverSaw(database: Database): Promise<Set<number>> {
  const rows = await database.db
    .selectFrom('payments')
    .select('id')
    .where('status', '=', 'pending')
    .where('gateway_id', 'is', null)
    .execute();
  return new Set(rows.map((row) => row.id));
}
