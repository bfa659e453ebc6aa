import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../http/app-context.ts';
import { AppError, notFound, validationFailed } from '../../http/errors.ts';
import { errorResponses, NoQuery } from '../../http/schemas.ts';
import {
  createEndpoint,
  DuplicateEndpointUrlError,
  EndpointIdParams,
  endpointUrlProblem,
  endpointView,
  eventTypesProblem,
  findEndpointOfAccount,
  listEndpoints,
  MAX_GRACE_SECONDS,
  rotateEndpointSecret,
  setEndpointEnabled,
} from '../notifications/index.ts';
import { recordAudit } from './audit.ts';
import { actorOf } from './dashboard-http.ts';
import { dashboardConfig, tags } from './route-options.ts';

const NullableText = Type.Union([Type.String(), Type.Null()]);
const EndpointView = Type.Object({
  id: Type.String(),
  url: Type.String(),
  enabled: Type.Boolean(),
  event_types: Type.Array(Type.String()),
  description: NullableText,
  created_at: Type.String(),
});

/** Notification endpoints (owners and admins), through the notifications module's service; every change is audited. */
export function registerEndpointRoutes(parent: FastifyInstance, context: AppContext): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = context.database;
  const { clock, config } = context;
  const manage = dashboardConfig('developers.manage');

  const endpointResource = (row: Parameters<typeof endpointView>[0]) => {
    const view = endpointView(row, clock());
    return {
      id: view.id,
      url: view.url,
      enabled: view.enabled,
      event_types: view.events,
      description: view.description ?? null,
      created_at: row.created_at.toISOString(),
    };
  };

  app.get(
    '/notification_endpoints',
    {
      config: manage,
      schema: {
        tags,
        summary: "The account's notification endpoints",
        querystring: NoQuery,
        response: { 200: Type.Object({ data: Type.Array(EndpointView) }), ...errorResponses(401, 403) },
      },
    },
    async (request) => ({ data: (await listEndpoints(db, actorOf(request).accountId, {})).map(endpointResource) }),
  );

  app.post(
    '/notification_endpoints',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Add an endpoint; its signing secret is shown once',
        body: Type.Object(
          {
            url: Type.String({ minLength: 1, maxLength: 2000 }),
            event_types: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 50 })),
            description: Type.Optional(Type.String({ maxLength: 500 })),
          },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Object({ endpoint: EndpointView, secret: Type.String() }),
          ...errorResponses(401, 403, 409, 422),
        },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const { url, event_types: eventTypes = [], description } = request.body;
      const problem = endpointUrlProblem(url);
      if (problem)
        throw validationFailed('The notification endpoint is invalid', [{ field: 'body/url', message: problem }]);
      const typesProblem = eventTypesProblem(eventTypes);
      if (typesProblem)
        throw validationFailed('The notification endpoint is invalid', [
          { field: 'body/event_types', message: typesProblem },
        ]);
      const created = await createEndpoint(
        db,
        config.masterKey,
        {
          accountId: actor.accountId,
          url,
          eventTypes,
          description: description ?? null,
          companyId: null,
          enabled: true,
        },
        clock(),
      ).catch((error: unknown) => {
        if (error instanceof DuplicateEndpointUrlError || (error as { code?: unknown }).code === '23505')
          throw new AppError('conflict', 'This URL is already a notification endpoint of the account', [
            { field: 'body/url', message: 'already registered' },
          ]);
        throw error;
      });
      await recordAudit(db, {
        ...actor,
        action: 'notification_endpoint.created',
        subject: `notification_endpoint:${created.endpoint.id}`,
        data: { url },
        at: clock(),
      });
      reply.code(201);
      return { endpoint: endpointResource(created.endpoint), secret: created.secret };
    },
  );

  app.patch(
    '/notification_endpoints/:id',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Enable or disable an endpoint',
        params: EndpointIdParams,
        body: Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false }),
        response: { 200: EndpointView, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      if (!(await findEndpointOfAccount(db, actor.accountId, request.params.id)))
        throw notFound('Notification endpoint');
      const endpoint = await setEndpointEnabled(db, request.params.id, request.body.enabled, clock());
      await recordAudit(db, {
        ...actor,
        action: 'notification_endpoint.updated',
        subject: `notification_endpoint:${endpoint.id}`,
        data: { enabled: request.body.enabled },
        at: clock(),
      });
      return endpointResource(endpoint);
    },
  );

  app.post(
    '/notification_endpoints/:id/rotate_secret',
    {
      config: manage,
      schema: {
        tags,
        summary: "Rotate an endpoint's signing secret; the old one signs too during the grace period",
        params: EndpointIdParams,
        body: Type.Object(
          { grace_seconds: Type.Integer({ minimum: 0, maximum: MAX_GRACE_SECONDS }) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ endpoint: EndpointView, secret: Type.String() }),
          ...errorResponses(401, 403, 404, 422),
        },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      if (!(await findEndpointOfAccount(db, actor.accountId, request.params.id)))
        throw notFound('Notification endpoint');
      const rotated = await rotateEndpointSecret(
        db,
        config.masterKey,
        request.params.id,
        request.body.grace_seconds,
        clock(),
      );
      await recordAudit(db, {
        ...actor,
        action: 'notification_endpoint.secret_rotated',
        subject: `notification_endpoint:${rotated.endpoint.id}`,
        data: { grace_seconds: request.body.grace_seconds },
        at: clock(),
      });
      return { endpoint: endpointResource(rotated.endpoint), secret: rotated.secret };
    },
  );
}
