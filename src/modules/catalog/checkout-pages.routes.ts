import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../http/app-context.ts';
import { requireAccount } from '../accounts/index.ts';
import { errorResponses, NoQuery } from '../../http/schemas.ts';
import {
  CheckoutPageIdParams,
  CheckoutPageListQuery,
  CheckoutPageShowSchema,
  CheckoutPageSummarySchema,
} from './checkout-pages.schemas.ts';
import { listCheckoutPages } from './checkout-pages.repo.ts';
import { showCheckoutPage, toCheckoutPageSummary } from './checkout-pages.service.ts';

export function registerCheckoutPageRoutes(parent: FastifyInstance, { database }: AppContext): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = database;

  app.get(
    '/checkout_pages',
    {
      config: { access: 'key' },
      schema: {
        tags: ['Checkout pages'],
        security: [{ apiKey: [] }],
        querystring: CheckoutPageListQuery,
        response: { 200: Type.Array(CheckoutPageSummarySchema), ...errorResponses(401, 422) },
      },
    },
    async (request) => {
      const rows = await listCheckoutPages(db, requireAccount(request), {
        q: request.query.q,
        hasProducts: request.query.has_products,
        productIds: request.query.product_ids,
      });
      return rows.map(toCheckoutPageSummary);
    },
  );

  app.get(
    '/checkout_pages/:id',
    {
      config: { access: 'key' },
      schema: {
        tags: ['Checkout pages'],
        security: [{ apiKey: [] }],
        params: CheckoutPageIdParams,
        querystring: NoQuery,
        response: { 200: CheckoutPageShowSchema, ...errorResponses(401, 404, 422) },
      },
    },
    async (request) => showCheckoutPage(db, requireAccount(request), request.params.id),
  );
}
