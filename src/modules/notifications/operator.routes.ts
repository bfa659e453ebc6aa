import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { GatewayName } from '../../gateways/port.ts';
import { AppError } from '../../http/errors.ts';
import { constantTimeEqual } from '../../lib/crypto.ts';
import { operatorToken } from '../../lib/operator-token.ts';
import { endListenSession, renewListenSession, startListenSession } from './listen-sessions.ts';
import { findTriggeredPayment, issueTriggerKit } from './trigger-kit.ts';

const SessionParams = Type.Object(
  { id: Type.String({ pattern: '^ep_[0-9a-f]{24}$' }) },
  { additionalProperties: false },
);
const Slug = Type.String({ minLength: 1, maxLength: 100 });

/**
 * The routes behind `checkout listen` and `checkout trigger`, under /cli/v1 and left out of the API reference:
 * they answer only the operator token (lib/operator-token.ts), compared in constant time.
 */
/** What the routes use of the app's context (the app passes its own). */
type OperatorDeps = {
  config: { masterKey: Buffer; production: boolean };
  database: { db: Kysely<DB> };
  clock: () => Date;
  gatewayUrls: Partial<Record<GatewayName, string>>;
};

export function registerOperatorRoutes(app: FastifyInstance, context: OperatorDeps): void {
  const { database, clock } = context;
  const { db } = database;
  const token = `Bearer ${operatorToken(context.config.masterKey)}`;
  app.register(
    async (scope) => {
      const api = scope.withTypeProvider<TypeBoxTypeProvider>();
      api.removeContentTypeParser('text/plain');
      api.addHook('onRequest', async (request) => {
        if (!constantTimeEqual(request.headers.authorization ?? '', token))
          throw new AppError('authentication_required', 'This route needs the operator token of `checkout` commands');
      });
      const route = { config: { access: 'open' as const } };

      api.post(
        '/listen_sessions',
        {
          ...route,
          schema: {
            hide: true,
            body: Type.Object(
              {
                account: Slug,
                forward_to: Type.String({ minLength: 1, maxLength: 2048 }),
                events: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 50 })),
              },
              { additionalProperties: false },
            ),
          },
        },
        async (request, reply) => {
          const { account, forward_to, events } = request.body;
          const session = await startListenSession(
            db,
            context.config.masterKey,
            { account, forwardTo: forward_to, eventTypes: events ?? [] },
            clock(),
          );
          return reply.code(201).send(session);
        },
      );

      api.post(
        '/listen_sessions/:id/lease',
        {
          ...route,
          schema: {
            hide: true,
            params: SessionParams,
            body: Type.Object(
              { after_attempt: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }) },
              { additionalProperties: false },
            ),
          },
        },
        async (request) => renewListenSession(db, request.params.id, request.body.after_attempt, clock()),
      );

      api.delete(
        '/listen_sessions/:id',
        { ...route, schema: { hide: true, params: SessionParams } },
        async (request, reply) => {
          await endListenSession(db, request.params.id, clock());
          return reply.code(204).send();
        },
      );

      // Sandbox actions play the buyer and the bank: nothing to trigger against live gateways.
      if (context.config.production) return;
      api.post(
        '/trigger_kits',
        {
          ...route,
          schema: { hide: true, body: Type.Object({ account: Slug }, { additionalProperties: false }) },
        },
        async (request, reply) =>
          reply.code(201).send(await issueTriggerKit(db, context.gatewayUrls, request.body.account, clock())),
      );

      api.get(
        '/trigger_kits/payments',
        {
          ...route,
          schema: {
            hide: true,
            querystring: Type.Object(
              { account: Slug, gateway_id: Type.String({ minLength: 1, maxLength: 200 }) },
              { additionalProperties: false },
            ),
          },
        },
        async (request) => findTriggeredPayment(db, request.query.account, request.query.gateway_id),
      );
    },
    { prefix: '/cli/v1' },
  );
}
