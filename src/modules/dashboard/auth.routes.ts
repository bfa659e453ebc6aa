import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../http/app-context.ts';
import { AppError } from '../../http/errors.ts';
import { errorResponses } from '../../http/schemas.ts';
import { recordAudit } from './audit.ts';
import { actorOf, clearSessionCookie, requireSession, setSessionCookie } from './dashboard-http.ts';
import { Empty, LinkBody, LinkInfo, Password, SessionView, SignInBody } from './dashboard.schemas.ts';
import { dashboardConfig, tags } from './route-options.ts';
import { endSession, endUserSessions } from './sessions.ts';
import {
  disableTotp,
  enableTotp,
  inspectLink,
  redeemLink,
  sessionView,
  setupTotp,
  signIn,
  type Client,
} from './sign-in.service.ts';
import { newTotpSecret, otpauthUri } from './totp.ts';
import { findAccountUser } from './users.repo.ts';

const client = (request: FastifyRequest): Client => ({ ip: request.ip, userAgent: request.headers['user-agent'] });

/** Sign-in, one-time links, the current session, sign-out (here or everywhere) and the TOTP second factor. */
export function registerAuthRoutes(parent: FastifyInstance, { config, database, clock }: AppContext): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = database;
  const currentUser = async (request: FastifyRequest) => {
    const session = requireSession(request);
    const user = await findAccountUser(db, session.accountId, session.userId);
    if (!user) throw new AppError('authentication_required', 'Sign in to the dashboard');
    return user;
  };

  app.post(
    '/session',
    {
      config: dashboardConfig('signed_out'),
      schema: {
        tags,
        summary: 'Sign in with e-mail and password (and the authenticator code once enabled)',
        body: SignInBody,
        response: { 200: SessionView, ...errorResponses(401, 415, 422, 429) },
      },
    },
    async (request, reply) => {
      const signed = await signIn(db, config.masterKey, request.body, client(request), clock());
      setSessionCookie(reply, config.publicUrl, signed.cookieValue);
      return sessionView(db, signed.user.account_id, signed.user, signed.csrfToken);
    },
  );

  app.get(
    '/session',
    {
      config: dashboardConfig('signed_in'),
      schema: {
        tags,
        summary: 'The signed-in user, account and CSRF token',
        response: { 200: SessionView, ...errorResponses(401) },
      },
    },
    async (request) => {
      const session = requireSession(request);
      return sessionView(db, session.accountId, session, session.csrfToken);
    },
  );

  app.delete(
    '/session',
    {
      config: dashboardConfig('signed_in'),
      schema: { tags, summary: 'Sign out', response: { 204: Empty, ...errorResponses(401, 403) } },
    },
    async (request, reply) => {
      await endSession(db, requireSession(request).idHash);
      clearSessionCookie(reply, config.publicUrl);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/sessions/end_all',
    {
      config: dashboardConfig('signed_in'),
      schema: {
        tags,
        summary: 'Sign out everywhere (every session of this user)',
        response: { 204: Empty, ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const ended = await endUserSessions(db, actor.accountId, actor.userId);
      await recordAudit(db, {
        ...actor,
        action: 'user.signed_out_everywhere',
        subject: `user:${actor.userId}`,
        data: { sessions: ended },
        at: clock(),
      });
      clearSessionCookie(reply, config.publicUrl);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/links/inspect',
    {
      config: dashboardConfig('signed_out'),
      schema: {
        tags,
        summary: 'What a one-time link is for',
        body: Type.Object({ token: LinkBody.properties.token }, { additionalProperties: false }),
        response: { 200: LinkInfo, ...errorResponses(404, 422) },
      },
    },
    async (request) => inspectLink(db, request.body.token, clock()),
  );

  app.post(
    '/links/redeem',
    {
      config: dashboardConfig('signed_out'),
      schema: {
        tags,
        summary: 'Use a one-time sign-in or invite link (setting the password when given)',
        body: LinkBody,
        response: { 200: SessionView, ...errorResponses(404, 415, 422) },
      },
    },
    async (request, reply) => {
      const signed = await redeemLink(db, request.body, client(request), clock());
      setSessionCookie(reply, config.publicUrl, signed.cookieValue);
      return sessionView(db, signed.user.account_id, signed.user, signed.csrfToken);
    },
  );

  app.post(
    '/totp/setup',
    {
      config: dashboardConfig('signed_in'),
      schema: {
        tags,
        summary: 'Start the authenticator set-up: a new secret, shown once',
        response: {
          200: Type.Object({ secret: Type.String(), otpauth_uri: Type.String() }),
          ...errorResponses(401, 403, 409),
        },
      },
    },
    async (request) => {
      const user = await currentUser(request);
      const secret = newTotpSecret();
      await setupTotp(db, config.masterKey, user, secret, clock());
      return { secret, otpauth_uri: otpauthUri(secret, user.email) };
    },
  );

  app.post(
    '/totp/enable',
    {
      config: dashboardConfig('signed_in'),
      schema: {
        tags,
        summary: 'Confirm the authenticator with a code; sign-in asks for a code from then on',
        body: Type.Object({ code: Type.String({ pattern: '^[0-9]{6}$' }) }, { additionalProperties: false }),
        response: { 204: Empty, ...errorResponses(401, 403, 409, 422) },
      },
    },
    async (request, reply) => {
      const user = await currentUser(request);
      await enableTotp(db, config.masterKey, user, request.body.code, clock());
      await recordAudit(db, {
        ...actorOf(request),
        action: 'user.totp_enabled',
        subject: `user:${user.id}`,
        at: clock(),
      });
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/totp/disable',
    {
      config: dashboardConfig('signed_in'),
      schema: {
        tags,
        summary: 'Turn the authenticator off (needs the password)',
        body: Type.Object({ password: Password }, { additionalProperties: false }),
        response: { 204: Empty, ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const user = await currentUser(request);
      await disableTotp(db, user, request.body.password, clock());
      await recordAudit(db, {
        ...actorOf(request),
        action: 'user.totp_disabled',
        subject: `user:${user.id}`,
        at: clock(),
      });
      return reply.code(204).send(null);
    },
  );
}
