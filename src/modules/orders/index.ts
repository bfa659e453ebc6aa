/** What other modules use of orders: the one transition function and the order id parameter. */
export { transitionOrder, type OrderStatus } from './order-status.ts';
export { OrderIdParams } from './orders.schemas.ts';
