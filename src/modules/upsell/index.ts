// The upsell module's public face: other modules and the processes import only what is listed here.
export { registerUpsellRoutes } from './upsell.routes.ts';
