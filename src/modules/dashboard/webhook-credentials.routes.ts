import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { DashboardDeps } from './route-options.ts';
import { errorResponses, NoQuery } from '../../http/schemas.ts';
import { topicOptionsFromEnv } from '../webhooks/index.ts';
import { recordAudit } from './audit.ts';
import { actorOf } from './dashboard-http.ts';
import { dashboardConfig, tags } from './route-options.ts';
import { listWebhookCredentials, RECEIVER_NAMES, rotateWebhookCredential } from './webhook-credentials.service.ts';

const Receiver = Type.Enum(RECEIVER_NAMES);
const NullableText = Type.Union([Type.String(), Type.Null()]);

const CredentialView = Type.Object({
  company_id: Type.Integer(),
  company_name: Type.String(),
  receiver: Receiver,
  auth: Type.Union([Type.Literal('basic'), Type.Literal('signature'), Type.Literal('topic')]),
  url: Type.String({ description: "the address to paste into the sender's panel" }),
  configured: Type.Boolean(),
  username: NullableText,
  set_at: NullableText,
  previous_secret_accepted: Type.Boolean(),
  grace: Type.Union([
    Type.Literal('previous_until_next_rotation'),
    Type.Literal('none'),
    Type.Literal('not_applicable'),
  ]),
  rotatable: Type.Boolean(),
});

const RotatedCredential = Type.Object({
  receiver: Receiver,
  url: Type.String(),
  username: NullableText,
  secret: Type.String({ description: 'shown once: the password (Basic receivers) or the signing secret' }),
  previous_secret_accepted: Type.Boolean(),
});

/** Inbound webhook credentials (owners and admins): status and rotation, never a stored secret. */
export function registerWebhookCredentialRoutes(parent: FastifyInstance, context: DashboardDeps): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = context.database;
  const { clock } = context;
  const { publicUrl, masterKey } = context.config;
  const manage = dashboardConfig('developers.manage');
  const topicConfigured = topicOptionsFromEnv().topicArns.length > 0;

  app.get(
    '/webhook_credentials',
    {
      config: manage,
      schema: {
        tags,
        summary: "Each receiver of each company: the URL for the sender's panel and the credential's status",
        querystring: NoQuery,
        response: { 200: Type.Object({ data: Type.Array(CredentialView) }), ...errorResponses(401, 403) },
      },
    },
    async (request) => ({
      data: await listWebhookCredentials(db, actorOf(request).accountId, { publicUrl, topicConfigured }),
    }),
  );

  app.post(
    '/webhook_credentials/:company_id/:receiver/rotate',
    {
      config: manage,
      schema: {
        tags,
        summary: 'A new secret, shown once (gateway_b may keep accepting the previous one until the next rotation)',
        params: Type.Object(
          { company_id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }), receiver: Receiver },
          { additionalProperties: false },
        ),
        body: Type.Object(
          { keep_previous: Type.Optional(Type.Boolean({ description: 'gateway_b only; default true' })) },
          { additionalProperties: false },
        ),
        response: { 201: RotatedCredential, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const { company_id: companyId, receiver } = request.params;
      const rotated = await rotateWebhookCredential(
        db,
        masterKey,
        { accountId: actor.accountId, companyId, receiver, publicUrl },
        request.body.keep_previous ?? true,
        clock(),
      );
      await recordAudit(db, {
        ...actor,
        action: 'webhook_credential.rotated',
        subject: `company:${companyId}`,
        data: { receiver, username: rotated.username, previous_secret_accepted: rotated.previous_secret_accepted },
        at: clock(),
      });
      reply.code(201);
      return rotated;
    },
  );
}
