import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { AppError, businessRule, notFound } from '../../http/errors.ts';
import { recordAudit } from './audit.ts';
import type { Mailer } from './mailer.ts';
import type { Role } from './roles.ts';
import { endUserSessions } from './sessions.ts';
import { issueLink, linkUrl } from './sign-in-links.ts';
import {
  countOwners,
  deleteUser,
  findAccountUser,
  findUserByEmail,
  insertUser,
  updateUser,
  type DashboardUser,
} from './users.repo.ts';

export type Actor = { accountId: string; userId: string | null; actor: string; ip?: string };

/** A new user of the account with a one-time invite link (7 days), e-mailed when a mailer is configured. */
export async function inviteUser(
  db: Kysely<DB>,
  deps: { publicUrl: string; mailer: Mailer | undefined },
  actor: Actor,
  input: { email: string; role: Role },
  now: Date,
): Promise<{ user: DashboardUser; inviteUrl: string; emailed: boolean }> {
  if (await findUserByEmail(db, input.email))
    throw new AppError('conflict', 'This e-mail address already has a dashboard user', [
      { field: 'body/email', message: 'is taken' },
    ]);
  const user = await insertUser(db, { accountId: actor.accountId, email: input.email, role: input.role });
  const token = await issueLink(db, { accountId: actor.accountId, userId: user.id }, 'invite', now);
  const inviteUrl = linkUrl(deps.publicUrl, token);
  await recordAudit(db, {
    ...actor,
    action: 'user.invited',
    subject: `user:${user.id}`,
    data: { email: user.email, role: user.role },
    at: now,
  });
  if (!deps.mailer) return { user, inviteUrl, emailed: false };
  const account = await db
    .selectFrom('accounts')
    .select('name')
    .where('id', '=', actor.accountId)
    .executeTakeFirstOrThrow();
  await deps.mailer.sendInvite({ to: user.email, accountName: account.name, url: inviteUrl, locale: user.locale });
  return { user, inviteUrl, emailed: true };
}

/** A one-time sign-in link (1 hour) for an existing user, or an invite link for a user without a password. */
export async function signInLinkFor(
  db: Kysely<DB>,
  publicUrl: string,
  user: DashboardUser,
  now: Date,
): Promise<string> {
  const purpose = user.password_hash === null ? 'invite' : 'sign_in';
  return linkUrl(publicUrl, await issueLink(db, { accountId: user.account_id, userId: user.id }, purpose, now));
}

async function accountUser(db: Kysely<DB>, accountId: string, userId: string): Promise<DashboardUser> {
  const user = await findAccountUser(db, accountId, userId);
  if (!user) throw notFound('User');
  return user;
}

/** The account keeps at least one owner: the last one can be neither demoted nor removed. */
async function assertNotLastOwner(db: Kysely<DB>, user: DashboardUser): Promise<void> {
  if (user.role === 'owner' && (await countOwners(db, user.account_id)) <= 1)
    throw businessRule('The account must keep at least one owner');
}

export async function changeRole(
  db: Kysely<DB>,
  actor: Actor,
  userId: string,
  role: Role,
  now: Date,
): Promise<DashboardUser> {
  const user = await accountUser(db, actor.accountId, userId);
  if (user.role === role) return user;
  if (role !== 'owner') await assertNotLastOwner(db, user);
  await updateUser(db, actor.accountId, userId, { role }, now);
  await recordAudit(db, {
    ...actor,
    action: 'user.role_changed',
    subject: `user:${userId}`,
    data: { email: user.email, from: user.role, to: role },
    at: now,
  });
  return { ...user, role };
}

export async function removeUser(db: Kysely<DB>, actor: Actor, userId: string, now: Date): Promise<void> {
  const user = await accountUser(db, actor.accountId, userId);
  await assertNotLastOwner(db, user);
  await endUserSessions(db, actor.accountId, userId);
  await deleteUser(db, actor.accountId, userId);
  await recordAudit(db, {
    ...actor,
    action: 'user.removed',
    subject: `user:${userId}`,
    data: { email: user.email, role: user.role },
    at: now,
  });
}

export function userView(user: DashboardUser) {
  return {
    id: user.id,
    email: user.email,
    role: user.role,
    totp_enabled: user.totp_enabled_at !== null,
    has_password: user.password_hash !== null,
    created_at: user.created_at.toISOString(),
  };
}
