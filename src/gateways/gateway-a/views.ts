import type { ChargeEvent } from '../sandbox/lifecycle.ts';
import { refundedCents, sandboxId, type SandboxCharge, type SandboxRefund } from '../sandbox/store.ts';
import type {
  GatewayACharge,
  GatewayARefund,
  GatewayAChargeStatus,
  GatewayAOrder,
  GatewayATransaction,
  GatewayATransactionStatus,
  GatewayAWebhook,
  GatewayAWebhookType,
} from './types.ts';

/** Marks a charge whose full refund came from `POST /charges/{id}/cancel` (shown as canceled, not refunded). */
export const CANCELED_BY_MERCHANT = 'canceled_by_merchant';

export function chargeStatusOf(charge: SandboxCharge): GatewayAChargeStatus {
  switch (charge.state) {
    case 'waiting_payment':
      return 'pending';
    case 'failed':
    case 'expired':
      return 'failed';
    case 'cancelled':
      return 'canceled';
    case 'paid':
      if (charge.dispute) return 'chargedback';
      if (refundedCents(charge) < charge.amountCents) return 'paid';
      return charge.refs[CANCELED_BY_MERCHANT] ? 'canceled' : 'refunded';
  }
}

function transactionStatusOf(charge: SandboxCharge): GatewayATransactionStatus {
  if (charge.state === 'waiting_payment' || charge.state === 'expired') return charge.state;
  if (charge.state === 'failed') return 'not_authorized';
  if (charge.state === 'cancelled') return 'canceled';
  return charge.method === 'credit_card' ? 'captured' : 'paid';
}

const RETURN_CODES = { declined: '05', insufficient_funds: '51', expired: '05' } as const;

function transactionOf(charge: SandboxCharge): GatewayATransaction {
  const transaction: GatewayATransaction = {
    id: charge.refs.transaction_id!,
    transaction_type: charge.method,
    status: transactionStatusOf(charge),
    success: charge.state !== 'failed' && charge.state !== 'expired',
    amount: charge.amountCents,
    created_at: charge.createdAt.toISOString(),
  };
  if (charge.card) {
    const { card } = charge;
    transaction.installments = charge.installments;
    transaction.acquirer_return_code = charge.failure ? RETURN_CODES[charge.failure.code] : '00';
    transaction.acquirer_message = charge.failure?.message ?? 'Transação aprovada';
    transaction.card = {
      first_six_digits: card.firstSix,
      last_four_digits: card.lastFour,
      brand: card.brand,
      holder_name: card.holderName,
      exp_month: card.expMonth,
      exp_year: card.expYear,
    };
    if (card.savedMethodId) transaction.card.id = card.savedMethodId;
  }
  if (charge.pix)
    Object.assign(transaction, {
      qr_code: charge.pix.brCode,
      qr_code_url: charge.pix.locationUrl,
      expires_at: charge.pix.expiresAt.toISOString(),
    });
  if (charge.boleto)
    Object.assign(transaction, {
      line: charge.boleto.digitableLine,
      barcode: charge.boleto.barcode,
      due_at: `${charge.boleto.dueDate}T00:00:00Z`,
      pdf: charge.boleto.url,
      qr_code: charge.boleto.pix.brCode,
      beneficiary_code: charge.boleto.beneficiaryCode,
    });
  if (charge.failure?.code === 'expired') transaction.acquirer_message = charge.failure.message;
  return transaction;
}

export function refundView(refund: SandboxRefund): GatewayARefund {
  return {
    id: refund.id,
    amount: refund.amountCents,
    status: 'refunded',
    created_at: refund.createdAt.toISOString(),
    ...(refund.reference ? { code: refund.reference } : {}),
  };
}

export function chargeView(charge: SandboxCharge): GatewayACharge {
  const view: GatewayACharge = {
    id: charge.id,
    code: charge.refs.code ?? charge.id,
    amount: charge.amountCents,
    paid_amount: charge.paidAt ? charge.amountCents : 0,
    refunded_amount: refundedCents(charge),
    status: chargeStatusOf(charge),
    payment_method: charge.method,
    created_at: charge.createdAt.toISOString(),
    updated_at: charge.updatedAt.toISOString(),
    order: { id: charge.refs.order_id! },
    metadata: charge.metadata,
    last_transaction: transactionOf(charge),
    refunds: charge.refunds.map(refundView),
  };
  if (charge.paidAt) view.paid_at = charge.paidAt.toISOString();
  if (charge.cancelledAt) view.canceled_at = charge.cancelledAt.toISOString();
  if (charge.dispute)
    view.chargeback = {
      id: charge.dispute.id,
      amount: charge.dispute.amountCents,
      created_at: charge.dispute.createdAt.toISOString(),
    };
  return view;
}

export function orderView(charge: SandboxCharge): GatewayAOrder {
  const status = chargeStatusOf(charge);
  return {
    id: charge.refs.order_id!,
    code: charge.refs.code ?? charge.id,
    amount: charge.amountCents,
    currency: 'BRL',
    status: status === 'pending' || status === 'failed' || status === 'canceled' ? status : 'paid',
    closed: true,
    created_at: charge.createdAt.toISOString(),
    metadata: charge.metadata,
    charges: [chargeView(charge)],
  };
}

const EVENT_TYPES: Record<ChargeEvent['kind'], GatewayAWebhookType> = {
  paid: 'charge.paid',
  failed: 'charge.payment_failed',
  expired: 'charge.payment_failed',
  cancelled: 'charge.canceled',
  refunded: 'charge.refunded',
  disputed: 'charge.chargedback',
};

/** The webhooks one event produces: the charge's, and the order's when the order is settled by it. */
export function webhooksFor(charge: SandboxCharge, event: ChargeEvent, now: Date): GatewayAWebhook[] {
  const created = now.toISOString();
  const hooks: GatewayAWebhook[] = [
    { id: sandboxId('hook_'), type: EVENT_TYPES[event.kind], created_at: created, data: chargeView(charge) },
  ];
  if (event.kind === 'paid')
    hooks.push({ id: sandboxId('hook_'), type: 'order.paid', created_at: created, data: orderView(charge) });
  if (event.kind === 'failed')
    hooks.push({ id: sandboxId('hook_'), type: 'order.payment_failed', created_at: created, data: orderView(charge) });
  return hooks;
}
