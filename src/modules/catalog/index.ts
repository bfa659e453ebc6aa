// The catalog module's public face: other modules and the processes import only what is listed here.
export { registerCatalogRoutes } from './catalog.routes.ts';
export { checkoutPageExists } from './checkout-pages.repo.ts';
export { showCheckoutPage } from './checkout-pages.service.ts';
export { productDescription } from './products.service.ts';
