import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import type { AppContext } from '../../http/app-context.ts';
import type { IdempotencyOptions } from '../../http/idempotency.ts';
import { errorResponses } from '../../http/schemas.ts';
import { toCustomerResponse, toPublicCustomerResponse } from './customer.view.ts';
import { resolveCustomerScope, type CompanyScope } from './customer-scope.ts';
import { CustomerBody, CustomerResponseSchema } from './customers.schemas.ts';
import { upsertCustomerWithDeal, type DealCreator } from './customers.service.ts';

export function registerCustomerRoutes(
  parent: FastifyInstance,
  { config, database, clock }: AppContext,
  createDeal: DealCreator,
): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = database;
  const publicHostname = new URL(config.publicUrl).hostname;

  // Resolved once per request: the idempotency hook and the handler both need it.
  const scopes = new WeakMap<FastifyRequest, Promise<CompanyScope>>();
  const scopeOf = (request: FastifyRequest) => {
    let scope = scopes.get(request);
    if (!scope) {
      scope = resolveCustomerScope(
        db,
        request,
        publicHostname,
        (request.body as Static<typeof CustomerBody>).checkout_page_id,
      );
      scopes.set(request, scope);
    }
    return scope;
  };
  // Only `create_deal: true` creates an order; a plain upsert is idempotent by email and ignores the key.
  // The scope check includes the host restriction, so a refused request never claims a key.
  const dealIdempotency: IdempotencyOptions = {
    scope: async (request) =>
      (request.body as Static<typeof CustomerBody>).create_deal === true
        ? (await scopeOf(request)).accountId
        : undefined,
  };

  app.post(
    '/customers',
    {
      config: { access: 'public', idempotency: dealIdempotency },
      schema: {
        tags: ['Customers'],
        description:
          'Creates or updates the company’s customer with this email. Host-restricted; the company comes from checkout_page_id, the per-company host or the API key. With create_deal, an Idempotency-Key header makes a retry replay the first answer instead of creating a second order.',
        body: CustomerBody,
        response: { 200: CustomerResponseSchema, ...errorResponses(400, 403, 409, 413, 415, 422) },
      },
    },
    async (request) => {
      const scope = await scopeOf(request);
      const { customer, orderId } = await upsertCustomerWithDeal(
        db,
        scope,
        request.body,
        clock(),
        request.log,
        createDeal,
      );
      const merchant = request.apiKey?.accountId === scope.accountId;
      return merchant
        ? toCustomerResponse(customer, orderId)
        : toPublicCustomerResponse(customer, orderId, request.body);
    },
  );
}
