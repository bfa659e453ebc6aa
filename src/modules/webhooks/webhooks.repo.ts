import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';

export type Executor = Kysely<DB> | Transaction<DB>;
export type Receiver = 'gateway_a' | 'gateway_b' | 'bank' | 'platform' | 'invoicing' | 'topic';
export type CredentialReceiver = 'gateway_a' | 'gateway_b' | 'bank' | 'invoicing';

/** `paymentRef`: the gateway id of the payment the event is about (see event-order.ts); absent is none. */
export type NewWebhookEvent = {
  receiver: Receiver;
  accountId: string | null;
  companyId: number | null;
  eventId: string;
  type: string;
  payload: unknown;
  paymentRef?: string | null;
  at: Date;
};
export type StoredEvent = {
  id: number;
  receiver: Receiver;
  account_id: string | null;
  company_id: number | null;
  external_event_id: string;
  event_type: string;
  payload: unknown;
  status: string;
  payment_ref: string | null;
};

const STORED_EVENT_COLUMNS = [
  'id',
  'receiver',
  'account_id',
  'company_id',
  'external_event_id',
  'event_type',
  'payload',
  'status',
  'payment_ref',
] as const;

/**
 * Inserts the event unless (receiver, company, sender event id) is already stored and, with it, the job that
 * processes it, in one statement (one round trip, one commit). Returns the event's id, or undefined for a duplicate.
 */
export async function insertEventWithJob(
  executor: Executor,
  event: NewWebhookEvent,
  job: { type: string; runAt: Date },
): Promise<number | undefined> {
  const row = await executor
    .with('stored', (db) =>
      db
        .insertInto('webhook_events')
        .values({
          account_id: event.accountId,
          company_id: event.companyId,
          receiver: event.receiver,
          external_event_id: event.eventId,
          event_type: event.type,
          payload: JSON.stringify(event.payload ?? null),
          payment_ref: event.paymentRef ?? null,
          received_at: event.at,
        })
        // Repeats webhook_events_dedup_idx, an expression index.
        .onConflict((oc) => oc.expression(sql`receiver, (coalesce(company_id, 0)), external_event_id`).doNothing())
        .returning(['id', 'account_id']),
    )
    .with('queued', (db) =>
      db
        .insertInto('jobs')
        .columns(['type', 'payload', 'account_id', 'run_at', 'dedup_key'])
        .expression((eb) =>
          eb.selectFrom('stored').select([
            sql<string>`cast(${job.type} as text)`.as('type'),
            sql<string>`jsonb_build_object('event_id', stored.id)`.as('payload'),
            'stored.account_id',
            // The application clock, as every job's run_at (see insertJob).
            sql<Date>`cast(${job.runAt} as timestamptz)`.as('run_at'),
            sql<string>`${`${job.type}:`} || stored.id`.as('dedup_key'),
          ]),
        ),
    )
    .selectFrom('stored')
    .select('id')
    .executeTakeFirst();
  return row === undefined ? undefined : Number(row.id);
}

export function findEventByKey(
  executor: Executor,
  receiver: Receiver,
  companyId: number | null,
  eventId: string,
): Promise<StoredEvent | undefined> {
  return executor
    .selectFrom('webhook_events')
    .select(STORED_EVENT_COLUMNS)
    .where('receiver', '=', receiver)
    .where(sql<number>`coalesce(company_id, 0)`, '=', companyId ?? 0)
    .where('external_event_id', '=', eventId)
    .executeTakeFirst() as Promise<StoredEvent | undefined>;
}

/** The event row, locked for the transaction that processes it; undefined when it is gone. */
export function lockEvent(executor: Executor, id: number): Promise<StoredEvent | undefined> {
  return executor
    .selectFrom('webhook_events')
    .select(STORED_EVENT_COLUMNS)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst() as Promise<StoredEvent | undefined>;
}

/** Marks a received event done; only a `received` row moves, so a concurrent retry cannot mark it twice. */
export async function markEvent(
  executor: Executor,
  id: number,
  status: 'processed' | 'ignored',
  at: Date,
): Promise<void> {
  await executor
    .updateTable('webhook_events')
    .set({ status, processed_at: at })
    .where('id', '=', id)
    .where('status', '=', 'received')
    .returning('id')
    .execute();
}

/**
 * Serialises the processing of one payment's events (across workers and processes) until the transaction ends.
 * The two-key form keeps these locks apart from single-key ones (the migrations' lock).
 */
