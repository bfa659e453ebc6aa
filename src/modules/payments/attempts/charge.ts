import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import { pixQrPngBase64 } from '../../../brazil/render/index.ts';
import type { GatewayName } from '../../../gateways/port.ts';
import { AppError } from '../../../http/errors.ts';
import { appendOrderEvent, dateIn, dateInDaysAfter } from '../../orders/index.ts';
import { insertPaymentRow } from '../payments.repo.ts';
import { submitToGateway, type GatewayAnswer, type GatewayRequest } from './pay-gateway-call.ts';
import type { ResolvedGateway } from './pay-gateways.ts';
import {
  enqueueIntentRecovery,
  recordGatewayAnswer,
  type RecordedAnswer,
  type RecordedPayment,
} from './payment-record.ts';

/*
 * "Charge once", the one way every flow takes money: checkout payments, upsell and subscription renewals.
 * The payment is recorded `pending` before the call (its intent), the gateway request is built here from
 * the order, the buyer and the company's terms, the call is made outside any transaction under the
 * payment's uid, and the answer is recorded in one transaction with whatever else it changes for the flow.
 */

export type PayMethod = GatewayRequest['method'];

/** The company's figures a charge reads: its name (the description) and its terms for pix and boleto. */
export type ChargeCompany = {
  name: string;
  time_zone: string;
  pix_expiration_minutes: number;
  boleto_due_days: number;
};

/** The buyer as the customer row holds it. */
export type ChargeBuyer = { name: string; email: string; identification: string | null; phone: string | null };

/**
 * Until when an issued pix or boleto can be paid: the company's terms counted from an instant (checkout,
 * upsell), or a fixed instant (a renewal's payment window).
 */
export type PaymentDeadline = { termsFrom: Date } | { until: Date };

/** One payment of one order, as the gateway is asked to take it. */
export type Charge = {
  gateway: ResolvedGateway;
  payment: RecordedPayment;
  orderUid: string;
  method: PayMethod;
  amountCents: number;
  installments: number;
  card?: GatewayRequest['card'];
  buyer: ChargeBuyer;
  company: ChargeCompany;
  /** What is paid for, as the description names it after the company: `order <uid>`, `subscription <id>`. */
  purpose: string;
  deadline: PaymentDeadline;
};

/** A charge refused before any call: a card charge with no usable saved card. Its answer is recorded all the same. */
export type RefusedCharge = { payment: RecordedPayment; refused: { code: string; message: string } };

/** The pix expiry or the boleto due date the request carries. */
function paymentDeadline(charge: Charge): Pick<GatewayRequest, 'pixExpiresAt' | 'boletoDueDate'> {
  const { company, deadline } = charge;
  if (charge.method === 'pix')
    return {
      pixExpiresAt:
        'until' in deadline
          ? deadline.until
          : new Date(deadline.termsFrom.getTime() + company.pix_expiration_minutes * 60_000),
    };
  if (charge.method === 'bank_slip')
    return {
      boletoDueDate:
        'until' in deadline
          ? dateIn(company.time_zone, deadline.until)
          : dateInDaysAfter(company.time_zone, deadline.termsFrom, company.boleto_due_days),
    };
  return {};
}

/** The gateway request of a charge: amount, card, deadline, buyer, description and our references. */
export function gatewayRequest(charge: Charge): GatewayRequest {
  const { buyer, card } = charge;
  return {
    paymentUid: charge.payment.uid,
    method: charge.method,
    amountCents: charge.amountCents,
    installments: charge.installments,
    ...(card ? { card } : {}),
    ...paymentDeadline(charge),
    buyer: { name: buyer.name, email: buyer.email, document: buyer.identification, phone: buyer.phone },
    description: `${charge.company.name} ${charge.purpose}`,
    metadata: { companyId: charge.payment.companyId, orderUid: charge.orderUid, paymentUid: charge.payment.uid },
  };
}

/** What recording an answer does besides recording it; `record` writes the answer (a flow that finds the attempt settled elsewhere leaves it). */
export type SettleAnswer<T> = (
  trx: Kysely<DB>,
  outcome: { answer: GatewayAnswer; at: Date; record: () => Promise<RecordedAnswer> },
) => Promise<T>;

/** For a flow whose answer changes nothing more: the answer recorded, and what it left. */
export const recordOnly: SettleAnswer<RecordedAnswer> = (_trx, { record }) => record();

