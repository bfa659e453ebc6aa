import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../http/app-context.ts';
import { registerAuthRoutes } from './auth.routes.ts';
import { registerCustomerRoutes } from './customers.routes.ts';
import { registerDeliveryRoutes } from './deliveries.routes.ts';
import { registerDashboardAccess } from './dashboard-http.ts';
import { registerDeveloperRoutes } from './developers.routes.ts';
import { registerEndpointRoutes } from './endpoints.routes.ts';
import { registerOrderActionRoutes } from './order-actions.routes.ts';
import { smtpMailer } from './mailer.ts';
import { registerSalesRoutes } from './sales.routes.ts';
import { registerUserRoutes } from './users.routes.ts';
// Settings, allowed hosts, inbound webhook credentials.
import { registerAllowedHostRoutes } from './allowed-hosts.routes.ts';
import { registerSettingsRoutes } from './settings.routes.ts';
import { registerWebhookCredentialRoutes } from './webhook-credentials.routes.ts';

/** The dashboard's own API under /api/v1/dashboard: session-cookie authentication, role checks and CSRF. */
export async function registerDashboardApi(api: FastifyInstance, context: AppContext): Promise<void> {
  await api.register(
    async (scope) => {
      await registerDashboardAccess(scope, context.database.db, context.clock);
      registerAuthRoutes(scope, context);
      registerSalesRoutes(scope, context);
      registerDeveloperRoutes(scope, context);
      registerEndpointRoutes(scope, context);
      registerUserRoutes(scope, context, smtpMailer(context.config.smtpUrl, context.config.mailFrom));
      // Settings, allowed hosts, inbound webhook credentials.
      registerSettingsRoutes(scope, context);
      registerAllowedHostRoutes(scope, context);
      registerWebhookCredentialRoutes(scope, context);
      registerCustomerRoutes(scope, context);
      registerOrderActionRoutes(scope, context);
      registerDeliveryRoutes(scope, context);
    },
    { prefix: '/dashboard' },
  );
}
