import { sql, type Kysely, type SqlBool } from 'kysely';
import type { DB } from '../../db/schema.ts';

/** A delivery with its event and endpoint: everything one attempt needs. */
export function findDeliveryTarget(db: Kysely<DB>, deliveryId: string) {
  return db
    .selectFrom('notification_deliveries as d')
    .innerJoin('notification_events as e', (join) =>
      join.onRef('e.id', '=', 'd.event_id').onRef('e.account_id', '=', 'd.account_id'),
    )
    .innerJoin('notification_endpoints as p', (join) =>
      join.onRef('p.id', '=', 'd.endpoint_id').onRef('p.account_id', '=', 'd.account_id'),
    )
    .select([
      'd.id',
      'd.account_id',
      'd.status',
      'd.attempts',
      'd.max_attempts',
      'e.id as event_id',
      'e.type as event_type',
      'e.created_at as event_created_at',
      'e.data as event_data',
      'p.id as endpoint_id',
      'p.url',
      'p.enabled',
      'p.listen_expires_at',
      'p.failure_streak',
      'p.circuit_open_until',
      'p.secret_encrypted',
      'p.previous_secret_encrypted',
      'p.previous_secret_expires_at',
    ])
    .where('d.id', '=', deliveryId)
    .executeTakeFirst();
}

export type DeliveryTarget = NonNullable<Awaited<ReturnType<typeof findDeliveryTarget>>>;

export type AttemptRecord = {
  accountId: string;
  deliveryId: string;
  attempt: number;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseBody: string | null;
  startedAt: Date;
};

export async function insertAttempt(db: Kysely<DB>, record: AttemptRecord): Promise<void> {
  await db
    .insertInto('notification_attempts')
    .values({
      account_id: record.accountId,
      delivery_id: record.deliveryId,
      attempt: record.attempt,
      status_code: record.statusCode,
      duration_ms: record.durationMs,
      error: record.error,
      response_body: record.responseBody,
      started_at: record.startedAt,
    })
    .execute();
}

export type DeliveryOutcome = {
  status: 'pending' | 'delivered' | 'failed';
  nextAttemptAt: Date | null;
  statusCode: number | null;
  error: string | null;
  at: Date;
};

/**
 * Settles attempt `attempt` on the delivery, only if it is still pending and no other run recorded this
 * attempt first (a job re-run after a lost lease). Returns whether this run won.
 */
export async function recordOutcome(
  db: Kysely<DB>,
  accountId: string,
  deliveryId: string,
  attempt: number,
  outcome: DeliveryOutcome,
): Promise<boolean> {
  const updated = await db
    .updateTable('notification_deliveries')
    .set({
      status: outcome.status,
      attempts: attempt,
      next_attempt_at: outcome.nextAttemptAt,
      last_status_code: outcome.statusCode,
      last_error: outcome.error,
      ...(outcome.status === 'delivered' ? { delivered_at: outcome.at } : {}),
      ...(outcome.status === 'failed' ? { failed_at: outcome.at } : {}),
      updated_at: outcome.at,
    })
    .where('account_id', '=', accountId)
    .where('id', '=', deliveryId)
    .where('status', '=', 'pending')
    .where('attempts', '=', attempt - 1)
    .returning('id')
    .executeTakeFirst();
  return updated !== undefined;
}

export function attemptsOfDelivery(db: Kysely<DB>, deliveryId: string) {
  return db
    .selectFrom('notification_attempts')
    .select(['attempt', 'status_code', 'duration_ms', 'error', 'response_body', 'started_at'])
    .where('delivery_id', '=', deliveryId)
    .orderBy('attempt')
    .execute();
}

/**
 * A delivery whose attempt job died (its attempts spent on errors of ours, such as the database failing
 * while the outcome was recorded) is failed, so it is listed and can be redelivered, instead of staying
 * pending with nothing scheduled. Only while the dead job's attempt is still the delivery's next one.
 */
