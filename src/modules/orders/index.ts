// The orders module's public face: other modules and the processes import only what is listed here.
export { dateIn, dateInDaysAfter } from './company-calendar.ts';
export { createCustomerDeal } from './customer-deal.ts';
export {
  findProducts,
  insertOrderItems,
  insertOrderWithEvent,
  type OrderCreatedEvent,
  withCreatedOrder,
} from './order-create.repo.ts';
export { OrderDataSchema } from './order-data.schema.ts';
export { type OrderData, toOrderData, whenSet } from './order-data.view.ts';
export { loadOrderDetails } from './order-details.repo.ts';
export { appendOrderEvent, insertRowEvents, insertTransitionEvent } from './order-events.repo.ts';
export {
  onOrderTransition,
  type OrderStatus,
  type OrderTransition,
  PURCHASED_STATUSES,
  transitionOrder,
} from './order-status.ts';
export { matchingOrders, type OrderListFilter } from './orders-list.repo.ts';
export { registerOrderRoutes } from './orders.routes.ts';
export { OrderIdParams, OrderListQuery, PAYMENT_METHODS } from './orders.schemas.ts';
export { findOrderDetails, listFilter } from './orders.service.ts';
export {
  PAYMENT_STATUSES,
  PAYMENT_TRANSITIONS,
  paymentSourcesOf,
  type PaymentStatus,
  SETTLED_PAYMENT_STATUSES,
} from './payment-states.ts';
