// The notifications module's public face: other modules and the processes import only what is listed here.
export { deliveriesPageOfEndpoint, type DeliveryRow, findDeliveryOfAccount } from './deliveries.repo.ts';
export {
  deliverySettings,
  type DeliverySettings,
  notificationDeadJobHandlers,
  notificationJobHandlers,
} from './delivery.job.ts';
export { findEndpointByUrl, findEndpointOfAccount, listEndpoints } from './endpoints.repo.ts';
export { registerNotificationEndpointRoutes } from './endpoints.routes.ts';
export { DeliveryIdParams, EndpointIdParams, MAX_GRACE_SECONDS } from './endpoints.schemas.ts';
export {
  changeEndpoint,
  createEndpoint,
  DuplicateEndpointUrlError,
  endpointUrlProblem,
  endpointView,
  eventTypesProblem,
  NotificationInputError,
  rotateEndpointSecret,
  setEndpointEnabled,
} from './endpoints.service.ts';
export { NOTIFICATION_EVENT_TYPES } from './event-types.ts';
export { runListen } from './listen.cli.ts';
export { NotificationUsageError, runNotificationsCommand } from './notifications.cli.ts';
export {
  notifyOrderTransition,
  notifyPaymentTransition,
  notifyRefund,
  notifySubscription,
  withPublicLinks,
} from './notify.ts';
export { ServiceCallError } from './operator-client.ts';
export { registerOperatorRoutes } from './operator.routes.ts';
export { redeliver } from './redelivery.ts';
export { eventBody } from './signing.ts';
export { runTrigger, TRIGGER_EVENTS } from './trigger.cli.ts';
