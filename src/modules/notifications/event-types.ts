/** The closed set of events merchants can subscribe to. */
export const NOTIFICATION_EVENT_TYPES = [
  'order.paid',
  'order.partially_refunded',
  'order.refunded',
  'order.cancelled',
  'order.billed',
  'order.chargeback',
  'payment.failed',
  'refund.succeeded',
  'subscription.payment_due',
  'subscription.renewed',
  'subscription.cancelled',
] as const;
export type NotificationEventType = (typeof NOTIFICATION_EVENT_TYPES)[number];

/** The order statuses whose arrival is an event (the other statuses are steps merchants need not act on). */
export const ORDER_STATUS_EVENTS: Readonly<Partial<Record<string, NotificationEventType>>> = {
  paid: 'order.paid',
  partially_refunded: 'order.partially_refunded',
  refunded: 'order.refunded',
  cancelled: 'order.cancelled',
  billed: 'order.billed',
};

/** Payment statuses that are events: a chargeback leaves the order's status alone, so it is seen on the payment. */
export const PAYMENT_STATUS_EVENTS: Readonly<Partial<Record<string, NotificationEventType>>> = {
  failed: 'payment.failed',
  charged_back: 'order.chargeback',
};

export function isNotificationEventType(value: string): value is NotificationEventType {
  return (NOTIFICATION_EVENT_TYPES as readonly string[]).includes(value);
}

/** Ids are prefixed by kind so a CLI argument says what it names. */
export const ID_PREFIX = { endpoint: 'ep_', event: 'evt_', delivery: 'dlv_' } as const;
