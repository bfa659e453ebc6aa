import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { enqueueJob } from '../../queue/outbox.ts';
import { announceJobsDue } from '../../queue/wake.ts';
import { PROCESS_EVENT_JOB } from './webhooks.service.ts';

/**
 * The dead-event list: an acknowledged event whose job ran out of attempts is `failed`, never silently left
 * behind. It is listed (the merchant's `GET /webhook_events?status=failed`, `checkout webhooks failed`) and can
 * be replayed: queued again with a fresh job, applied exactly once like any event.
 */
export const WEBHOOK_EVENT_STATUSES = ['received', 'processed', 'ignored', 'failed'] as const;
export type WebhookEventStatus = (typeof WEBHOOK_EVENT_STATUSES)[number];

const VIEW_COLUMNS = [
  'e.id',
  'e.receiver',
  'e.company_id',
  'e.external_event_id',
  'e.event_type',
  'e.status',
  'e.attempts',
  'e.last_error',
  'e.received_at',
  'e.processed_at',
  'e.failed_at',
] as const;

/** The event's job is queued or running. */
const liveJobOf = (eventId: ReturnType<typeof sql.ref>) =>
  sql<boolean>`EXISTS (SELECT 1 FROM jobs j WHERE j.dedup_key = ${`${PROCESS_EVENT_JOB}:`} || ${eventId}
    AND j.status IN ('queued', 'running'))`;

/** Fails the event of a dead job, unless it was applied or has a live job again; the failed row, or undefined. */
export function failEventOfDeadJob(db: Kysely<DB>, eventId: number, error: string, now: Date) {
  return db
    .updateTable('webhook_events as e')
    .set({ status: 'failed', failed_at: now, last_error: error.slice(0, 1000) })
    .where('e.id', '=', eventId)
    .where('e.status', '=', 'received')
    .where(sql<boolean>`NOT ${liveJobOf(sql.ref('e.id'))}`)
    .returning(['e.id', 'e.account_id', 'e.receiver', 'e.event_type', 'e.attempts'])
    .executeTakeFirst();
}

export type EventQuery = { accountId?: string; status?: WebhookEventStatus; limit: number; offset: number };

function eventsMatching(db: Kysely<DB>, query: Pick<EventQuery, 'accountId' | 'status'>) {
  return db
    .selectFrom('webhook_events as e')
    .$if(query.accountId !== undefined, (qb) => qb.where('e.account_id', '=', query.accountId!))
    .$if(query.status !== undefined, (qb) => qb.where('e.status', '=', query.status!));
}

/** One page of events, newest first, and how many match in all; across accounts when no account is given. */
export async function listWebhookEvents(db: Kysely<DB>, query: EventQuery) {
  const [rows, total] = await Promise.all([
    eventsMatching(db, query)
      .leftJoin('accounts as a', 'a.id', 'e.account_id')
      .select([...VIEW_COLUMNS, 'a.slug as account'])
      .orderBy('e.id', 'desc')
      .limit(query.limit)
      .offset(query.offset)
      .execute(),
    eventsMatching(db, query)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

export type WebhookEventRow = Awaited<ReturnType<typeof listWebhookEvents>>['rows'][number];

export function findWebhookEvent(db: Kysely<DB>, id: number, accountId?: string) {
  return db
    .selectFrom('webhook_events as e')
    .leftJoin('accounts as a', 'a.id', 'e.account_id')
    .select([...VIEW_COLUMNS, 'a.slug as account'])
    .where('e.id', '=', id)
    .$if(accountId !== undefined, (qb) => qb.where('e.account_id', '=', accountId!))
    .executeTakeFirst();
}

/** `replayed`; `queued`: its job is live already; `applied`: processed or ignored, nothing to replay; `missing`. */
export type ReplayOutcome = 'replayed' | 'queued' | 'applied' | 'missing';

/**
 * Queues a failed event again (a `received` one whose job is gone too): back to `received` with a fresh job, in
 * one transaction, and the workers of this process are woken. Its attempts count on.
 */
export async function replayEvent(
  db: Kysely<DB>,
  target: { id: number; accountId?: string },
  now: Date,
): Promise<ReplayOutcome> {
  const reopened = await db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('webhook_events as e')
      .set({ status: 'received', failed_at: null })
      .where('e.id', '=', target.id)
      .$if(target.accountId !== undefined, (qb) => qb.where('e.account_id', '=', target.accountId!))
      .where((eb) =>
        eb.or([
          eb('e.status', '=', 'failed'),
          eb.and([eb('e.status', '=', 'received'), sql<boolean>`NOT ${liveJobOf(sql.ref('e.id'))}`]),
        ]),
      )
      .returning(['e.id', 'e.account_id'])
      .executeTakeFirst();
    if (row)
      await enqueueJob(trx, {
        type: PROCESS_EVENT_JOB,
        payload: { event_id: row.id },
        accountId: row.account_id,
        runAt: now,
        dedupKey: `${PROCESS_EVENT_JOB}:${row.id}`,
      });
    return row;
  });
  if (reopened) {
    announceJobsDue();
    return 'replayed';
  }
  const event = await findWebhookEvent(db, target.id, target.accountId);
  if (!event) return 'missing';
  return event.status === 'received' ? 'queued' : 'applied';
}

/** Replays every failed event (of one account, when given), oldest first; the ids replayed. */
export async function replayAllFailed(db: Kysely<DB>, options: { accountId?: string }, now: Date): Promise<number[]> {
  const failed = await eventsMatching(db, { ...options, status: 'failed' })
    .select('e.id')
    .orderBy('e.id')
    .execute();
  const replayed: number[] = [];
  for (const { id } of failed)
    if ((await replayEvent(db, { id, ...options }, now)) === 'replayed') replayed.push(Number(id));
  return replayed;
}

/** How many events are failed now, over every account: the dead-event metric. */
export async function countFailedEvents(db: Kysely<DB>): Promise<number> {
  const row = await db
    .selectFrom('webhook_events')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where(sql<boolean>`status = 'failed'`)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
