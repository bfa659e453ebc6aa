import cookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { AppError } from '../../http/errors.ts';
import { constantTimeEqual } from '../../lib/crypto.ts';
import { can, type Permission } from './roles.ts';
import { findSession, SESSION_MAX_MS, type ActiveSession } from './sessions.ts';

/**
 * How a dashboard route is reached (route `config.dashboard`): `signedOut` routes (sign-in, one-time links) need
 * no session; every other route needs a live session whose user's role has the route's permission. Every
 * state-changing request with a session must carry the session's CSRF token in `X-CSRF-Token`.
 */
export type DashboardAccess = { signedOut: true } | { permission: Permission | 'signed_in' };

declare module 'fastify' {
  interface FastifyContextConfig {
    dashboard?: DashboardAccess;
  }
  interface FastifyRequest {
    dashboardSession: ActiveSession | undefined;
  }
}

export const SESSION_COOKIE = 'checkout_dashboard';
export const CSRF_HEADER = 'x-csrf-token';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Secure everywhere but a local address: a browser does not send a Secure cookie over plain http. */
export function cookieIsSecure(publicUrl: string): boolean {
  const { hostname, protocol } = new URL(publicUrl);
  const local = ['localhost', '127.0.0.1', '[::1]'].includes(hostname) || hostname.endsWith('.localhost');
  return protocol === 'https:' || !local;
}

export function setSessionCookie(reply: FastifyReply, publicUrl: string, value: string): void {
  reply.setCookie(SESSION_COOKIE, value, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: cookieIsSecure(publicUrl),
    maxAge: SESSION_MAX_MS / 1000,
  });
}

export function clearSessionCookie(reply: FastifyReply, publicUrl: string): void {
  reply.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax', secure: cookieIsSecure(publicUrl) });
}

/** Registers the cookie parser and the session, permission and CSRF checks in the dashboard's scope. */
export async function registerDashboardAccess(app: FastifyInstance, db: Kysely<DB>, clock: () => Date): Promise<void> {
  await app.register(cookie, { hook: 'onRequest' });
  app.decorateRequest('dashboardSession', undefined);
  // onRequest: a signed-out or under-privileged caller learns nothing from validation or the route's rules.
  app.addHook('onRequest', async (request) => {
    const access = request.routeOptions.config?.dashboard;
    if (!access) throw new AppError('internal_error', 'A dashboard route must declare its access');
    const value = request.cookies[SESSION_COOKIE];
    const session = value ? await findSession(db, value, clock()) : undefined;
    request.dashboardSession = session;
    if ('signedOut' in access) return;
    if (!session) throw new AppError('authentication_required', 'Sign in to the dashboard');
    if (!SAFE_METHODS.has(request.method)) assertCsrf(request, session);
    if (access.permission !== 'signed_in' && !can(session.role, access.permission))
      throw new AppError('forbidden', 'Your role does not allow this');
  });
}

function assertCsrf(request: FastifyRequest, session: ActiveSession): void {
  const sent = request.headers[CSRF_HEADER];
  if (typeof sent !== 'string' || !constantTimeEqual(sent, session.csrfToken))
    throw new AppError('forbidden', 'The request lacks a valid X-CSRF-Token header');
}

/** The session of a route that requires one (the preHandler has checked it). */
export function requireSession(request: FastifyRequest): ActiveSession {
  if (!request.dashboardSession) throw new AppError('authentication_required', 'Sign in to the dashboard');
  return request.dashboardSession;
}

/** Who acted, for the audit log. */
export function actorOf(request: FastifyRequest) {
  const session = requireSession(request);
  return { accountId: session.accountId, userId: session.userId, actor: session.email, ip: request.ip };
}