export async function failDeliveryOfDeadJob(
  db: Kysely<DB>,
  deliveryId: string,
  attempt: number,
  error: string,
  now: Date,
): Promise<boolean> {
  const updated = await db
    .updateTable('notification_deliveries')
    .set({
      status: 'failed',
      next_attempt_at: null,
      failed_at: now,
      last_status_code: null,
      last_error: `attempt ${attempt} could not be completed: ${error}`.slice(0, 1000),
      updated_at: now,
    })
    .where('id', '=', deliveryId)
    .where('status', '=', 'pending')
    .where('attempts', '=', attempt - 1)
    .returning('id')
    .executeTakeFirst();
  return updated !== undefined;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** A delivery as the API shows it: its event, where it stands and what its last attempt got. */
function deliveriesWithEvent(db: Kysely<DB>, accountId: string) {
  return db
    .selectFrom('notification_deliveries as d')
    .innerJoin('notification_events as e', (join) =>
      join.onRef('e.id', '=', 'd.event_id').onRef('e.account_id', '=', 'd.account_id'),
    )
    .select([
      'd.id',
      'd.endpoint_id',
      'd.event_id',
      'e.type as event_type',
      'd.status',
      'd.attempts',
      'd.next_attempt_at',
      'd.last_status_code',
      'd.last_error',
      'd.delivered_at',
      'd.failed_at',
      'd.created_at',
    ])
    .where('d.account_id', '=', accountId);
}

export type DeliveryRow = Awaited<ReturnType<ReturnType<typeof deliveriesWithEvent>['executeTakeFirstOrThrow']>>;

/** One page of an endpoint's deliveries, newest first, and how many there are in all. */
export async function listDeliveriesOfEndpoint(
  db: Kysely<DB>,
  accountId: string,
  endpointId: string,
  options: { status?: DeliveryStatus; limit: number; offset: number },
): Promise<{ rows: DeliveryRow[]; total: number }> {
  let rows = deliveriesWithEvent(db, accountId).where('d.endpoint_id', '=', endpointId);
  let count = db
    .selectFrom('notification_deliveries')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('account_id', '=', accountId)
    .where('endpoint_id', '=', endpointId);
  if (options.status) {
    rows = rows.where('d.status', '=', options.status);
    count = count.where('status', '=', options.status);
  }
  const [page, total] = await Promise.all([
    rows.orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(options.limit).offset(options.offset).execute(),
    count.executeTakeFirstOrThrow(),
  ]);
  return { rows: page, total: Number(total.n) };
}

/**
 * An endpoint's deliveries newest first, `limit` of them after the delivery `startingAfter` (keyset on
 * `(created_at, id)`, compared in the database so the timestamp keeps its microseconds), and whether more follow.
 * `cursorFound` is false when `startingAfter` names no delivery of this endpoint.
 */
export async function deliveriesPageOfEndpoint(
  db: Kysely<DB>,
  accountId: string,
  endpointId: string,
  options: { limit: number; startingAfter?: string },
): Promise<{ rows: DeliveryRow[]; hasMore: boolean; cursorFound: boolean }> {
  let query = deliveriesWithEvent(db, accountId).where('d.endpoint_id', '=', endpointId);
  if (options.startingAfter !== undefined) {
    const cursor = await db
      .selectFrom('notification_deliveries')
      .select('id')
      .where('account_id', '=', accountId)
      .where('endpoint_id', '=', endpointId)
      .where('id', '=', options.startingAfter)
      .executeTakeFirst();
    if (!cursor) return { rows: [], hasMore: false, cursorFound: false };
    query = query.where(
      sql<SqlBool>`(d.created_at, d.id) < (SELECT c.created_at, c.id FROM notification_deliveries c
        WHERE c.account_id = ${accountId} AND c.id = ${cursor.id})`,
    );
  }
  const rows = await query
    .orderBy('d.created_at', 'desc')
    .orderBy('d.id', 'desc')
    .limit(options.limit + 1)
    .execute();
  return { rows: rows.slice(0, options.limit), hasMore: rows.length > options.limit, cursorFound: true };
}

/** The delivery only when it belongs to the account. */
export function findDeliveryOfAccount(db: Kysely<DB>, accountId: string, id: string): Promise<DeliveryRow | undefined> {
  return deliveriesWithEvent(db, accountId).where('d.id', '=', id).executeTakeFirst();
}
