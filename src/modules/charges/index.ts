// The charges module's public face: other modules and the processes import only what is listed here.
export { type ChargeRow, findCharge } from './charges.repo.ts';
export { registerChargeRoutes } from './charges.routes.ts';
export { chargeBranding, showCharge } from './charges.service.ts';
