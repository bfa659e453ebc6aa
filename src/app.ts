import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import type { GatewayName } from './gateways/port.ts';
import { registerAuthentication } from './http/auth.ts';
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
import { validatorCompiler } from './http/validation.ts';
import { registerCardHashRoutes } from './modules/card-hash/card-hash.routes.ts';
import { registerCartRoutes } from './modules/carts/carts.routes.ts';
import { registerCatalogRoutes } from './modules/catalog/catalog.routes.ts';
import { registerChargeRoutes } from './modules/charges/charges.routes.ts';
import { registerDashboardApi } from './modules/dashboard/dashboard.api.ts';
import { registerCouponRoutes } from './modules/coupons/coupons.routes.ts';
import { registerCustomerRoutes } from './modules/customers/customers.routes.ts';
import { registerNotificationEndpointRoutes } from './modules/notifications/endpoints.routes.ts';
import { registerOrderRoutes } from './modules/orders/orders.routes.ts';
import { registerPaymentPlanRoutes } from './modules/payment-plans/payment-plans.routes.ts';
import { registerPayRoutes } from './modules/payments/pay.routes.ts';
import { registerPaymentReadRoutes } from './modules/payments/payment-reads.routes.ts';
import { registerRefundRoutes } from './modules/refunds/refunds.routes.ts';
import { registerSchedulingRoutes } from './modules/scheduling/scheduling.routes.ts';
import { registerUpsellRoutes } from './modules/upsell/upsell.routes.ts';
import { registerWebhookRoutes } from './modules/webhooks/webhooks.routes.ts';
import { registerDashboardPages } from './web/dashboard/dashboard.routes.ts';
import { registerHostedCheckoutPages } from './web/checkout/checkout.routes.ts';
import { registerHostedPaymentPages } from './web/payment-pages/payment-pages.routes.ts';

export type AppDependencies = {
  config: Config;
  database: Database;
  logger: Logger;
  clock?: () => Date;
  /** Base URL of each gateway's API (live, standalone sandbox or in-process sandbox). */
  gatewayUrls?: Partial<Record<GatewayName, string>>;
};

export type AppContext = Required<AppDependencies>;

const REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** Builds the HTTP application; no I/O happens until it listens or is injected into. */
export async function buildApp(deps: AppDependencies): Promise<FastifyInstance> {
  const context: AppContext = { clock: () => new Date(), gatewayUrls: { ...deps.config.gatewayUrls }, ...deps };
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
  });
  app.setValidatorCompiler(validatorCompiler);
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
  registerIdempotency(app, database.db, context.clock);
  registerMetrics(app, database, config.metricsToken);
  registerHealth(app, database);
  registerHostedPaymentPages(app, context);
  registerHostedCheckoutPages(app, context);
  registerDashboardPages(app);
  await registerDocs(app, config.publicUrl);

  await app.register(
    async (api) => {
      // The API reads JSON only: Fastify's default text/plain parser would hand a string to the schema (a 422 about
      // the body's type) where the answer is 415. The webhook receivers add the raw types they take in their scope.
      api.removeContentTypeParser('text/plain');
      for (const register of [
        registerCatalogRoutes,
        registerCustomerRoutes,
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
