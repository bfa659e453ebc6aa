import type { Static } from 'typebox';
import { toMajor } from '../../../lib/money.ts';
import type { CartPayResultSchema, ChargePayResultSchema, PaymentResultSchema } from './pay.schemas.ts';
import type { PayOutcome } from './pay.service.ts';

/** The pix and boleto fields, present only for their method. */
function methodFields(outcome: PayOutcome) {
  return {
    ...(outcome.bankSlipUrl ? { bank_slip_url: outcome.bankSlipUrl } : {}),
    ...(outcome.pix
      ? {
          pix_qr_code: outcome.pix.qrCode,
          pix_qr_code_url: outcome.pix.url,
          pix_expires_at: outcome.pix.expiresAt.toISOString(),
        }
      : {}),
  };
}

export function paymentResult(outcome: PayOutcome, redirectUrl: string | null): Static<typeof PaymentResultSchema> {
  return {
    order_status: outcome.orderStatus,
    payments: outcome.payments.map((payment) => payment.gatewayId),
    ...methodFields(outcome),
    ...(redirectUrl ? { redirect_url: redirectUrl } : {}),
    ...(outcome.offer ? { offer: outcome.offer } : {}),
    is_subscription: outcome.isSubscription,
  };
}

/** Cart payments as objects: {id (payment uid), gateway_id, status, method, amount, installments}. */
export function cartPayResult(outcome: PayOutcome, redirectUrl: string | null): Static<typeof CartPayResultSchema> {
  return {
    order_status: outcome.orderStatus,
    payments: outcome.payments.map((payment) => ({
      id: payment.uid,
      gateway_id: payment.gatewayId,
      status: payment.status,
      method: payment.method,
      amount: toMajor(payment.amountCents),
      installments: payment.installments,
    })),
    ...methodFields(outcome),
    redirect_url: redirectUrl || null,
  };
}

export function chargePayResult(outcome: PayOutcome, confirmationUrl: string): Static<typeof ChargePayResultSchema> {
  return {
    ...(outcome.cardStatus ? { status: outcome.cardStatus } : {}),
    ...methodFields(outcome),
    redirect_url: confirmationUrl,
  };
}
