import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../http/app-context.ts';
import { assertPublicAccess, requireAccount } from '../accounts/index.ts';
import { notFound } from '../../http/errors.ts';
import { errorResponses, NoQuery } from '../../http/schemas.ts';
import { toMajor } from '../../lib/money.ts';
import {
  GatewayPublicKeySchema,
  ProductCreateBody,
  ProductCreateResponseSchema,
  ProductIdParams,
  ProductListQuery,
  ProductShowSchema,
  ProductSummarySchema,
} from './catalog.schemas.ts';
import { findProduct, listProducts } from './products.repo.ts';
import { createProduct, productGatewayAPublicKey, toProductShow } from './products.service.ts';

export function registerProductRoutes(parent: FastifyInstance, { database }: AppContext): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = database;

  app.get(
    '/products',
    {
      config: { access: 'key' },
      schema: {
        tags: ['Products'],
        security: [{ apiKey: [] }],
        querystring: ProductListQuery,
        response: { 200: Type.Array(ProductSummarySchema), ...errorResponses(401, 422) },
      },
    },
    async (request) => {
      const rows = await listProducts(db, requireAccount(request), {
        q: request.query.q,
        includeDeleted: request.query.deleted === true,
      });
      return rows.map((row) => ({
        id: row.id,
        name: row.name,
        type: row.product_type,
        company_id: row.company_id,
        value: toMajor(row.value_cents),
        deleted: row.deleted_at !== null,
        subscription: row.subscription,
      }));
    },
  );

  app.post(
    '/products',
    {
      config: { access: 'key' },
      schema: {
        tags: ['Products'],
        security: [{ apiKey: [] }],
        body: ProductCreateBody,
        response: { 200: ProductCreateResponseSchema, ...errorResponses(400, 401, 409, 413, 415, 422) },
      },
    },
    async (request) => createProduct(db, requireAccount(request), request.body),
  );

  app.get(
    '/products/:id',
    {
      config: { access: 'public' },
      schema: {
        tags: ['Products'],
        params: ProductIdParams,
        querystring: NoQuery,
        response: { 200: ProductShowSchema, ...errorResponses(403, 404, 422) },
      },
    },
    async (request) => {
      const product = await findProduct(db, request.params.id);
      if (!product) throw notFound('Product');
      await assertPublicAccess(db, request, product.account_id);
      return toProductShow(product);
    },
  );

  app.get(
    '/products/:id/gateway_a_public_key',
    {
      config: { access: 'public' },
      schema: {
        tags: ['Products'],
        description:
          "The publishable gateway_a key of the product's company; 422 when the company has no enabled gateway_a integration.",
        params: ProductIdParams,
        querystring: NoQuery,
        response: { 200: GatewayPublicKeySchema, ...errorResponses(403, 404, 422) },
      },
    },
    async (request) => {
      const product = await findProduct(db, request.params.id);
      if (!product) throw notFound('Product');
      await assertPublicAccess(db, request, product.account_id);
      return productGatewayAPublicKey(db, product);
    },
  );
}
