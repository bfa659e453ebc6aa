/** Dashboard test helpers: users with a password, signing in over HTTP, the session's headers. */

import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { hashPassword } from '../../src/modules/dashboard/passwords.ts';
import type { Role } from '../../src/modules/dashboard/roles.ts';
import { insertUser, updateUser } from '../../src/modules/dashboard/users.repo.ts';
import type { Tenant } from '../support/app.ts';

export const PASSWORD = 'uma senha bem comprida';
let hashed: Promise<string> | undefined;

export type SignedInUser = { id: string; email: string; cookie: string; csrf: string };

export async function addUser(
  database: Database,
  tenant: Tenant,
  role: Role,
  email = `${role}-${tenant.slug}@example.com`,
) {
  const user = await insertUser(database.db, { accountId: tenant.accountId, email, role });
  await updateUser(
    database.db,
    tenant.accountId,
    user.id,
    { password_hash: await (hashed ??= hashPassword(PASSWORD)) },
    new Date(),
  );
  return user;
}

/** The session cookie's `name=value` from a Set-Cookie answer. */
export function sessionCookie(setCookie: string | string[] | undefined): string {
  const header = [setCookie ?? []].flat().find((value) => value.startsWith('checkout_dashboard='));
  if (!header) throw new Error('no session cookie was set');
  return header.split(';')[0]!;
}

export async function signIn(
  app: FastifyInstance,
  email: string,
  password = PASSWORD,
  ip = '127.0.0.1',
): Promise<SignedInUser> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/dashboard/session',
    payload: { email, password },
    remoteAddress: ip,
  });
  if (res.statusCode !== 200) throw new Error(`sign-in failed: ${res.statusCode} ${res.body}`);
  const body = res.json() as { user: { id: string }; csrf_token: string };
  return { id: body.user.id, email, cookie: sessionCookie(res.headers['set-cookie']), csrf: body.csrf_token };
}

export async function userSignedIn(
  app: FastifyInstance,
  database: Database,
  tenant: Tenant,
  role: Role,
  email?: string,
) {
  const user = await addUser(database, tenant, role, email);
  return signIn(app, user.email);
}

/** The headers of a request made by `user`'s browser: its cookie and, for a change, the CSRF token. */
export function as(user: SignedInUser, extra: Record<string, string> = {}): Record<string, string> {
  return { cookie: user.cookie, 'x-csrf-token': user.csrf, ...extra };
}
