import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import { notFound, validationFailed } from '../../http/errors.ts';
import { errorResponses } from '../../http/schemas.ts';
import {
  DeliveryIdParams,
  EndpointIdParams,
  eventBody,
  findDeliveryOfAccount,
  findEndpointOfAccount,
  deliveriesPageOfEndpoint,
  redeliver,
  withPublicLinks,
  type DeliveryRow,
} from '../notifications/index.ts';
import { recordAudit } from './audit.ts';
import { actorOf } from './dashboard-http.ts';
import { dashboardConfig, tags } from './route-options.ts';

const PAGE_SIZE = 20;
const REQUEST_EXCERPT = 4000;
const NullableString = Type.Union([Type.String(), Type.Null()]);

const DeliveryView = Type.Object({
  id: Type.String(),
  event_id: Type.String(),
  event_type: Type.String(),
  status: Type.String({ description: 'pending, delivered or failed' }),
  attempts: Type.Integer(),
  next_attempt_at: NullableString,
  last_status_code: Type.Union([Type.Integer(), Type.Null()]),
  last_error: NullableString,
  response_excerpt: Type.Union([Type.String({ description: "the last answer's body, its first 1 KiB" }), Type.Null()]),
  request_body: Type.String({ description: 'the JSON body each attempt sends (its first 4,000 characters)' }),
  created_at: Type.String(),
});

/** An endpoint's deliveries with what was sent and what came back, and redelivery (owners and admins). */
export function registerDeliveryRoutes(
  parent: FastifyInstance,
  context: { database: Database; clock: () => Date; config: Pick<Config, 'publicUrl'> },
): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = context.database;
  const { clock, config } = context;
  const manage = dashboardConfig('developers.manage');
  const view = (accountId: string, rows: DeliveryRow[]) => deliveryViews(db, accountId, rows, config.publicUrl);

  app.get(
    '/notification_endpoints/:id/deliveries',
    {
      config: manage,
      schema: {
        tags,
        summary: "An endpoint's deliveries, newest first, 20 a page after a cursor: request, last answer, attempts",
        params: EndpointIdParams,
        querystring: Type.Object(
          {
            starting_after: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 100,
                description: 'the id of the last delivery of the previous page (its meta.next_cursor)',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            meta: Type.Object({
              has_more: Type.Boolean({ description: 'older deliveries follow this page' }),
              next_cursor: Type.Union([Type.String(), Type.Null()], {
                description: 'starting_after for the next page; null on the last one',
              }),
            }),
            data: Type.Array(DeliveryView),
          }),
          ...errorResponses(401, 403, 404, 422),
        },
      },
    },
    async (request) => {
      const { accountId } = actorOf(request);
      const endpoint = await findEndpointOfAccount(db, accountId, request.params.id);
      if (!endpoint) throw notFound('Notification endpoint');
      const { rows, hasMore, cursorFound } = await deliveriesPageOfEndpoint(db, accountId, endpoint.id, {
        limit: PAGE_SIZE,
        startingAfter: request.query.starting_after,
      });
      if (!cursorFound)
        throw validationFailed('starting_after names no delivery of this endpoint', [
          { field: 'querystring/starting_after', message: 'is not a delivery of this endpoint' },
        ]);
      return {
        meta: { has_more: hasMore, next_cursor: hasMore ? rows.at(-1)!.id : null },
        data: await view(accountId, rows),
      };
    },
  );

  app.post(
    '/notification_deliveries/:id/redeliver',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Send a delivery again now, with the same event id and body',
        params: DeliveryIdParams,
        response: {
          200: Type.Object({
            redelivered: Type.Boolean({ description: 'false when its next attempt was already queued' }),
            delivery: DeliveryView,
          }),
          ...errorResponses(401, 403, 404, 422),
        },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const delivery = await findDeliveryOfAccount(db, actor.accountId, request.params.id);
      if (!delivery) throw notFound('Notification delivery');
      const at = clock();
      const sent = await redeliver(db, delivery.id, at);
      await recordAudit(db, {
        ...actor,
        action: 'notification_delivery.redelivered',
        subject: `notification_endpoint:${delivery.endpoint_id}`,
        data: { delivery_id: delivery.id, event_type: delivery.event_type, redelivered: sent.length > 0 },
        at,
      });
      const after = (await findDeliveryOfAccount(db, actor.accountId, delivery.id)) ?? delivery;
      const [shown] = await view(actor.accountId, [after]);
      return { redelivered: sent.includes(delivery.id), delivery: shown! };
    },
  );
}

/** Each delivery with the body its attempts send and the body of its last answer. */
async function deliveryViews(db: Kysely<DB>, accountId: string, rows: DeliveryRow[], publicUrl: string) {
  if (rows.length === 0) return [];
  const [events, answers] = await Promise.all([
    db
      .selectFrom('notification_events')
      .select(['id', 'type', 'data', 'created_at'])
      .where('account_id', '=', accountId)
      .where(
        'id',
        'in',
        rows.map((row) => row.event_id),
      )
      .execute(),
    db
      .selectFrom('notification_attempts')
      .distinctOn('delivery_id')
      .select(['delivery_id', 'response_body'])
      .where('account_id', '=', accountId)
      .where(
        'delivery_id',
        'in',
        rows.map((row) => row.id),
      )
      .orderBy('delivery_id')
      .orderBy('attempt', 'desc')
      .execute(),
  ]);
  const eventById = new Map(events.map((event) => [event.id, event]));
  const answerOf = new Map(answers.map((answer) => [answer.delivery_id, answer.response_body]));
  const iso = (at: Date | null) => at?.toISOString() ?? null;
  return rows.map((row) => {
    const event = eventById.get(row.event_id);
    const body = event
      ? eventBody({ ...event, data: withPublicLinks(event.data, publicUrl) })
      : JSON.stringify({ id: row.event_id });
    return {
      id: row.id,
      event_id: row.event_id,
      event_type: row.event_type,
      status: row.status,
      attempts: row.attempts,
      next_attempt_at: iso(row.next_attempt_at),
      last_status_code: row.last_status_code,
      last_error: row.last_error,
      response_excerpt: answerOf.get(row.id) ?? null,
      request_body: body.slice(0, REQUEST_EXCERPT),
      created_at: row.created_at.toISOString(),
    };
  });
}
