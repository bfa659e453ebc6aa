import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../http/app-context.ts';
import { requireAccount } from '../accounts/index.ts';
import { AppError, notFound } from '../../http/errors.ts';
import { errorResponses } from '../../http/schemas.ts';
import { absentBodyAsEmpty } from '../../http/validation.ts';
import { findWebhookEvent, listWebhookEvents, replayEvent, type WebhookEventRow } from './dead-events.ts';
import {
  EmptyBody,
  EVENTS_PAGE_SIZE,
  ReplayResultSchema,
  WebhookEventIdParams,
  WebhookEventListQuery,
  WebhookEventSchema,
  WebhookEventsIndexSchema,
} from './webhook-events.schemas.ts';

const TAGS = ['Webhooks'];
const SECURITY = [{ apiKey: [] }];

export function webhookEventResource(row: WebhookEventRow) {
  const iso = (at: Date | null) => at && at.toISOString();
  return {
    id: Number(row.id),
    receiver: row.receiver,
    company_id: row.company_id,
    event_id: row.external_event_id,
    event_type: row.event_type,
    status: row.status as 'received' | 'processed' | 'ignored' | 'failed',
    attempts: row.attempts,
    last_error: row.last_error,
    received_at: row.received_at.toISOString(),
    processed_at: iso(row.processed_at),
    failed_at: iso(row.failed_at),
  };
}

/**
 * The account's inbound events, for the merchant to see what became of them: `?status=failed` is the dead-event
 * list, and a failed event can be replayed. Another account's event answers 404 like a missing one.
 */
export function registerWebhookEventRoutes(parent: FastifyInstance, { database, clock }: AppContext): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = database;

  app.get(
    '/webhook_events',
    {
      config: { access: 'key' },
      schema: {
        tags: TAGS,
        security: SECURITY,
        description:
          'The account’s inbound webhook events, newest first, paginated like GET /orders; status=failed lists the events whose application ran out of attempts.',
        querystring: WebhookEventListQuery,
        response: { 200: WebhookEventsIndexSchema, ...errorResponses(401, 422) },
      },
    },
    async (request) => {
      const accountId = requireAccount(request);
      const page = request.query.page ?? 1;
      const perPage = request.query.limit ?? EVENTS_PAGE_SIZE;
      const { rows, total } = await listWebhookEvents(db, {
        accountId,
        ...(request.query.status ? { status: request.query.status } : {}),
        limit: perPage,
        offset: (page - 1) * perPage,
      });
      return {
        meta: { current_page: page, total_pages: Math.ceil(total / perPage), total_count: total, per_page: perPage },
        data: rows.map(webhookEventResource),
      };
    },
  );

  app.get(
    '/webhook_events/:id',
    {
      config: { access: 'key' },
      schema: {
        tags: TAGS,
        security: SECURITY,
        description: 'One inbound webhook event of the account.',
        params: WebhookEventIdParams,
        response: { 200: WebhookEventSchema, ...errorResponses(401, 404, 422) },
      },
    },
    async (request) => {
      const event = await findWebhookEvent(db, request.params.id, requireAccount(request));
      if (!event) throw notFound('Webhook event');
      return webhookEventResource(event);
    },
  );

  app.post(
    '/webhook_events/:id/replay',
    {
      config: { access: 'key' },
      preValidation: absentBodyAsEmpty,
      schema: {
        tags: TAGS,
        security: SECURITY,
        description:
          'Queues a failed event to be applied again (once, as any event). An event already queued is left as it is; a processed or ignored one is 409.',
        params: WebhookEventIdParams,
        body: EmptyBody,
        response: { 200: ReplayResultSchema, ...errorResponses(400, 401, 404, 409, 413, 415, 422) },
      },
    },
    async (request) => {
      const accountId = requireAccount(request);
      const outcome = await replayEvent(db, { id: request.params.id, accountId }, clock());
      if (outcome === 'missing') throw notFound('Webhook event');
      const event = await findWebhookEvent(db, request.params.id, accountId);
      if (!event) throw notFound('Webhook event');
      if (outcome === 'applied')
        throw new AppError('conflict', `Only a failed event can be replayed; this one is ${event.status}`);
      return { replayed: outcome === 'replayed', event: webhookEventResource(event) };
    },
  );
}
