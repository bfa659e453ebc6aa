import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { AppContext, AppDependencies } from './http/app-context.ts';
import { registerOrderTransitionHooks } from './order-hooks.ts';
import { assertPublicAccess, registerAuthentication } from './modules/accounts/index.ts';
import { registerCors } from './http/cors.ts';
import { registerDocs } from './http/docs.ts';
import { handleFrameworkError, registerErrorHandling } from './http/error-handler.ts';
import { registerHealth } from './http/health.ts';
import { registerIdempotency } from './http/idempotency.ts';
import { guardRequestInput } from './http/input-guard.ts';
import { registerMetrics } from './http/metrics.ts';
import { parseQueryString } from './http/query.ts';
import { registerRateLimiting } from './http/rate-limit.ts';
import { ErrorBodySchema } from './http/schemas.ts';
import { eagerSerializerFactory, lazySerializerFactory } from './http/serialization.ts';
import { compileValidator, lazyValidatorCompiler } from './http/validation.ts';
import { registerCardHashRoutes } from './modules/card-hash/index.ts';
import { registerCartRoutes } from './modules/carts/index.ts';
import { registerCatalogRoutes } from './modules/catalog/index.ts';
import { registerChargeRoutes } from './modules/charges/index.ts';
import { registerDashboardApi } from './modules/dashboard/index.ts';
import { registerCouponRoutes } from './modules/coupons/index.ts';
import { registerCustomerRoutes } from './modules/customers/index.ts';
import { registerNotificationEndpointRoutes, registerOperatorRoutes } from './modules/notifications/index.ts';
import { createCustomerDeal, registerOrderRoutes } from './modules/orders/index.ts';
import { registerPaymentPlanRoutes } from './modules/payment-plans/index.ts';
import { registerPaymentReadRoutes, registerPayRoutes, registerRefundRoutes } from './modules/payments/index.ts';
import { registerSchedulingRoutes } from './modules/scheduling/index.ts';
import { registerUpsellRoutes } from './modules/upsell/index.ts';
import { registerWebhookMetrics, registerWebhookRoutes } from './modules/webhooks/index.ts';
import { registerDashboardPages } from './web/dashboard/dashboard.routes.ts';
import { registerHostedCheckoutPages } from './web/checkout/checkout.routes.ts';
import { registerHostedPaymentPages } from './web/payment-pages/payment-pages.routes.ts';

export type { AppDependencies } from './http/app-context.ts';

const REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** Builds the HTTP application; no I/O happens until it listens or is injected into. */
export async function buildApp(deps: AppDependencies): Promise<FastifyInstance> {
  registerOrderTransitionHooks();
  const context: AppContext = {
    clock: () => new Date(),
    gatewayUrls: { ...deps.config.gatewayUrls },
    schemaCompilation: 'lazy',
    ...deps,
  };
  const eager = context.schemaCompilation === 'eager';
  const { config, database } = context;
  const app = Fastify({
    loggerInstance: context.logger as FastifyBaseLogger,
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    return503OnClosing: true,
    frameworkErrors: handleFrameworkError,
    forceCloseConnections: 'idle',
    requestIdHeader: false,
    genReqId: (request) => {
      const incoming = request.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
    },
    routerOptions: { querystringParser: parseQueryString, maxParamLength: 200, ignoreTrailingSlash: true },
    ajv: { customOptions: { strict: false } },
    schemaController: { compilersFactory: { buildSerializer: eager ? eagerSerializerFactory : lazySerializerFactory } },
  });
  app.setValidatorCompiler(eager ? compileValidator : lazyValidatorCompiler);
  app.addSchema(ErrorBodySchema);
  registerErrorHandling(app);

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  registerCors(app);
  // Card data must arrive tokenized; a raw PAN, a NUL character or runaway nesting is refused before validation, logging or storage.
  app.addHook('preValidation', async (request) => guardRequestInput(request));
  registerRateLimiting(app, config.rateLimits, context.clock);
  registerAuthentication(app, database.db, config.publicUrl, context.clock);
  registerIdempotency(app, database.db, context.clock, assertPublicAccess);
  registerMetrics(app, database, config.metricsToken, [registerWebhookMetrics]);
  registerHealth(app, database);
  registerHostedPaymentPages(app, context);
  registerHostedCheckoutPages(app, context);
  registerDashboardPages(app);
  await registerDocs(app, config.publicUrl);
  registerOperatorRoutes(app, context);

  await app.register(
    async (api) => {
      // The API reads JSON only: Fastify's default text/plain parser would hand a string to the schema (a 422 about
      // the body's type) where the answer is 415. The webhook receivers add the raw types they take in their scope.
      api.removeContentTypeParser('text/plain');
      for (const register of [
        registerCatalogRoutes,
        (api: FastifyInstance, context: AppContext) => registerCustomerRoutes(api, context, createCustomerDeal),
        registerOrderRoutes,
        registerCartRoutes,
        registerChargeRoutes,
        registerPaymentReadRoutes,
        registerPayRoutes,
        registerPaymentPlanRoutes,
        registerCouponRoutes,
        registerSchedulingRoutes,
        registerRefundRoutes,
        registerUpsellRoutes,
        registerWebhookRoutes,
        registerCardHashRoutes,
        registerNotificationEndpointRoutes,
      ]) {
        register(api, context);
      }
      await registerDashboardApi(api, context);
    },
    { prefix: '/api/v1' },
  );
  return app;
}
