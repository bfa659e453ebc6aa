import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Role } from './roles.ts';

export type DashboardUser = {
  id: string;
  account_id: string;
  email: string;
  role: Role;
  password_hash: string | null;
  totp_secret_encrypted: string | null;
  totp_enabled_at: Date | null;
  locale: string;
  created_at: Date;
};

const COLUMNS = [
  'id',
  'account_id',
  'email',
  'role',
  'password_hash',
  'totp_secret_encrypted',
  'totp_enabled_at',
  'locale',
  'created_at',
] as const;

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function findUserByEmail(db: Kysely<DB>, email: string): Promise<DashboardUser | undefined> {
  return (await db
    .selectFrom('dashboard_users')
    .select(COLUMNS)
    .where('email', '=', normaliseEmail(email))
    .executeTakeFirst()) as DashboardUser | undefined;
}

/** One user of the account; another account's user is not found. */
export async function findAccountUser(
  db: Kysely<DB>,
  accountId: string,
  userId: string,
): Promise<DashboardUser | undefined> {
  return (await db
    .selectFrom('dashboard_users')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', userId)
    .executeTakeFirst()) as DashboardUser | undefined;
}

export async function listAccountUsers(db: Kysely<DB>, accountId: string): Promise<DashboardUser[]> {
  return (await db
    .selectFrom('dashboard_users')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .orderBy('created_at')
    .orderBy('id')
    .execute()) as DashboardUser[];
}

export async function insertUser(
  db: Kysely<DB>,
  user: { accountId: string; email: string; role: Role },
): Promise<DashboardUser> {
  return (await db
    .insertInto('dashboard_users')
    .values({ id: randomUUID(), account_id: user.accountId, email: normaliseEmail(user.email), role: user.role })
    .returning(COLUMNS)
    .executeTakeFirstOrThrow()) as DashboardUser;
}

export async function countOwners(db: Kysely<DB>, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('dashboard_users')
    .select((eb) => eb.fn.countAll<number>().as('owners'))
    .where('account_id', '=', accountId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  return Number(row.owners);
}

export async function updateUser(
  db: Kysely<DB>,
  accountId: string,
  userId: string,
  changes: Partial<{
    role: Role;
    password_hash: string;
    totp_secret_encrypted: string | null;
    totp_enabled_at: Date | null;
    locale: string;
  }>,
  now: Date,
): Promise<void> {
  await db
    .updateTable('dashboard_users')
    .set({ ...changes, updated_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', userId)
    .execute();
}

export async function deleteUser(db: Kysely<DB>, accountId: string, userId: string): Promise<void> {
  await db.deleteFrom('dashboard_users').where('account_id', '=', accountId).where('id', '=', userId).execute();
}

/** The user with this address in the account, created with `role` when missing (the demo seed's owner). */
export async function ensureDashboardUser(
  db: Kysely<DB>,
  user: { accountId: string; email: string; role: Role },
): Promise<DashboardUser> {
  await db
    .insertInto('dashboard_users')
    .values({ id: randomUUID(), account_id: user.accountId, email: normaliseEmail(user.email), role: user.role })
    .onConflict((oc) => oc.column('email').doNothing())
    .execute();
  return (await db
    .selectFrom('dashboard_users')
    .select(COLUMNS)
    .where('account_id', '=', user.accountId)
    .where('email', '=', normaliseEmail(user.email))
    .executeTakeFirstOrThrow()) as DashboardUser;
}
