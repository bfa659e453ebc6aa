import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../http/app-context.ts';
import { errorResponses, NoQuery } from '../../http/schemas.ts';
import { listAudit } from './audit.ts';
import { actorOf } from './dashboard-http.ts';
import { Email, Empty, RoleSchema, UserIdParams, UserView } from './dashboard.schemas.ts';
import type { Mailer } from './mailer.ts';
import { dashboardConfig, tags } from './route-options.ts';
import { changeRole, inviteUser, removeUser, userView } from './users.service.ts';
import { listAccountUsers } from './users.repo.ts';

const AuditEntryView = Type.Object({
  id: Type.Integer(),
  actor: Type.String(),
  action: Type.String(),
  subject: Type.Union([Type.String(), Type.Null()]),
  data: Type.Record(Type.String(), Type.Unknown()),
  ip: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
});

/** Users and invites (owners), and the audit log (owners). */
export function registerUserRoutes(parent: FastifyInstance, context: AppContext, mailer: Mailer | undefined): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = context.database;
  const { clock } = context;

  app.get(
    '/users',
    {
      config: dashboardConfig('users.manage'),
      schema: {
        tags,
        summary: "The account's dashboard users",
        querystring: NoQuery,
        response: { 200: Type.Object({ data: Type.Array(UserView) }), ...errorResponses(401, 403) },
      },
    },
    async (request) => ({ data: (await listAccountUsers(db, actorOf(request).accountId)).map(userView) }),
  );

  app.post(
    '/users',
    {
      config: dashboardConfig('users.manage'),
      schema: {
        tags,
        summary: 'Invite a user: the one-time invite link is shown once (and e-mailed when SMTP_URL is set)',
        body: Type.Object({ email: Email, role: RoleSchema }, { additionalProperties: false }),
        response: {
          201: Type.Object({ user: UserView, invite_url: Type.String(), emailed: Type.Boolean() }),
          ...errorResponses(401, 403, 409, 422),
        },
      },
    },
    async (request, reply) => {
      const invited = await inviteUser(
        db,
        { publicUrl: context.config.publicUrl, mailer },
        actorOf(request),
        request.body,
        clock(),
      );
      reply.code(201);
      return { user: userView(invited.user), invite_url: invited.inviteUrl, emailed: invited.emailed };
    },
  );

  app.patch(
    '/users/:id',
    {
      config: dashboardConfig('users.manage'),
      schema: {
        tags,
        summary: "Change a user's role (effective on the user's next request)",
        params: UserIdParams,
        body: Type.Object({ role: RoleSchema }, { additionalProperties: false }),
        response: { 200: UserView, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => userView(await changeRole(db, actorOf(request), request.params.id, request.body.role, clock())),
  );

  app.delete(
    '/users/:id',
    {
      config: dashboardConfig('users.manage'),
      schema: {
        tags,
        summary: 'Remove a user and end their sessions',
        params: UserIdParams,
        response: { 204: Empty, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request, reply) => {
      await removeUser(db, actorOf(request), request.params.id, clock());
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/audit_log',
    {
      config: dashboardConfig('audit.read'),
      schema: {
        tags,
        summary: "The account's audit log, newest first",
        querystring: Type.Object(
          {
            before: Type.Optional(Type.Integer({ minimum: 1 })),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ data: Type.Array(AuditEntryView) }), ...errorResponses(401, 403, 422) },
      },
    },
    async (request) => {
      const rows = await listAudit(db, actorOf(request).accountId, {
        before: request.query.before,
        limit: request.query.limit ?? 50,
      });
      return {
        data: rows.map((row) => ({
          ...row,
          data: row.data as Record<string, unknown>,
          created_at: row.created_at.toISOString(),
        })),
      };
    },
  );
}
