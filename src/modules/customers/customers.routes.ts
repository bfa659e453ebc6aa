import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../app.ts';
import { errorResponses } from '../../http/schemas.ts';
import { toCustomerResponse } from './customer.view.ts';
import { resolveCustomerScope } from './customer-scope.ts';
import { CustomerBody, CustomerResponseSchema } from './customers.schemas.ts';
import { upsertCustomerWithDeal } from './customers.service.ts';

export function registerCustomerRoutes(parent: FastifyInstance, { config, database, clock }: AppContext): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = database;
  const publicHostname = new URL(config.publicUrl).hostname;

  app.post(
    '/customers',
    {
      config: { access: 'public' },
      schema: {
        tags: ['Customers'],
        description: 'Creates or updates the company’s customer with this email. Host-restricted; the company comes from checkout_page_id, the per-company host or the API key.',
        body: CustomerBody,
        response: { 200: CustomerResponseSchema, ...errorResponses(400, 403, 413, 415, 422) },
      },
    },
    async (request) => {
      const scope = await resolveCustomerScope(db, request, publicHostname, request.body.checkout_page_id);
      const { customer, orderId } = await upsertCustomerWithDeal(db, scope, request.body, clock(), request.log);
      return toCustomerResponse(customer, orderId);
    },
  );
}
