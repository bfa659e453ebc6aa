import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../http/app-context.ts';
import { notFound } from '../../http/errors.ts';
import { errorResponses, NoQuery, Uuid } from '../../http/schemas.ts';
import { generateKey, rotateKey, storeKey } from '../accounts/index.ts';
import { recordAudit } from './audit.ts';
import { actorOf } from './dashboard-http.ts';
import { Empty } from './dashboard.schemas.ts';
import { dashboardConfig, tags } from './route-options.ts';

const iso = (at: Date | null) => at?.toISOString() ?? null;
const NullableText = Type.Union([Type.String(), Type.Null()]);
const ApiKeyView = Type.Object({
  id: Type.String(),
  prefix: Type.String({ description: 'the public start of the key; the rest is never shown again' }),
  label: Type.String(),
  created_at: Type.String(),
  expires_at: NullableText,
  revoked_at: NullableText,
  last_used_at: NullableText,
});
const NewKey = Type.Object({ api_key: Type.String({ description: 'shown once' }) });
const MAX_KEY_GRACE_SECONDS = 365 * 86_400;

/** API keys (owners and admins); every change is audited. */
export function registerDeveloperRoutes(parent: FastifyInstance, context: AppContext): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = context.database;
  const { clock } = context;
  const manage = dashboardConfig('developers.manage');

  app.get(
    '/api_keys',
    {
      config: manage,
      schema: {
        tags,
        summary: "The account's API keys",
        querystring: NoQuery,
        response: { 200: Type.Object({ data: Type.Array(ApiKeyView) }), ...errorResponses(401, 403) },
      },
    },
    async (request) => {
      const rows = await db
        .selectFrom('api_keys')
        .select(['id', 'key_id', 'label', 'created_at', 'expires_at', 'revoked_at', 'last_used_at'])
        .where('account_id', '=', actorOf(request).accountId)
        .orderBy('created_at', 'desc')
        .execute();
      return {
        data: rows.map((row) => ({
          id: row.id,
          prefix: `ck_${row.key_id}_`,
          label: row.label,
          created_at: row.created_at.toISOString(),
          expires_at: iso(row.expires_at),
          revoked_at: iso(row.revoked_at),
          last_used_at: iso(row.last_used_at),
        })),
      };
    },
  );

  app.post(
    '/api_keys',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Create a key with a label (shown once)',
        body: Type.Object({ label: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false }),
        response: { 201: NewKey, ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const key = generateKey();
      const id = await storeKey(db, actor.accountId, key, request.body.label);
      await recordAudit(db, {
        ...actor,
        action: 'api_key.created',
        subject: `api_key:${id}`,
        data: { label: request.body.label, prefix: `ck_${key.keyId}_` },
        at: clock(),
      });
      reply.code(201);
      return { api_key: key.plaintext };
    },
  );

  app.post(
    '/api_keys/rotate',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Issue a new key; the others expire after the grace period (0 revokes them now)',
        body: Type.Object(
          { grace_seconds: Type.Integer({ minimum: 0, maximum: MAX_KEY_GRACE_SECONDS }) },
          { additionalProperties: false },
        ),
        response: { 201: NewKey, ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const key = await rotateKey(db, actor.accountId, request.body.grace_seconds, clock());
      await recordAudit(db, {
        ...actor,
        action: 'api_key.rotated',
        data: { grace_seconds: request.body.grace_seconds, prefix: `ck_${key.keyId}_` },
        at: clock(),
      });
      reply.code(201);
      return { api_key: key.plaintext };
    },
  );

  app.delete(
    '/api_keys/:id',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Revoke a key now',
        params: Type.Object({ id: Uuid() }, { additionalProperties: false }),
        response: { 204: Empty, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const revoked = await db
        .updateTable('api_keys')
        .set({ revoked_at: clock() })
        .where('account_id', '=', actor.accountId)
        .where('id', '=', request.params.id)
        .where('revoked_at', 'is', null)
        .returning('id')
        .executeTakeFirst();
      if (!revoked) throw notFound('API key');
      await recordAudit(db, {
        ...actor,
        action: 'api_key.revoked',
        subject: `api_key:${request.params.id}`,
        at: clock(),
      });
      return reply.code(204).send(null);
    },
  );
}
