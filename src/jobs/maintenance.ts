import type { Database } from '../db/database.ts';
import { enqueueJob } from '../queue/outbox.ts';
import type { JobHandler } from '../queue/job-handler.ts';

export const PURGE_IDEMPOTENCY_KEYS = 'maintenance.purge_idempotency_keys';
export const PURGE_CARD_HASH_KEYS = 'maintenance.purge_card_hash_keys';

const MAINTENANCE_INTERVAL_MS = 60 * 60_000;
// A card hash key may still be presented by a checkout that loaded just before it expired.
const CARD_HASH_KEY_GRACE_MS = 24 * 60 * 60_000;

/** Handlers for the recurring purges; `clock` is "now", injectable for tests. */
export function maintenanceHandlers(clock: () => Date = () => new Date()): Record<string, JobHandler> {
  return {
    [PURGE_IDEMPOTENCY_KEYS]: async (_job, { database }) => {
      await database.db.deleteFrom('idempotency_keys').where('expires_at', '<', clock()).execute();
    },
    [PURGE_CARD_HASH_KEYS]: async (_job, { database }) => {
      const cutoff = new Date(clock().getTime() - CARD_HASH_KEY_GRACE_MS);
      await database.db.deleteFrom('card_hash_keys').where('expires_at', '<', cutoff).execute();
    },
  };
}

/**
 * Enqueues each purge an interval from now unless one is already queued or running (its type is its dedup key),
 * so called on every worker tick it keeps each purge recurring about once an interval. Returns how many it enqueued.
 */
export async function scheduleMaintenance(database: Database, clock: () => Date = () => new Date()): Promise<number> {
  const runAt = new Date(clock().getTime() + MAINTENANCE_INTERVAL_MS);
  let enqueued = 0;
  for (const type of [PURGE_IDEMPOTENCY_KEYS, PURGE_CARD_HASH_KEYS]) {
    if (await enqueueJob(database.db, { type, payload: {}, runAt, dedupKey: type })) enqueued++;
  }
  return enqueued;
}
