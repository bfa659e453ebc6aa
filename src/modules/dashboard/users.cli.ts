import { parseArgs } from 'node:util';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { recordAudit } from './audit.ts';
import { ROLES, type Role } from './roles.ts';
import { signInLinkFor } from './users.service.ts';
import { findAccountUser, findUserByEmail, insertUser, normaliseEmail } from './users.repo.ts';

export class UsersUsageError extends Error {}

const USAGE = 'usage: users add --account SLUG --email EMAIL --role owner|admin|finance|support';
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * `checkout users add`: creates the user (or finds the one with that address in the same account) and prints a
 * one-time sign-in link. A user without a password gets an invite link, where the password is chosen.
 */
export async function runUsersCommand(
  args: string[],
  deps: { db: Kysely<DB>; publicUrl: string; now: Date },
): Promise<{ user_id: string; email: string; role: Role; sign_in_url: string; expires_in_seconds: number }> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { account: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' } },
  });
  if (positionals[0] !== 'add' || positionals.length > 1 || !values.account || !values.email || !values.role)
    throw new UsersUsageError(USAGE);
  if (!(ROLES as readonly string[]).includes(values.role))
    throw new UsersUsageError(`--role must be one of ${ROLES.join(', ')}`);
  const email = normaliseEmail(values.email);
  if (!EMAIL.test(email) || email.length > 254) throw new UsersUsageError('--email must be an e-mail address');
  const account = await deps.db
    .selectFrom('accounts')
    .select('id')
    .where('slug', '=', values.account)
    .executeTakeFirst();
  if (!account) throw new UsersUsageError(`no account with slug ${values.account}`);
  let user = await findUserByEmail(deps.db, email);
  if (user && user.account_id !== account.id) throw new UsersUsageError(`${email} is a user of another account`);
  if (user && user.role !== values.role)
    throw new UsersUsageError(`${email} is already a user of this account, with the role ${user.role}`);
  if (!user) {
    user = await insertUser(deps.db, { accountId: account.id, email, role: values.role as Role });
    await recordAudit(deps.db, {
      accountId: account.id,
      userId: null,
      actor: 'cli',
      action: 'user.invited',
      subject: `user:${user.id}`,
      data: { email, role: user.role },
      at: deps.now,
    });
  }
  const url = await signInLinkFor(deps.db, deps.publicUrl, user, deps.now);
  return {
    user_id: user.id,
    email,
    role: user.role,
    sign_in_url: url,
    expires_in_seconds: user.password_hash === null ? 7 * 86_400 : 3600,
  };
}

/** A fresh one-time sign-in link for the demo owner, printed by `checkout start`. */
export async function demoOwnerSignInLink(
  db: Kysely<DB>,
  publicUrl: string,
  demo: { account_id: string; dashboard_owner: { user_id: string } },
  now: Date,
): Promise<string> {
  const user = await findAccountUser(db, demo.account_id, demo.dashboard_owner.user_id);
  if (!user) throw new Error('the demo owner is missing');
  return signInLinkFor(db, publicUrl, user, now);
}
