import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../http/app-context.ts';
import { registerCheckoutPageRoutes } from './checkout-pages.routes.ts';
import { registerProductRoutes } from './products.routes.ts';

/** Products and checkout pages. */
export function registerCatalogRoutes(parent: FastifyInstance, context: AppContext): void {
  registerProductRoutes(parent, context);
  registerCheckoutPageRoutes(parent, context);
}
