// The card-hash module's public face: other modules and the processes import only what is listed here.
export { registerCardHashRoutes } from './card-hash.routes.ts';
export { consumeCardHashKey } from './card-hash.service.ts';
