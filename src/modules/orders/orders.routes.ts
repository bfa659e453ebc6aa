import type { FastifyInstance } from 'fastify';
import { byApiKey } from '../../http/idempotency.ts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../http/app-context.ts';
import { findPrimaryCompanyId, requireAccount } from '../accounts/index.ts';
import { AppError } from '../../http/errors.ts';
import { errorResponses } from '../../http/schemas.ts';
import { OrderDataSchema, OrdersIndexSchema } from './order-data.schema.ts';
import { toOrderData } from './order-data.view.ts';
import { createOrderFromRequest } from './order-request.service.ts';
import { OrderCreateBody, OrderIdParams, OrderListQuery } from './orders.schemas.ts';
import { findOrderDetails, listOrders } from './orders.service.ts';

export function registerOrderRoutes(parent: FastifyInstance, { config, database, clock }: AppContext): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = database;

  app.get(
    '/orders',
    {
      config: { access: 'key' },
      schema: {
        tags: ['Orders'],
        security: [{ apiKey: [] }],
        querystring: OrderListQuery,
        response: { 200: OrdersIndexSchema, ...errorResponses(401, 422) },
      },
    },
    async (request) => {
      const page = await listOrders(db, requireAccount(request), request.query);
      return { meta: page.meta, data: page.details.map((details) => toOrderData(details, config.publicUrl)) };
    },
  );

  app.get(
    '/orders/:id',
    {
      config: { access: 'key' },
      schema: {
        tags: ['Orders'],
        security: [{ apiKey: [] }],
        params: OrderIdParams,
        response: { 200: OrderDataSchema, ...errorResponses(401, 404, 422) },
      },
    },
    async (request) =>
      toOrderData(await findOrderDetails(db, requireAccount(request), request.params.id), config.publicUrl),
  );

  app.post(
    '/orders',
    {
      config: { access: 'key', idempotency: byApiKey },
      schema: {
        tags: ['Orders'],
        security: [{ apiKey: [] }],
        body: OrderCreateBody,
        response: { 201: OrderDataSchema, ...errorResponses(400, 401, 409, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const accountId = requireAccount(request);
      const companyId = await findPrimaryCompanyId(db, accountId);
      if (companyId === undefined) throw new AppError('business_rule_violation', 'The account has no primary company');
      const orderId = await createOrderFromRequest(db, { accountId, companyId }, request.body, clock());
      reply.code(201);
      return toOrderData(await findOrderDetails(db, accountId, orderId), config.publicUrl);
    },
  );
}
