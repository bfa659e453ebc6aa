/** What other modules use of payments: the one way a subscription is ended. */
export { endSubscription } from './subscription-end.ts';
