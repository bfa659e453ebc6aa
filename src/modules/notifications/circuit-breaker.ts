import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

/**
 * The circuit breaker of a notification endpoint, kept on its row so every worker shares it. After
 * `OPENING_STREAK` consecutive failed attempts the circuit opens: attempts due meanwhile are not sent (they are
 * logged as such and follow their retry schedule), so a dead endpoint costs no connection or timeout per
 * delivery. Once the open period ends one attempt, the probe, goes out: a success closes the circuit, a failure
 * opens it again for twice as long (30 s doubling, at most 10 min).
 */
export const OPENING_STREAK = 10;
const FIRST_OPEN_SECONDS = 30;
const LONGEST_OPEN_SECONDS = 10 * 60;

export type EndpointHealth = { failure_streak: number; circuit_open_until: Date | null };
export type CircuitGate = { send: true } | { send: false; openUntil: Date };

/**
 * Whether an attempt may be sent now. While the circuit is open it may not; once the open period ended, the
 * first caller takes the probe by moving the period on by `probeMs` (its longest possible exchange), so
 * concurrent workers send one probe, not one each.
 */
export async function passCircuit(
  db: Kysely<DB>,
  endpoint: { accountId: string; endpointId: string } & EndpointHealth,
  now: Date,
  probeMs: number,
): Promise<CircuitGate> {
  if (endpoint.failure_streak < OPENING_STREAK) return { send: true };
  if (endpoint.circuit_open_until && endpoint.circuit_open_until > now)
    return { send: false, openUntil: endpoint.circuit_open_until };
  const probeUntil = new Date(now.getTime() + probeMs);
  const probe = await db
    .updateTable('notification_endpoints')
    .set({ circuit_open_until: probeUntil })
    .where('account_id', '=', endpoint.accountId)
    .where('id', '=', endpoint.endpointId)
    .where('failure_streak', '>=', OPENING_STREAK)
    .where((eb) => eb.or([eb('circuit_open_until', 'is', null), eb('circuit_open_until', '<=', now)]))
    .returning('id')
    .executeTakeFirst();
  if (probe) return { send: true };
  // Another attempt took the probe meanwhile, or its success already closed the circuit.
  const current = await db
    .selectFrom('notification_endpoints')
    .select(['failure_streak', 'circuit_open_until'])
    .where('account_id', '=', endpoint.accountId)
    .where('id', '=', endpoint.endpointId)
    .executeTakeFirst();
  if (!current || current.failure_streak < OPENING_STREAK) return { send: true };
  return { send: false, openUntil: current.circuit_open_until ?? probeUntil };
}

/** Records a sent attempt's outcome: a success closes the circuit; a failure lengthens the streak, opening it at the threshold. */
export async function recordEndpointOutcome(
  db: Kysely<DB>,
  endpoint: { accountId: string; endpointId: string },
  delivered: boolean,
  now: Date,
): Promise<void> {
  const update = db
    .updateTable('notification_endpoints')
    .where('account_id', '=', endpoint.accountId)
    .where('id', '=', endpoint.endpointId);
  if (delivered) {
    await update.set({ failure_streak: 0, circuit_open_until: null }).returning('id').execute();
    return;
  }
  const streak = sql<number>`failure_streak + 1`;
  const openSeconds = sql<number>`least(${FIRST_OPEN_SECONDS} * power(2, ${streak} - ${OPENING_STREAK}), ${LONGEST_OPEN_SECONDS})`;
  await update
    .set({
      failure_streak: streak,
      circuit_open_until: sql<Date>`CASE WHEN ${streak} >= ${OPENING_STREAK}
        THEN cast(${now} as timestamptz) + make_interval(secs => ${openSeconds})
        ELSE circuit_open_until END`,
    })
    .returning('id')
    .execute();
}
