import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../http/app-context.ts';
import { ownedCompanyIds, requireAccount } from '../accounts/index.ts';
import { AppError, notFound, validationFailed, type FieldError } from '../../http/errors.ts';
import { errorResponses } from '../../http/schemas.ts';
import { absentBodyAsEmpty } from '../../http/validation.ts';
import { findDeliveryOfAccount, listDeliveriesOfEndpoint, type DeliveryRow } from './deliveries.repo.ts';
import { findEndpointByUrl, findEndpointOfAccount, listEndpoints, type EndpointRow } from './endpoints.repo.ts';
import {
  DeliveriesIndexSchema,
  DELIVERIES_PAGE_SIZE,
  DeliveryIdParams,
  DeliveryListQuery,
  EmptyBody,
  EndpointCreateBody,
  EndpointIdParams,
  EndpointListQuery,
  EndpointPatchBody,
  EndpointSchema,
  EndpointWithSecretSchema,
  RedeliveryResultSchema,
  RotateSecretBody,
} from './endpoints.schemas.ts';
import {
  changeEndpoint,
  createEndpoint,
  endpointUrlProblem,
  endpointView,
  eventTypesProblem,
  DuplicateEndpointUrlError,
  NotificationInputError,
  rotateEndpointSecret,
  setEndpointEnabled,
} from './endpoints.service.ts';
import { redeliver } from './redelivery.ts';

const TAGS = ['Notifications'];
const SECURITY = [{ apiKey: [] }];

/** The API's endpoint object: the CLI's view, with `events` named as the request field it round-trips to. */
function endpointResource(endpoint: EndpointRow, now: Date) {
  const { events, ...rest } = endpointView(endpoint, now);
  return { ...rest, event_types: events };
}

function deliveryResource(row: DeliveryRow) {
  const iso = (at: Date | null) => at && at.toISOString();
  return {
    ...row,
    status: row.status as 'pending' | 'delivered' | 'failed',
    next_attempt_at: iso(row.next_attempt_at),
    delivered_at: iso(row.delivered_at),
    failed_at: iso(row.failed_at),
    created_at: row.created_at.toISOString(),
  };
}

/** `["*"]` (alone), `[]` or absent all mean every type, stored as an empty list. */
function eventTypesOf(types: string[] | undefined, problems: FieldError[]): string[] | undefined {
  if (types === undefined) return undefined;
  if (types.includes('*')) {
    if (types.length > 1)
      problems.push({ field: 'body/event_types', message: '"*" (every type) cannot be combined with other types' });
    return [];
  }
  const problem = eventTypesProblem(types);
  if (problem) problems.push({ field: 'body/event_types', message: problem });
  return types;
}

function checkUrl(url: string | undefined, problems: FieldError[]): void {
  const problem = url === undefined ? undefined : endpointUrlProblem(url);
  if (problem) problems.push({ field: 'body/url', message: problem });
}

function refuse(problems: FieldError[]): void {
  if (problems.length) throw validationFailed('The notification endpoint is invalid', problems);
}

const duplicateUrl = (existing: EndpointRow) =>
  new AppError('conflict', `This URL is already notification endpoint ${existing.id} of the account`, [
    { field: 'body/url', message: 'already registered' },
  ]);

/** Errors the service raises after the route's own checks (a race on the URL): never a 5xx. */
function serviceError(error: unknown): never {
  // The service's own check or, in a race, the unique index: one answer either way (checked first: the service's
  // duplicate error is also an input error).
  if (error instanceof DuplicateEndpointUrlError || (error as { code?: unknown }).code === '23505') {
    throw new AppError('conflict', 'This URL is already a notification endpoint of the account', [
      { field: 'body/url', message: 'already registered' },
    ]);
  }
  if (error instanceof NotificationInputError) throw validationFailed(error.message);
  throw error;
}

/**
 * Notification endpoints and their deliveries, for the account of the API key. Another account's ids
 * answer 404 like unknown ones. The signing secret is in the answer of creation and rotation only, and
 * neither route takes an Idempotency-Key: a stored answer would keep the secret unsealed.
 */
