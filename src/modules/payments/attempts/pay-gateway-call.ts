import { GatewayRequestError } from '../../../gateways/errors.ts';
import {
  GatewayUnavailableError,
  type BoletoIssued,
  type Buyer,
  type PaymentMetadata,
  type SavedMethod,
} from '../../../gateways/port.ts';
import type { ResolvedGateway } from './pay-gateways.ts';

/** One payment to submit: the row was recorded `pending` before this call. */
export type GatewayRequest = {
  paymentUid: string;
  method: 'credit_card' | 'pix' | 'bank_slip';
  amountCents: number;
  installments: number;
  card?: { token?: string; confirmationTokenId?: string; savedReference?: string; saveForLater: boolean };
  pixExpiresAt?: Date;
  boletoDueDate?: string;
  buyer: Buyer;
  description: string;
  metadata: PaymentMetadata;
};

export type GatewayAnswer =
  | { kind: 'paid'; gatewayId: string; savedMethod?: SavedMethod }
  | { kind: 'declined'; gatewayId: string | null; code: string; message: string }
  | { kind: 'pix'; gatewayId: string; brCode: string; expiresAt: Date }
  | ({ kind: 'boleto' } & BoletoIssued)
  | { kind: 'refused'; code: string; message: string }
  | { kind: 'unavailable'; reason: 'timeout' | 'error'; message: string };

/** The idempotency key a payment's charge call sends; reconciliation looks the charge up by it. */
export const payIdempotencyKey = (paymentUid: string) => `pay:${paymentUid}`;

/**
 * Calls the gateway for one payment, outside any transaction, and turns every way it can end into an
 * answer: a decline and a refusal are outcomes, a timeout or 5xx is `unavailable` (the row stays pending).
 * The payment uid is the idempotency key, so a retry never charges twice.
 */
export async function submitToGateway(gateway: ResolvedGateway, request: GatewayRequest): Promise<GatewayAnswer> {
  const common = {
    buyer: request.buyer,
    description: request.description,
    metadata: request.metadata,
    idempotencyKey: payIdempotencyKey(request.paymentUid),
  };
  try {
    if (request.method === 'pix') {
      const issued = await gateway.client.createPix(gateway.account, {
        ...common,
        amountCents: request.amountCents,
        expiresAt: request.pixExpiresAt!,
      });
      return { kind: 'pix', ...issued };
    }
    if (request.method === 'bank_slip') {
      const issued = await gateway.client.createBoleto(gateway.account, {
        ...common,
        amountCents: request.amountCents,
        dueDate: request.boletoDueDate!,
      });
      return { kind: 'boleto', ...issued };
    }
    const card = request.card!;
    const outcome = card.savedReference
      ? await gateway.client.chargeSavedMethod(gateway.account, {
          ...common,
          amountCents: request.amountCents,
          installments: request.installments,
          methodReference: card.savedReference,
        })
      : await gateway.client.chargeCard(gateway.account, {
          ...common,
          amountCents: request.amountCents,
          installments: request.installments,
          saveForLater: card.saveForLater,
          ...(card.token !== undefined ? { cardToken: card.token } : {}),
          ...(card.confirmationTokenId !== undefined ? { confirmationTokenId: card.confirmationTokenId } : {}),
        });
    if (outcome.status === 'paid')
      return {
        kind: 'paid',
        gatewayId: outcome.gatewayId,
        ...(outcome.savedMethod ? { savedMethod: outcome.savedMethod } : {}),
      };
    return { kind: 'declined', gatewayId: outcome.gatewayId, code: outcome.code, message: outcome.message };
  } catch (error) {
    if (error instanceof GatewayUnavailableError)
      return { kind: 'unavailable', reason: error.kind, message: error.message };
    if (error instanceof GatewayRequestError) return { kind: 'refused', code: error.code, message: error.message };
    throw error;
  }
}
