import { VOID_CANCELLED_ORDER_JOB, voidAttemptOfCancelledOrder } from './attempts/cancelled-order-void.ts';
import { VOID_ORPHAN_JOB, VOID_SUPERSEDED_JOB } from './attempts/orphan-capture.ts';
import { type GatewayDeps } from './attempts/pay-gateways.ts';
import {
  expirePix,
  reconcilePayment,
  recoverIntent,
  voidOrphanCapture,
  voidSupersededAttempt,
} from './attempts/payment-jobs.service.ts';
import { EXPIRE_PIX_JOB, RECONCILE_JOB, RECOVER_INTENT_JOB } from './attempts/payment-record.ts';
import { RECONCILE_REFUND_JOB, reconcileStaleRefund } from './refunds/refund-reconciliation.ts';
import { RELEASE_PAID_ORDER_JOB, releaseConfirmedOrder } from './settlement/paid-order-release.ts';
import { renewSubscription } from './subscriptions/subscription-renewal.ts';
import { RENEW_JOB } from './subscriptions/subscriptions.ts';
import type { JobHandler } from '../../queue/job-handler.ts';

export type PaymentJobDeps = GatewayDeps & { clock: () => Date };

type PaymentPayload = { account_id: string; payment_id: number };
type SubscriptionPayload = { account_id: string; subscription_id: string };
type OrderPayload = { account_id: string; order_id: number };
type RefundPayload = { account_id: string; refund_uid: string; unanswered?: boolean };

/** Handlers of the pay flows' background jobs: pix expiry, void of captures an order cannot keep and of attempts superseded by a payment, reconciliation of unanswered charges, of intents orphaned by a crash and of stale refund reservations, renewals, release of orders paid later. */
export function paymentJobHandlers(deps: PaymentJobDeps): Record<string, JobHandler> {
  const resolve = () => deps;
  return {
    [EXPIRE_PIX_JOB]: async (job, { database }) => {
      const payload = job.payload as PaymentPayload;
      const current = resolve();
      await expirePix(
        database.db,
        current,
        { accountId: payload.account_id, paymentId: payload.payment_id },
        current.clock(),
      );
    },
    [VOID_ORPHAN_JOB]: async (job, { database }) => {
      const payload = job.payload as PaymentPayload;
      const current = resolve();
      await voidOrphanCapture(
        database.db,
        current,
        { accountId: payload.account_id, paymentId: payload.payment_id },
        current.clock(),
      );
    },
    [VOID_SUPERSEDED_JOB]: async (job, { database }) => {
      const payload = job.payload as PaymentPayload;
      const current = resolve();
      await voidSupersededAttempt(
        database.db,
        current,
        { accountId: payload.account_id, paymentId: payload.payment_id },
        current.clock(),
      );
    },
    [VOID_CANCELLED_ORDER_JOB]: async (job, { database }) => {
      const payload = job.payload as PaymentPayload;
      const current = resolve();
      await voidAttemptOfCancelledOrder(
        database.db,
        current,
        { accountId: payload.account_id, paymentId: payload.payment_id },
        current.clock(),
      );
    },
    [RECONCILE_JOB]: async (job, { database }) => {
      const payload = job.payload as PaymentPayload;
      const current = resolve();
      await reconcilePayment(
        database.db,
        current,
        { accountId: payload.account_id, paymentId: payload.payment_id },
        current.clock(),
      );
    },
    [RECOVER_INTENT_JOB]: async (job, { database }) => {
      const payload = job.payload as PaymentPayload;
      const current = resolve();
      await recoverIntent(
        database.db,
        current,
        { accountId: payload.account_id, paymentId: payload.payment_id },
        current.clock(),
      );
    },
    [RELEASE_PAID_ORDER_JOB]: async (job, { database }) => {
      const payload = job.payload as OrderPayload;
      await releaseConfirmedOrder(
        database.db,
        { accountId: payload.account_id, orderId: payload.order_id },
        resolve().clock(),
      );
    },
    [RECONCILE_REFUND_JOB]: async (job, { database }) => {
      const payload = job.payload as RefundPayload;
      const current = resolve();
      await reconcileStaleRefund(
        database.db,
        current,
        { accountId: payload.account_id, refundUid: payload.refund_uid },
        current.clock(),
        { unanswered: payload.unanswered === true },
      );
    },
    [RENEW_JOB]: async (job, { database }) => {
      const payload = job.payload as SubscriptionPayload;
      const current = resolve();
      await renewSubscription(
        database.db,
        current,
        { accountId: payload.account_id, subscriptionId: payload.subscription_id },
        current.clock(),
      );
    },
  };
}
