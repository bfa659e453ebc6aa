/** The states an order's payments move through; `transitionPayment` in payments is the one place that moves them. */
export const PAYMENT_STATUSES = [
  'pending',
  'waiting_payment',
  'paid',
  'failed',
  'cancelled',
  'waiting_cancellation',
  'partially_refunded',
  'refunded',
  'charged_back',
] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/**
 * The one transition table of a payment. Money only moves forward: a paid payment never returns to
 * waiting or failed, so a late or duplicate gateway event cannot undo a settlement. failed, cancelled,
 * refunded and charged_back are final.
 */
export const PAYMENT_TRANSITIONS: Readonly<Record<PaymentStatus, readonly PaymentStatus[]>> = {
  pending: ['waiting_payment', 'paid', 'failed', 'cancelled'],
  waiting_payment: ['paid', 'failed', 'cancelled'],
  paid: ['partially_refunded', 'refunded', 'charged_back', 'waiting_cancellation'],
  waiting_cancellation: ['cancelled', 'refunded', 'charged_back'],
  partially_refunded: ['refunded', 'charged_back'],
  failed: [],
  cancelled: [],
  refunded: [],
  charged_back: [],
};

/** Payments whose money stands and pays for their order (a refunded or charged-back one no longer does). */
export const SETTLED_PAYMENT_STATUSES: readonly PaymentStatus[] = [
  'paid',
  'partially_refunded',
  'waiting_cancellation',
];

export function paymentSourcesOf(to: PaymentStatus): PaymentStatus[] {
  return PAYMENT_STATUSES.filter((from) => PAYMENT_TRANSITIONS[from].includes(to));
}
