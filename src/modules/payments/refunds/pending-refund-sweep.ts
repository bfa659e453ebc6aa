import { sql, type Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import { enqueueRefundReconciliation, reconcileRefundKey } from './refund-reconciliation.ts';
import { STALE_RESERVATION_MS } from './refund-recording.ts';

/** Refunds handed to `refunds.reconcile` per sweep, oldest first; the next tick takes the rest. */
const SWEEP_LIMIT = 100;

/**
 * Enqueues `refunds.reconcile` for every refund still `pending` once its reservation is stale
 * (`STALE_RESERVATION_MS`, the age at which the job itself settles it) that no queued or running reconcile
 * job holds: a reservation made before the job was written with it, or one whose job ended with the refund
 * still pending (dead after a day of an unreachable gateway). The job is the one the reservation writes
 * (same dedup key, due at once), so two sweeps at the same moment enqueue it once, and the existing
 * reconciliation settles the refund. Run on the worker's tick (the partial index of migration 0012 keeps it
 * to the few pending rows); returns how many jobs it enqueued.
 */
export async function sweepPendingRefunds(db: Kysely<DB>, now: Date): Promise<number> {
  const staleBefore = new Date(now.getTime() - STALE_RESERVATION_MS);
  // Both keys a refund's job can hold (reconcileRefundKey, attempts 0 and 1), matched through jobs_dedup_idx.
  const prefix = reconcileRefundKey('');
  const keys = [sql<string>`${prefix} || r.uid::text`, sql<string>`${prefix} || r.uid::text || ':1'`];
  const orphans = await db
    .selectFrom('refunds as r')
    .select(['r.account_id', 'r.uid', 'r.created_at'])
    .where('r.status', '=', 'pending')
    .where('r.created_at', '<=', staleBefore)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('jobs as j')
            .select(sql`1`.as('one'))
            .where('j.dedup_key', 'in', keys)
            .where('j.status', 'in', ['queued', 'running']),
        ),
      ),
    )
    .orderBy('r.created_at')
    .limit(SWEEP_LIMIT)
    .execute();
  let enqueued = 0;
  for (const refund of orphans) {
    if (
      await enqueueRefundReconciliation(db, { accountId: refund.account_id, refundUid: refund.uid }, refund.created_at)
    )
      enqueued++;
  }
  return enqueued;
}
