// The payments module's public face: other modules and the processes import only what is listed here.
export { applyPaymentAction } from './attempts/gateway-actions.ts';
export { VOID_ORPHAN_JOB, VOID_SUPERSEDED_JOB } from './attempts/orphan-capture.ts';
export { type GatewayAnswer, submitToGateway } from './attempts/pay-gateway-call.ts';
export { type GatewayDeps, resolveGateway } from './attempts/pay-gateways.ts';
export { sameAttempt } from './attempts/payment-attempt.ts';
export {
  expirePix,
  reconcilePayment,
  recoverIntent,
  voidOrphanCapture,
  voidSupersededAttempt,
} from './attempts/payment-jobs.service.ts';
export {
  enqueueIntentRecovery,
  EXPIRE_PIX_JOB,
  RECONCILE_JOB,
  recordGatewayAnswer,
  RECOVER_INTENT_JOB,
} from './attempts/payment-record.ts';
export { assertChargePayable } from './checkout/pay-context.ts';
export { createPayOrder } from './checkout/pay-order.ts';
export { registerPayRoutes } from './checkout/pay.routes.ts';
export {
  findOrderProducts,
  findPayCompany,
  findSavedMethod,
  insertPaymentRow,
  purchasedOrderOfCart,
} from './payments.repo.ts';
export { registerPaymentReadRoutes } from './reads/payment-reads.routes.ts';
export { sweepPendingRefunds } from './refunds/pending-refund-sweep.ts';
export { RECONCILE_REFUND_JOB, reconcileStaleRefund } from './refunds/refund-reconciliation.ts';
export { registerRefundRoutes } from './refunds/refunds.routes.ts';
export { refundPayment } from './refunds/refunds.service.ts';
export { RELEASE_PAID_ORDER_JOB, releaseConfirmedOrder, releasePaidOrder } from './settlement/paid-order-release.ts';
export { type PaymentStatus, SETTLED_PAYMENT_STATUSES } from './settlement/payment-status.ts';
export { genuineOfferToken, openOfferToken, verifyOfferToken } from './settlement/upsell-offer-token.ts';
export { endSubscription, endSubscriptionOfRefundedOrder } from './subscriptions/subscription-end.ts';
export { renewSubscription, scheduleDueRenewals } from './subscriptions/subscription-renewal.ts';
export { RENEW_JOB } from './subscriptions/subscriptions.ts';
