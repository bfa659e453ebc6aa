// The carts module's public face: other modules and the processes import only what is listed here.
export { findCart, findCartItems } from './carts.repo.ts';
export { registerCartRoutes } from './carts.routes.ts';
export { BrandingFields } from './carts.schemas.ts';
export { type Branding, companyBranding, pageBranding, planRef } from './page-branding.ts';