/**
 * Charges one pending payment once: the request, the call (the payment uid is the idempotency key, so a
 * second submission is replayed by the gateway), then the answer recorded at `answeredAt()` in one
 * transaction with what `settle` adds. A charge already refused is recorded without a call.
 */
export async function chargeOnce<T>(
  db: Kysely<DB>,
  masterKey: Buffer,
  charge: Charge | RefusedCharge,
  options: { answeredAt: () => Date; settle: SettleAnswer<T> },
): Promise<{ answer: GatewayAnswer; settled: T }> {
  const answer: GatewayAnswer =
    'refused' in charge
      ? { kind: 'refused', ...charge.refused }
      : await submitToGateway(charge.gateway, gatewayRequest(charge));
  const at = options.answeredAt();
  const settled = await db.transaction().execute((trx) =>
    options.settle(trx, {
      answer,
      at,
      record: () => recordGatewayAnswer(trx, masterKey, charge.payment, answer, at),
    }),
  );
  return { answer, settled };
}

/** The intent of a one-payment charge (an upsell, a renewal): what its `pending` row holds. */
export type PendingPayment = {
  accountId: string;
  companyId: number;
  orderId: number;
  gateway: GatewayName;
  method: PayMethod;
  planId: number | null;
  amountCents: number;
  savedMethodId: string | null;
  /** The `payment.created` event's cause. */
  cause: string;
  /** With the job that looks the charge up should this process die before its answer is recorded; a renewal has its own. */
  recovery: boolean;
};

/**
 * Records a one-payment charge's intent in the caller's transaction, before any gateway call: the `pending`
 * row (one installment) and its `payment.created` event, with the recovery job when asked. Checkout intents,
 * which create their customer and order with up to two payments, are one statement of their own (pay-intent.ts).
 */
export async function recordPendingPayment(
  trx: Kysely<DB>,
  pending: PendingPayment,
  now: Date,
): Promise<{ id: number; uid: string }> {
  const uid = randomUUID();
  const id = await insertPaymentRow(trx, {
    uid,
    account_id: pending.accountId,
    company_id: pending.companyId,
    order_id: pending.orderId,
    gateway: pending.gateway,
    method: pending.method,
    status: 'pending',
    payment_plan_id: pending.planId,
    installments: 1,
    amount_cents: pending.amountCents,
    installment_value_cents: pending.amountCents,
    saved_payment_method_id: pending.savedMethodId,
    created_at: now,
    updated_at: now,
  });
  await appendOrderEvent(trx, {
    accountId: pending.accountId,
    orderId: pending.orderId,
    paymentId: id,
    type: 'payment.created',
    cause: pending.cause,
    toStatus: 'pending',
    at: now,
  });
  if (pending.recovery) await enqueueIntentRecovery(trx, { accountId: pending.accountId, id }, now);
  return { id, uid };
}

/** The hosted pages a buyer pays an issued pix or boleto on (relative to the public URL). */
export const pixPagePath = (paymentUid: string) => `/pay/pix/${paymentUid}`;
export const boletoPagePath = (paymentUid: string) => `/pay/boleto/${paymentUid}`;

export type IssuedSlip = { pix?: { qrCode: string; url: string; expiresAt: Date }; bankSlipUrl?: string };

/** What the buyer is given for an issued pix (its QR image and page) or boleto (its page); nothing for a card. */
export async function issuedSlip(publicUrl: string, paymentUid: string, answer: GatewayAnswer): Promise<IssuedSlip> {
  if (answer.kind === 'pix')
    return {
      pix: {
        qrCode: await pixQrPngBase64(answer.brCode),
        url: `${publicUrl}${pixPagePath(paymentUid)}`,
        expiresAt: answer.expiresAt,
      },
    };
  if (answer.kind === 'boleto') return { bankSlipUrl: `${publicUrl}${boletoPagePath(paymentUid)}` };
  return {};
}

/**
 * A gateway that gave no answer is the caller's 504 (timed out: it may have charged) or 502 (failed); either
 * way the payment stays pending and reconciliation finds out what happened.
 */
export function throwIfUnanswered(answer: GatewayAnswer | undefined): void {
  if (answer?.kind !== 'unavailable') return;
  throw answer.reason === 'timeout'
    ? new AppError('gateway_timeout', 'The gateway did not answer in time; the payment will be reconciled')
    : new AppError(
        'gateway_error',
        'The gateway failed; the payment will be reconciled (a new attempt needs a new Idempotency-Key)',
      );
}
