import { type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { DB, NotificationEndpoints } from '../../db/schema.ts';

export type EndpointRow = Selectable<NotificationEndpoints>;

export async function insertEndpoint(db: Kysely<DB>, values: Insertable<NotificationEndpoints>): Promise<EndpointRow> {
  return db.insertInto('notification_endpoints').values(values).returningAll().executeTakeFirstOrThrow();
}

export function updateEndpoint(
  db: Kysely<DB>,
  accountId: string,
  id: string,
  values: Updateable<NotificationEndpoints>,
): Promise<EndpointRow | undefined> {
  return db
    .updateTable('notification_endpoints')
    .set(values)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** By id alone: the operator's CLI names endpoints across tenants; everything else is scoped by account. */
export function findEndpointById(db: Kysely<DB>, id: string): Promise<EndpointRow | undefined> {
  return db.selectFrom('notification_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findEndpointByUrl(db: Kysely<DB>, accountId: string, url: string): Promise<EndpointRow | undefined> {
  return db
    .selectFrom('notification_endpoints')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('url', '=', url)
    .where('listen_expires_at', 'is', null)
    .executeTakeFirst();
}

export function listEndpoints(
  db: Kysely<DB>,
  accountId: string,
  options: { enabled?: boolean } = {},
): Promise<EndpointRow[]> {
  // Listen sessions are the CLI's, not the merchant's: they are never listed.
  let query = db
    .selectFrom('notification_endpoints')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('listen_expires_at', 'is', null);
  if (options.enabled !== undefined) query = query.where('enabled', '=', options.enabled);
  return query.orderBy('created_at').orderBy('id').execute();
}

/**
 * The account's enabled endpoints, with what decides whether one wants an event (company and types); a listen
 * session counts while its lease lasts.
 */
export function enabledEndpoints(db: Kysely<DB>, accountId: string, now: Date) {
  return db
    .selectFrom('notification_endpoints')
    .select(['id', 'company_id', 'event_types'])
    .where('account_id', '=', accountId)
    .where('enabled', '=', true)
    .where((eb) => eb.or([eb('listen_expires_at', 'is', null), eb('listen_expires_at', '>', now)]))
    .orderBy('id')
    .execute();
}

export function findAccountBySlug(db: Kysely<DB>, slug: string) {
  return db.selectFrom('accounts').select(['id', 'slug']).where('slug', '=', slug).executeTakeFirst();
}

export function findCompanyOfAccount(db: Kysely<DB>, accountId: string, slug: string) {
  return db
    .selectFrom('companies')
    .select('id')
    .where('account_id', '=', accountId)
    .where('slug', '=', slug)
    .executeTakeFirst();
}

/** Locks the endpoint row so two rotations cannot interleave. */
export function lockEndpoint(db: Kysely<DB>, id: string): Promise<EndpointRow | undefined> {
  return db.selectFrom('notification_endpoints').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/** The endpoint only when it belongs to the account: another account's id reads as missing. */
export function findEndpointOfAccount(db: Kysely<DB>, accountId: string, id: string): Promise<EndpointRow | undefined> {
  return db
    .selectFrom('notification_endpoints')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('listen_expires_at', 'is', null)
    .executeTakeFirst();
}
