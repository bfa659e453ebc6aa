import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import type { GatewayName, SavedMethod } from '../../../gateways/port.ts';
import { enqueueJob } from '../../../queue/outbox.ts';
import { seal } from '../../../lib/crypto.ts';
import { appendOrderEvent, type OrderStatus } from '../../orders/index.ts';
import { settleOrder } from '../settlement/order-settlement.ts';
import type { GatewayAnswer } from './pay-gateway-call.ts';
import { transitionPayment, type PaymentStatus, type PaymentTransitionResult } from '../settlement/payment-status.ts';
import { lockPaymentAndOrder } from '../refunds/refunds.repo.ts';

export const EXPIRE_PIX_JOB = 'payments.expire_pix';
export const RECONCILE_JOB = 'payments.reconcile';
/** A payment the gateway did not answer for is looked up again after this long. */
export const RECONCILE_DELAY_MS = 2 * 60_000;
export const RECOVER_INTENT_JOB = 'payments.recover_intent';

/**
 * Written with every payment intent, in its transaction. A process that dies during the gateway call
 * records no answer at all (not even "unavailable"), so nothing else would ever look at the payment
 * again; this job does, after the call has long finished or failed. A payment answered by then is skipped.
 */
export function enqueueIntentRecovery(
  trx: Kysely<DB>,
  payment: { accountId: string; id: number },
  at: Date,
): Promise<boolean> {
  return enqueueJob(trx, {
    type: RECOVER_INTENT_JOB,
    payload: { account_id: payment.accountId, payment_id: payment.id },
    accountId: payment.accountId,
    runAt: new Date(at.getTime() + RECONCILE_DELAY_MS),
    dedupKey: `${RECOVER_INTENT_JOB}:${payment.id}`,
  });
}

export type RecordedPayment = {
  id: number;
  uid: string;
  accountId: string;
  companyId: number;
  orderId: number;
  customerId: number | null;
  gateway: GatewayName;
};

/** A reusable card reference, sealed at rest; returns the saved method's id. */
export async function saveMethod(
  trx: Kysely<DB>,
  masterKey: Buffer,
  payment: RecordedPayment,
  method: SavedMethod,
  at: Date,
): Promise<string> {
  const id = randomUUID();
  await trx
    .insertInto('saved_payment_methods')
    .values({
      id,
      account_id: payment.accountId,
      company_id: payment.companyId,
      customer_id: payment.customerId!,
      gateway: payment.gateway,
      gateway_reference_encrypted: seal(masterKey, method.reference),
      brand: method.brand,
      last4: method.last4 && /^[0-9]{4}$/.test(method.last4) ? method.last4 : null,
      exp_month: method.expMonth,
      exp_year: method.expYear,
      created_at: at,
    })
    .execute();
  return id;
}

/** What recording an answer left: the order's status, and the payment's when this answer moved it. */
export type RecordedAnswer = { orderStatus: OrderStatus | undefined; paymentStatus: PaymentStatus | undefined };

/**
 * Records the gateway's answer for one pending payment, in the caller's transaction: the payment's
 * transition (with the gateway id and the method's data), the order's status derived from its payments,
 * the pix expiry job or the reconciliation job. `paymentStatus` is undefined when the payment had already
 * moved (a webhook or a reconciliation got there first) or stays pending (gateway unavailable).
 */
export async function recordGatewayAnswer(
  trx: Kysely<DB>,
  masterKey: Buffer,
  payment: RecordedPayment,
  answer: GatewayAnswer,
  at: Date,
): Promise<RecordedAnswer> {
  const base = { accountId: payment.accountId, paymentId: payment.id, at, withOrder: true };
  let moved: PaymentTransitionResult;
  switch (answer.kind) {
    case 'paid': {
      // Money settles: the payment, then its order, are locked first (the order refunds take them in), so a
      // second payment of the same order settling at the same moment waits and then sees this one.
      await lockPaymentAndOrder(trx, payment.accountId, payment.id, payment.orderId);
      const savedId =
        answer.savedMethod && payment.customerId !== null
          ? await saveMethod(trx, masterKey, payment, answer.savedMethod, at)
          : null;
      moved = await transitionPayment(trx, {
        ...base,
        to: 'paid',
        cause: 'card approved by the gateway', // A charge of an already saved method keeps its link: only a newly saved card replaces it.
        set: { gateway_id: answer.gatewayId, ...(savedId !== null ? { saved_payment_method_id: savedId } : {}) },
      });
      break;
    }
    case 'declined':
      moved = await transitionPayment(trx, {
        ...base,
        to: 'failed',
        cause: 'card declined by the gateway',
        set: { gateway_id: answer.gatewayId, failure_code: answer.code, failure_message: answer.message.slice(0, 500) },
      });
      break;
    case 'refused':
      moved = await transitionPayment(trx, {
        ...base,
        to: 'failed',
        cause: 'request refused by the gateway',
        set: { failure_code: answer.code, failure_message: answer.message.slice(0, 500) },
      });
      break;
    case 'pix':
      moved = await transitionPayment(trx, {
        ...base,
        to: 'waiting_payment',
        cause: 'pix issued',
        set: { gateway_id: answer.gatewayId, pix_code: answer.brCode, pix_expires_at: answer.expiresAt },
        causes: {
          type: EXPIRE_PIX_JOB,
          payload: { account_id: payment.accountId, payment_id: payment.id },
          runAt: answer.expiresAt,
          dedupKey: `${EXPIRE_PIX_JOB}:${payment.id}`,
        },
      });
      break;
    case 'boleto':
      moved = await transitionPayment(trx, {
        ...base,
        to: 'waiting_payment',
        cause: 'boleto issued',
        set: {
          gateway_id: answer.gatewayId,
          boleto_barcode: answer.barcode,
          boleto_digitable_line: answer.digitableLine,
          boleto_due_date: answer.dueDate,
          // A boleto híbrido's Pix pays the same payment; the method stays bank_slip.
          ...(answer.pixCode ? { pix_code: answer.pixCode } : {}),
          ...(answer.beneficiaryCode ? { boleto_beneficiary_code: answer.beneficiaryCode } : {}),
        },
      });
      break;
    case 'unavailable':
      // The gateway may have acted (timeout) or not (error): the row stays pending and is looked up later.
      await appendOrderEvent(trx, {
        accountId: payment.accountId,
        orderId: payment.orderId,
        paymentId: payment.id,
        type: 'payment.gateway_unavailable',
        cause: `gateway ${answer.reason}`,
        data: { reason: answer.reason },
        at,
      });
      await enqueueJob(trx, {
        type: RECONCILE_JOB,
        payload: { account_id: payment.accountId, payment_id: payment.id },
        accountId: payment.accountId,
        runAt: new Date(at.getTime() + RECONCILE_DELAY_MS),
        dedupKey: `${RECONCILE_JOB}:${payment.id}`,
      });
      return { orderStatus: undefined, paymentStatus: undefined };
  }
  const snapshot = moved.changed ? moved.order : undefined;
  const orderStatus = await settleOrder(trx, {
    accountId: payment.accountId,
    orderId: payment.orderId,
    cause: `payment ${answer.kind}`,
    paymentId: payment.id,
    at,
    ...(snapshot ? { snapshot } : {}),
  });
  return { orderStatus, paymentStatus: moved.changed ? moved.to : undefined };
}
