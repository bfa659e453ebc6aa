import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { describeOperation, documentPath, publishableDocument } from './openapi-publish.ts';

/** The OpenAPI 3.1 document is generated from the route schemas; /docs renders it (assets served locally). */
export async function registerDocs(app: FastifyInstance, publicUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Checkout, Payments and Orders API',
        version: '1.0.0',
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
        description:
          'Hosted checkout pages, carts, charges, payments, refunds, orders, products, customers, coupons and payment plans.',
      },
      servers: [{ url: `${publicUrl}/api/v1` }],
      components: {
        securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'The account `client_api_key`' } },
      },
    },
    // Paths in the document are relative to the server URL, which already ends in /api/v1.
    transform: ({ schema, url, route }) => {
      const path = documentPath(url);
      return {
        schema: describeOperation(schema, route, path) as typeof schema,
        url: url.replace(/^\/api\/v1/, '') || '/',
      };
    },
    transformObject: (document) => publishableDocument('openapiObject' in document ? document.openapiObject : {}),
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  app.get('/api/v1/openapi.json', { schema: { hide: true }, config: { access: 'open' } }, async () => app.swagger());
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { deepLinking: true, validatorUrl: null },
    // Every asset is served from /docs/static; nothing is fetched from a CDN or an online validator.
    staticCSP:
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; base-uri 'self'; frame-ancestors 'none'",
  });
}