export async function lockPaymentRef(executor: Executor, accountId: string, paymentRef: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtext(${accountId}), hashtext(${paymentRef}))`.execute(executor);
}

/**
 * The first earlier event about the same payment that is still waiting its first attempt and will get one (its
 * job is live); undefined when none. An event already attempted (a refund waiting for its paid event) is not
 * waited for, and neither is one whose job is dead.
 */
export async function findEarlierUnattemptedEvent(
  executor: Executor,
  event: { id: number; accountId: string; paymentRef: string },
  jobType: string,
): Promise<number | undefined> {
  const row = await executor
    .selectFrom('webhook_events as e')
    .select('e.id')
    .where('e.account_id', '=', event.accountId)
    .where('e.payment_ref', '=', event.paymentRef)
    .where('e.id', '<', event.id)
    // Literal, as the partial indexes' predicates, so the planner matches them whatever the plan's parameters.
    .where(sql<boolean>`e.status = 'received'`)
    .where('e.attempts', '=', 0)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('jobs as j')
          .select('j.id')
          .where('j.dedup_key', '=', sql<string>`${`${jobType}:`} || e.id`)
          .where(sql<boolean>`j.status IN ('queued', 'running')`),
      ),
    )
    .orderBy('e.id')
    .limit(1)
    .executeTakeFirst();
  return row === undefined ? undefined : Number(row.id);
}

/** The payment's next event still to apply after event `afterId`, in the order received; undefined when none. */
export async function findNextEventOfPayment(
  executor: Executor,
  event: { afterId: number; accountId: string; paymentRef: string },
): Promise<number | undefined> {
  const row = await executor
    .selectFrom('webhook_events')
    .select('id')
    .where('account_id', '=', event.accountId)
    .where('payment_ref', '=', event.paymentRef)
    .where('id', '>', event.afterId)
    .where(sql<boolean>`status = 'received'`)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row === undefined ? undefined : Number(row.id);
}

export function findEventPaymentRef(executor: Executor, id: number) {
  return executor
    .selectFrom('webhook_events')
    .select(['account_id', 'payment_ref'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/** A deferral is not an attempt: the event keeps its place ahead of later events of its payment. */
export async function recordDeferral(executor: Executor, id: number, reason: string): Promise<void> {
  await executor
    .updateTable('webhook_events')
    .set({ last_error: reason.slice(0, 1000) })
    .where('id', '=', id)
    .returning('id')
    .execute();
}

export async function recordFailure(executor: Executor, id: number, error: string): Promise<void> {
  await executor
    .updateTable('webhook_events')
    .set((eb) => ({ attempts: eb('attempts', '+', 1), last_error: error.slice(0, 1000) }))
    .where('id', '=', id)
    .returning('id')
    .execute();
}

export type CredentialRow = {
  account_id: string;
  company_id: number;
  username: string | null;
  secret_encrypted: string;
  previous_secret_encrypted: string | null;
};

export function findCredential(
  executor: Executor,
  receiver: CredentialReceiver,
  companyId: number,
): Promise<CredentialRow | undefined> {
  return executor
    .selectFrom('company_webhook_credentials')
    .select(['account_id', 'company_id', 'username', 'secret_encrypted', 'previous_secret_encrypted'])
    .where('receiver', '=', receiver)
    .where('company_id', '=', companyId)
    .executeTakeFirst();
}

export function findCredentialByUsername(
  executor: Executor,
  receiver: CredentialReceiver,
  username: string,
): Promise<CredentialRow | undefined> {
  return executor
    .selectFrom('company_webhook_credentials')
    .select(['account_id', 'company_id', 'username', 'secret_encrypted', 'previous_secret_encrypted'])
    .where('receiver', '=', receiver)
    .where('username', '=', username)
    .executeTakeFirst();
}

export function findCompany(
  executor: Executor,
  companyId: number,
): Promise<{ id: number; account_id: string } | undefined> {
  return executor.selectFrom('companies').select(['id', 'account_id']).where('id', '=', companyId).executeTakeFirst();
}

/** The gateway that issued a payment of this account, found by the gateway's id for it. */
export async function findPaymentGateway(
  executor: Executor,
  accountId: string,
  gatewayId: string,
): Promise<string | undefined> {
  const row = await executor
    .selectFrom('payments')
    .select('gateway')
    .where('account_id', '=', accountId)
    .where('gateway_id', '=', gatewayId)
    .executeTakeFirst();
  return row?.gateway ?? undefined;
}

export function findPaymentByUid(
  executor: Executor,
  uid: string,
): Promise<{ id: number; account_id: string } | undefined> {
  return executor.selectFrom('payments').select(['id', 'account_id']).where('uid', '=', uid).executeTakeFirst();
}
