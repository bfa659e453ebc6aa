import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { NotificationInputError } from './endpoints.service.ts';
import { ID_PREFIX } from './event-types.ts';
import { DELIVER_JOB, enqueueDeliveryAttempt } from './notify.ts';

/** Failed deliveries, newest first, with the endpoint, the event and the last error: what an operator acts on. */
export function listFailedDeliveries(db: Kysely<DB>, options: { accountId?: string; limit?: number } = {}) {
  let query = db
    .selectFrom('notification_deliveries as d')
    .innerJoin('notification_events as e', (join) =>
      join.onRef('e.id', '=', 'd.event_id').onRef('e.account_id', '=', 'd.account_id'),
    )
    .innerJoin('notification_endpoints as p', (join) =>
      join.onRef('p.id', '=', 'd.endpoint_id').onRef('p.account_id', '=', 'd.account_id'),
    )
    .innerJoin('accounts as a', 'a.id', 'd.account_id')
    .select([
      'd.id',
      'a.slug as account',
      'd.event_id',
      'e.type as event_type',
      'd.endpoint_id',
      'p.url',
      'd.attempts',
      'd.last_status_code',
      'd.last_error',
      'd.failed_at',
    ])
    .where('d.status', '=', 'failed');
  if (options.accountId) query = query.where('d.account_id', '=', options.accountId);
  return query
    .orderBy('d.failed_at', 'desc')
    .orderBy('d.id')
    .limit(options.limit ?? 100)
    .execute();
}

/**
 * Sends a delivery again: one more attempt, now, with the same event id and body (a new signature
 * timestamp). A delivery still pending is left alone while its next attempt has a live job; a pending
 * one whose job is gone (it died and the delivery could not be failed) is sent again too.
 */
async function redeliverOne(db: Kysely<DB>, deliveryId: string, now: Date): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const nextAttemptJob = sql<string>`${`${DELIVER_JOB}:`} || notification_deliveries.id || ':' || (notification_deliveries.attempts + 1)`;
    const reopened = await trx
      .updateTable('notification_deliveries')
      .set((eb) => ({
        status: 'pending',
        max_attempts: eb('attempts', '+', 1),
        next_attempt_at: now,
        failed_at: null,
        updated_at: now,
      }))
      .where('id', '=', deliveryId)
      .where((eb) =>
        eb.or([
          eb('status', '<>', 'pending'),
          eb.not(
            eb.exists(
              eb
                .selectFrom('jobs')
                .select('jobs.id')
                .where('jobs.dedup_key', '=', nextAttemptJob)
                .where('jobs.status', 'in', ['queued', 'running']),
            ),
          ),
        ]),
      )
      .returning(['account_id', 'endpoint_id', 'attempts'])
      .executeTakeFirst();
    if (!reopened) return false;
    await enqueueDeliveryAttempt(
      trx,
      { accountId: reopened.account_id, endpointId: reopened.endpoint_id },
      { delivery_id: deliveryId, attempt: reopened.attempts + 1, redelivery: true },
      now,
    );
    return true;
  });
}

/** `dlv_…` redelivers that delivery; `evt_…` every delivery of that event. Returns the delivery ids sent again. */
export async function redeliver(db: Kysely<DB>, id: string, now: Date): Promise<string[]> {
  let ids: string[];
  if (id.startsWith(ID_PREFIX.delivery)) {
    ids = (await db.selectFrom('notification_deliveries').select('id').where('id', '=', id).execute()).map(
      (row) => row.id,
    );
  } else if (id.startsWith(ID_PREFIX.event)) {
    const event = await db
      .selectFrom('notification_events')
      .select('account_id')
      .where('id', '=', id)
      .executeTakeFirst();
    const deliveries = event
      ? await db
          .selectFrom('notification_deliveries')
          .select('id')
          .where('account_id', '=', event.account_id)
          .where('event_id', '=', id)
          .orderBy('id')
          .execute()
      : [];
    ids = deliveries.map((row) => row.id);
  } else {
    throw new NotificationInputError(
      `"${id}" is neither a delivery id (${ID_PREFIX.delivery}…) nor an event id (${ID_PREFIX.event}…)`,
    );
  }
  if (ids.length === 0) throw new NotificationInputError(`no notification delivery or event ${id}`);
  const sent: string[] = [];
  for (const deliveryId of ids) if (await redeliverOne(db, deliveryId, now)) sent.push(deliveryId);
  return sent;
}

/** Every failed delivery (of one account, when given) is sent again. */
export async function redeliverAllFailed(
  db: Kysely<DB>,
  options: { accountId?: string },
  now: Date,
): Promise<string[]> {
  let query = db.selectFrom('notification_deliveries').select('id').where('status', '=', 'failed');
  if (options.accountId) query = query.where('account_id', '=', options.accountId);
  const sent: string[] = [];
  for (const row of await query.orderBy('id').execute()) if (await redeliverOne(db, row.id, now)) sent.push(row.id);
  return sent;
}
