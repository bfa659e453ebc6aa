import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { AppError, validationFailed } from '../../http/errors.ts';
import { seal, unseal } from '../../lib/crypto.ts';
import { recordAudit } from './audit.ts';
import { hashPassword, passwordProblem, verifyPassword } from './passwords.ts';
import { permissionsOf, type Role } from './roles.ts';
import { createSession, endUserSessions } from './sessions.ts';
import { consumeLink, peekLink } from './sign-in-links.ts';
import { assertSignInAllowed, recordSignInFailure } from './sign-in-throttle.ts';
import { verifyTotp } from './totp.ts';
import { findAccountUser, findUserByEmail, updateUser, type DashboardUser } from './users.repo.ts';

export type Client = { ip: string; userAgent: string | undefined };
export type SignedIn = { cookieValue: string; csrfToken: string; user: DashboardUser };

const WRONG = 'The e-mail address or the password is wrong';

/** Email and password (and the TOTP code once enabled), throttled per address and per IP; every outcome audited. */
export async function signIn(
  db: Kysely<DB>,
  masterKey: Buffer,
  input: { email: string; password: string; totp_code?: string },
  client: Client,
  now: Date,
): Promise<SignedIn> {
  await assertSignInAllowed(db, input.email, client.ip, now);
  const user = await findUserByEmail(db, input.email);
  const passwordOk = await verifyPassword(input.password, user?.password_hash ?? null);
  if (!user || !passwordOk) {
    await recordSignInFailure(db, input.email, client.ip, now);
    if (user) await audit(db, user, 'user.sign_in_failed', client, now, { reason: 'password' });
    throw new AppError('invalid_credentials', WRONG);
  }
  if (user.totp_enabled_at && user.totp_secret_encrypted) {
    if (input.totp_code === undefined)
      throw new AppError('invalid_credentials', 'Enter the code of your authenticator app', [
        { field: 'body/totp_code', message: 'is required' },
      ]);
    if (!verifyTotp(unseal(masterKey, user.totp_secret_encrypted), input.totp_code, now)) {
      await recordSignInFailure(db, input.email, client.ip, now);
      await audit(db, user, 'user.sign_in_failed', client, now, { reason: 'totp' });
      throw new AppError('invalid_credentials', 'The authenticator code is wrong', [
        { field: 'body/totp_code', message: 'is wrong' },
      ]);
    }
  }
  const session = await createSession(db, { accountId: user.account_id, userId: user.id }, client, now);
  await audit(db, user, 'user.signed_in', client, now, { method: 'password' });
  return { ...session, user };
}

/** What a link is for, so the page can ask for a password when the user has none yet. */
export async function inspectLink(db: Kysely<DB>, token: string, now: Date) {
  const link = await peekLink(db, token, now);
  const user = link && (await findAccountUser(db, link.accountId, link.userId));
  if (!link || !user) throw new AppError('not_found', 'This link is unknown, used or expired');
  return { email: user.email, purpose: link.purpose, needs_password: user.password_hash === null };
}

/**
 * Uses a one-time link: sets the password when one is given (required if the user has none), ends the user's other
 * sessions when the password changes, and signs in.
 */
export async function redeemLink(
  db: Kysely<DB>,
  input: { token: string; password?: string },
  client: Client,
  now: Date,
): Promise<SignedIn> {
  const peeked = await peekLink(db, input.token, now);
  const candidate = peeked && (await findAccountUser(db, peeked.accountId, peeked.userId));
  if (!peeked || !candidate) throw new AppError('not_found', 'This link is unknown, used or expired');
  if (input.password === undefined && candidate.password_hash === null)
    throw validationFailed('Choose a password', [{ field: 'body/password', message: 'is required' }]);
  const passwordHash =
    input.password === undefined ? undefined : await newPasswordHash(input.password, candidate.email);
  const link = await consumeLink(db, input.token, now);
  if (!link) throw new AppError('not_found', 'This link is unknown, used or expired');
  if (passwordHash) {
    await endUserSessions(db, link.accountId, link.userId);
    await updateUser(db, link.accountId, link.userId, { password_hash: passwordHash }, now);
    await audit(db, candidate, 'user.password_set', client, now);
  }
  const session = await createSession(db, { accountId: link.accountId, userId: link.userId }, client, now);
  await audit(db, candidate, 'user.signed_in', client, now, { method: link.purpose });
  return { ...session, user: candidate };
}

export async function newPasswordHash(password: string, email: string): Promise<string> {
  const problem = passwordProblem(password, email);
  if (problem) throw validationFailed(`The password ${problem}`, [{ field: 'body/password', message: problem }]);
  return hashPassword(password);
}

export async function setupTotp(db: Kysely<DB>, masterKey: Buffer, user: DashboardUser, secret: string, now: Date) {
  if (user.totp_enabled_at) throw new AppError('conflict', 'The authenticator is already enabled');
  await updateUser(db, user.account_id, user.id, { totp_secret_encrypted: seal(masterKey, secret) }, now);
}

export async function enableTotp(db: Kysely<DB>, masterKey: Buffer, user: DashboardUser, code: string, now: Date) {
  if (user.totp_enabled_at) throw new AppError('conflict', 'The authenticator is already enabled');
  if (!user.totp_secret_encrypted) throw new AppError('conflict', 'Start the authenticator set-up first');
  if (!verifyTotp(unseal(masterKey, user.totp_secret_encrypted), code, now))
    throw validationFailed('The code is wrong', [{ field: 'body/code', message: 'is wrong' }]);
  await updateUser(db, user.account_id, user.id, { totp_enabled_at: now }, now);
}

export async function disableTotp(db: Kysely<DB>, user: DashboardUser, password: string, now: Date) {
  if (!(await verifyPassword(password, user.password_hash)))
    throw validationFailed('The password is wrong', [{ field: 'body/password', message: 'is wrong' }]);
  await updateUser(db, user.account_id, user.id, { totp_secret_encrypted: null, totp_enabled_at: null }, now);
}

async function audit(
  db: Kysely<DB>,
  user: DashboardUser,
  action: 'user.signed_in' | 'user.sign_in_failed' | 'user.password_set',
  client: Client,
  now: Date,
  data: Record<string, unknown> = {},
) {
  await recordAudit(db, {
    accountId: user.account_id,
    userId: user.id,
    actor: user.email,
    action,
    subject: `user:${user.id}`,
    data,
    ip: client.ip,
    at: now,
  });
}

export async function sessionView(db: Kysely<DB>, accountId: string, user: DashboardUser | SessionUser, csrf: string) {
  const account = await db
    .selectFrom('accounts as a')
    .leftJoin('companies as c', (join) => join.onRef('c.account_id', '=', 'a.id').on('c.is_primary', '=', true))
    .select(['a.id', 'a.name', 'a.slug', 'c.time_zone'])
    .where('a.id', '=', accountId)
    .executeTakeFirstOrThrow();
  const role = user.role as Role;
  return {
    user: {
      id: 'id' in user ? user.id : user.userId,
      email: user.email,
      role,
      locale: user.locale,
      totp_enabled: 'totp_enabled_at' in user ? user.totp_enabled_at !== null : user.totpEnabled,
    },
    account: {
      id: account.id,
      name: account.name,
      slug: account.slug,
      time_zone: account.time_zone ?? 'America/Sao_Paulo',
    },
    permissions: permissionsOf(role),
    csrf_token: csrf,
  };
}

type SessionUser = { userId: string; email: string; role: Role; locale: string; totpEnabled: boolean };
