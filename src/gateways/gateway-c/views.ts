import type { ChargeEvent } from '../sandbox/lifecycle.ts';
import { refundedCents, sandboxId, type SandboxCharge } from '../sandbox/store.ts';
import type { GatewayCPostback, GatewayCStatus, GatewayCTransaction } from './types.ts';

export function statusOf(charge: SandboxCharge): GatewayCStatus {
  switch (charge.state) {
    case 'waiting_payment':
      return 'waiting_payment';
    case 'failed':
      return 'refused';
    case 'expired':
      return 'expired';
    case 'cancelled':
      return 'canceled';
    case 'paid': {
      if (charge.dispute) return 'chargedback';
      const refunded = refundedCents(charge);
      return refunded === 0 ? 'paid' : refunded < charge.amountCents ? 'partially_refunded' : 'refunded';
    }
  }
}

const RESPONSE_CODES = { declined: '1000', insufficient_funds: '1016', expired: null } as const;

export function transactionView(charge: SandboxCharge): GatewayCTransaction {
  const { card, pix, boleto, failure } = charge;
  return {
    object: 'transaction',
    id: Number(charge.id),
    status: statusOf(charge),
    status_reason: failure ? (failure.code === 'expired' ? 'expired' : 'acquirer') : card ? 'acquirer' : null,
    acquirer_response_code: card ? (failure ? RESPONSE_CODES[failure.code] : '0000') : null,
    acquirer_response_message: failure?.message ?? (card ? 'Transação aprovada' : null),
    amount: charge.amountCents,
    authorized_amount: charge.paidAt ? charge.amountCents : 0,
    paid_amount: charge.paidAt ? charge.amountCents : 0,
    refunded_amount: refundedCents(charge),
    installments: charge.installments,
    payment_method: charge.method,
    reference_key: charge.refs.reference_key ?? null,
    date_created: charge.createdAt.toISOString(),
    date_updated: charge.updatedAt.toISOString(),
    card: card
      ? {
          object: 'card',
          id: card.savedMethodId ?? charge.refs.card_id!,
          brand: card.brand,
          holder_name: card.holderName,
          first_digits: card.firstSix,
          last_digits: card.lastFour,
          expiration_date: String(card.expMonth).padStart(2, '0') + String(card.expYear % 100).padStart(2, '0'),
          valid: !failure,
        }
      : null,
    pix_qr_code: pix?.brCode ?? null,
    pix_expiration_date: pix?.expiresAt.toISOString() ?? null,
    boleto_barcode: boleto?.barcode ?? null,
    boleto_digitable_line: boleto?.digitableLine ?? null,
    boleto_url: boleto?.url ?? null,
    boleto_expiration_date: boleto?.dueDate ?? null,
    boleto_pix_qr_code: boleto?.pix.brCode ?? null,
    boleto_beneficiary_code: boleto?.beneficiaryCode ?? null,
    metadata: charge.metadata,
    refunds: charge.refunds.map((refund) => ({
      object: 'refund',
      id: refund.id,
      amount: refund.amountCents,
      date_created: refund.createdAt.toISOString(),
      reference_key: refund.reference,
    })),
    chargeback: charge.dispute
      ? {
          id: charge.dispute.id,
          amount: charge.dispute.amountCents,
          date_created: charge.dispute.createdAt.toISOString(),
        }
      : null,
  };
}

function previousStatus(charge: SandboxCharge, event: ChargeEvent): GatewayCStatus {
  if (event.kind === 'refunded') return charge.refunds.length > 1 ? 'partially_refunded' : 'paid';
  if (event.kind === 'disputed') return charge.refunds.length > 0 ? 'partially_refunded' : 'paid';
  return charge.method === 'credit_card' ? 'processing' : 'waiting_payment';
}

/** The postback one event produces (before form encoding). */
export function postbackFor(charge: SandboxCharge, event: ChargeEvent): GatewayCPostback {
  const current = statusOf(charge);
  const postback: GatewayCPostback = {
    postback_id: sandboxId('po_'),
    event: 'transaction_status_changed',
    object: 'transaction',
    id: charge.id,
    old_status: previousStatus(charge, event),
    current_status: current,
    desired_status: current,
    transaction: {
      id: charge.id,
      status: current,
      amount: String(charge.amountCents),
      paid_amount: String(charge.paidAt ? charge.amountCents : 0),
      refunded_amount: String(refundedCents(charge)),
      payment_method: charge.method,
      date_updated: charge.updatedAt.toISOString(),
      metadata: charge.metadata,
    },
  };
  if (charge.failure) postback.transaction.acquirer_response_message = charge.failure.message;
  const card = transactionView(charge).card;
  // Form values are text: the card travels as `transaction[card][…]` strings.
  if (card) postback.transaction.card = { ...card, valid: String(card.valid) };
  if (event.kind === 'refunded') postback.refund = { id: event.refund.id, amount: String(event.refund.amountCents) };
  if (event.kind === 'disputed' && charge.dispute)
    postback.chargeback = { id: charge.dispute.id, amount: String(charge.dispute.amountCents) };
  return postback;
}