export function registerNotificationEndpointRoutes(
  parent: FastifyInstance,
  { config, database, clock }: AppContext,
): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = database;
  const { masterKey } = config;

  const ownEndpoint = async (accountId: string, id: string): Promise<EndpointRow> => {
    const endpoint = await findEndpointOfAccount(db, accountId, id);
    if (!endpoint) throw notFound('Notification endpoint');
    return endpoint;
  };

  app.post(
    '/notification_endpoints',
    {
      config: { access: 'key' },
      schema: {
        tags: TAGS,
        security: SECURITY,
        description: 'Registers an endpoint. The answer carries its signing secret, the only time it is shown.',
        body: EndpointCreateBody,
        response: { 201: EndpointWithSecretSchema, ...errorResponses(400, 401, 409, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const accountId = requireAccount(request);
      const body = request.body;
      const problems: FieldError[] = [];
      checkUrl(body.url, problems);
      const eventTypes = eventTypesOf(body.event_types, problems);
      if (body.company_id !== undefined && (await ownedCompanyIds(db, accountId, [body.company_id])).length === 0) {
        problems.push({ field: 'body/company_id', message: 'is not a company of this account' });
      }
      refuse(problems);
      const existing = await findEndpointByUrl(db, accountId, body.url);
      if (existing) throw duplicateUrl(existing);
      const input = {
        accountId,
        url: body.url,
        eventTypes,
        companyId: body.company_id ?? null,
        description: body.description ?? null,
        enabled: body.enabled ?? true,
      };
      const created = await createEndpoint(db, masterKey, input, clock()).catch(serviceError);
      reply.code(201);
      return { ...endpointResource(created.endpoint, clock()), secret: created.secret };
    },
  );

  app.get(
    '/notification_endpoints',
    {
      config: { access: 'key' },
      schema: {
        tags: TAGS,
        security: SECURITY,
        description:
          'Every endpoint of the account, disabled ones included, oldest first (not paginated, like the catalog lists).',
        querystring: EndpointListQuery,
        response: { 200: Type.Array(EndpointSchema), ...errorResponses(401, 422) },
      },
    },
    async (request) =>
      (await listEndpoints(db, requireAccount(request), { enabled: request.query.enabled })).map((endpoint) =>
        endpointResource(endpoint, clock()),
      ),
  );

  app.get(
    '/notification_endpoints/:id',
    {
      config: { access: 'key' },
      schema: {
        tags: TAGS,
        security: SECURITY,
        params: EndpointIdParams,
        response: { 200: EndpointSchema, ...errorResponses(401, 404, 422) },
      },
    },
    async (request) => endpointResource(await ownEndpoint(requireAccount(request), request.params.id), clock()),
  );

  app.patch(
    '/notification_endpoints/:id',
    {
      config: { access: 'key' },
      schema: {
        tags: TAGS,
        security: SECURITY,
        description: 'Changes the fields sent; the others keep their values. The secret changes only by rotation.',
        params: EndpointIdParams,
        body: EndpointPatchBody,
        response: { 200: EndpointSchema, ...errorResponses(400, 401, 404, 409, 413, 415, 422) },
      },
    },
    async (request) => {
      const accountId = requireAccount(request);
      const body = request.body;
      const problems: FieldError[] = [];
      checkUrl(body.url, problems);
      const eventTypes = eventTypesOf(body.event_types, problems);
      refuse(problems);
      const endpoint = await ownEndpoint(accountId, request.params.id);
      if (body.url !== undefined && body.url !== endpoint.url) {
        const existing = await findEndpointByUrl(db, accountId, body.url);
        if (existing) throw duplicateUrl(existing);
      }
      const changed = await changeEndpoint(
        db,
        endpoint,
        {
          url: body.url ?? endpoint.url,
          eventTypes: eventTypes ?? endpoint.event_types,
          companyId: endpoint.company_id,
          description: body.description === undefined ? endpoint.description : body.description,
          enabled: body.enabled ?? endpoint.enabled,
        },
        clock(),
      ).catch(serviceError);
      return endpointResource(changed, clock());
    },
  );

  app.delete(
    '/notification_endpoints/:id',
    {
      config: { access: 'key' },
      schema: {
        tags: TAGS,
        security: SECURITY,
        description:
          'Disables the endpoint rather than deleting it, so its delivery history is kept: it gets no new deliveries, and pending ones fail at their next attempt without being sent (redeliverable after enabling it again with PATCH).',
        params: EndpointIdParams,
        response: { 200: EndpointSchema, ...errorResponses(401, 404, 422) },
      },
    },
    async (request) => {
      const endpoint = await ownEndpoint(requireAccount(request), request.params.id);
      return endpointResource(await setEndpointEnabled(db, endpoint.id, false, clock()), clock());
    },
  );

  app.post(
    '/notification_endpoints/:id/rotate_secret',
    {
      config: { access: 'key' },
      // Every field is optional, so a request without a body rotates with the default grace period.
      preValidation: absentBodyAsEmpty,
      schema: {
        tags: TAGS,
        security: SECURITY,
        description:
          'Issues a new signing secret, shown only in this answer; the previous one keeps signing too for grace_seconds.',
        params: EndpointIdParams,
        body: RotateSecretBody,
        response: { 200: EndpointWithSecretSchema, ...errorResponses(400, 401, 404, 413, 415, 422) },
      },
    },
    async (request) => {
      const endpoint = await ownEndpoint(requireAccount(request), request.params.id);
      const rotated = await rotateEndpointSecret(
        db,
        masterKey,
        endpoint.id,
        request.body.grace_seconds ?? 86_400,
        clock(),
      ).catch(serviceError);
      return { ...endpointResource(rotated.endpoint, clock()), secret: rotated.secret };
    },
  );

  app.get(
    '/notification_endpoints/:id/deliveries',
    {
      config: { access: 'key' },
      schema: {
        tags: TAGS,
        security: SECURITY,
        description: 'The endpoint’s deliveries, newest first, paginated like GET /orders.',
        params: EndpointIdParams,
        querystring: DeliveryListQuery,
        response: { 200: DeliveriesIndexSchema, ...errorResponses(401, 404, 422) },
      },
    },
    async (request) => {
      const accountId = requireAccount(request);
      const endpoint = await ownEndpoint(accountId, request.params.id);
      const page = request.query.page ?? 1;
      const perPage = request.query.limit ?? DELIVERIES_PAGE_SIZE;
      const { rows, total } = await listDeliveriesOfEndpoint(db, accountId, endpoint.id, {
        status: request.query.status,
        limit: perPage,
        offset: (page - 1) * perPage,
      });
      return {
        meta: { current_page: page, total_pages: Math.ceil(total / perPage), total_count: total, per_page: perPage },
        data: rows.map(deliveryResource),
      };
    },
  );

  app.post(
    '/notification_deliveries/:id/redeliver',
    {
      config: { access: 'key' },
      preValidation: absentBodyAsEmpty,
      schema: {
        tags: TAGS,
        security: SECURITY,
        description:
          'One more attempt now, with the same event id and body. A delivery pending with its next attempt already queued is left as it is.',
        params: DeliveryIdParams,
        body: EmptyBody,
        response: { 200: RedeliveryResultSchema, ...errorResponses(400, 401, 404, 413, 415, 422) },
      },
    },
    async (request) => {
      const accountId = requireAccount(request);
      const delivery = await findDeliveryOfAccount(db, accountId, request.params.id);
      if (!delivery) throw notFound('Notification delivery');
      const sent = await redeliver(db, delivery.id, clock()).catch(serviceError);
      const after = (await findDeliveryOfAccount(db, accountId, delivery.id)) ?? delivery;
      return { redelivered: sent.includes(delivery.id), delivery: deliveryResource(after) };
    },
  );
}
