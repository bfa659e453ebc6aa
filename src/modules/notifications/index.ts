/** What other modules use of notifications: endpoint deliveries, their bodies, and redelivery. */
export { findDeliveryOfAccount, listDeliveriesOfEndpoint, type DeliveryRow } from './deliveries.repo.ts';
export { findEndpointOfAccount } from './endpoints.repo.ts';
export { DeliveryIdParams, EndpointIdParams } from './endpoints.schemas.ts';
export { withPublicLinks } from './notify.ts';
export { redeliver } from './redelivery.ts';
export { eventBody } from './signing.ts';
