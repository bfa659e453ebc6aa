import type { ChargeEvent } from '../sandbox/lifecycle.ts';
import { refundedCents, sandboxId, type SandboxCharge, type SandboxRefund } from '../sandbox/store.ts';
import { ATTEMPT_EXPIRED } from './transformers.ts';
import type {
  GatewayBCharge,
  GatewayBDispute,
  GatewayBRefund,
  GatewayBEvent,
  GatewayBEventType,
  GatewayBIntentStatus,
  GatewayBNextAction,
  GatewayBPaymentError,
  GatewayBPaymentIntent,
  GatewayBPaymentMethod,
} from './types.ts';

export const API_VERSION = '2024-06-20';

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

function intentStatusOf(charge: SandboxCharge): GatewayBIntentStatus {
  switch (charge.state) {
    case 'waiting_payment':
      return 'requires_action';
    case 'paid':
      return 'succeeded';
    case 'cancelled':
      return 'canceled';
    case 'failed':
    case 'expired':
      return 'requires_payment_method';
  }
}

export function paymentErrorOf(charge: SandboxCharge): GatewayBPaymentError | null {
  const { failure } = charge;
  if (!failure) return null;
  if (failure.code === 'expired')
    return { type: 'invalid_request_error', code: ATTEMPT_EXPIRED, message: failure.message };
  const declineCode = failure.code === 'insufficient_funds' ? 'insufficient_funds' : 'generic_decline';
  return {
    type: 'card_error',
    code: 'card_declined',
    decline_code: declineCode,
    message: failure.code === 'insufficient_funds' ? 'Your card has insufficient funds.' : 'Your card was declined.',
  };
}

function nextActionOf(charge: SandboxCharge): GatewayBNextAction | null {
  if (charge.state !== 'waiting_payment') return null;
  if (charge.pix) {
    return {
      type: 'pix_display_qr_code',
      pix_display_qr_code: {
        data: charge.pix.brCode,
        expires_at: seconds(charge.pix.expiresAt),
        hosted_instructions_url: charge.pix.locationUrl,
      },
    };
  }
  if (charge.boleto) {
    const { boleto } = charge;
    const expiresAt = seconds(new Date(`${boleto.dueDate}T23:59:59-03:00`));
    return {
      type: 'boleto_display_details',
      boleto_display_details: {
        number: boleto.digitableLine,
        barcode: boleto.barcode,
        expires_at: expiresAt,
        due_date: boleto.dueDate,
        hosted_voucher_url: boleto.url,
        pix_qr_code: boleto.pix.brCode,
        beneficiary_code: boleto.beneficiaryCode,
      },
    };
  }
  return null;
}

export function paymentMethodView(charge: SandboxCharge): GatewayBPaymentMethod {
  const card = charge.card && {
    brand: charge.card.brand,
    last4: charge.card.lastFour,
    exp_month: charge.card.expMonth,
    exp_year: charge.card.expYear,
    funding: 'credit' as const,
  };
  return {
    id: charge.refs.payment_method_id!,
    object: 'payment_method',
    type: charge.method === 'credit_card' ? 'card' : charge.method,
    card: card ?? null,
    created: seconds(charge.createdAt),
  };
}

/** The charge exists once money moved or a card was tried; an unpaid pix or boleto has none yet. */
function hasCharge(charge: SandboxCharge): boolean {
  return charge.method === 'credit_card' || charge.paidAt !== null;
}

/** A refund object; the merchant's reference travels in its metadata. */
export function refundView(charge: SandboxCharge, refund: SandboxRefund): GatewayBRefund {
  const metadata: Record<string, string> = refund.reference ? { reference: refund.reference } : {};
  return {
    id: refund.id,
    object: 'refund',
    amount: refund.amountCents,
    currency: 'brl',
    charge: charge.refs.charge_id!,
    payment_intent: charge.id,
    status: 'succeeded',
    created: seconds(refund.createdAt),
    metadata,
  };
}

export function chargeObjectView(charge: SandboxCharge): GatewayBCharge {
  const refunded = refundedCents(charge);
  const error = paymentErrorOf(charge);
  return {
    id: charge.refs.charge_id!,
    object: 'charge',
    amount: charge.amountCents,
    amount_captured: charge.paidAt ? charge.amountCents : 0,
    amount_refunded: refunded,
    currency: 'brl',
    paid: charge.paidAt !== null,
    refunded: charge.paidAt !== null && refunded === charge.amountCents,
    disputed: charge.dispute !== null,
    status: charge.state === 'failed' ? 'failed' : charge.paidAt ? 'succeeded' : 'pending',
    payment_intent: charge.id,
    failure_code: error?.code ?? null,
    failure_message: error?.message ?? null,
    metadata: charge.metadata,
    created: seconds(charge.createdAt),
    refunds: {
      object: 'list',
      data: [...charge.refunds].reverse().map((refund) => refundView(charge, refund)),
      has_more: false,
    },
  };
}

/** The payment intent; `expand` holds the fields asked for as objects (`payment_method`, `latest_charge`). */
export function intentView(charge: SandboxCharge, expand: ReadonlySet<string> = new Set()): GatewayBPaymentIntent {
  const methodTypes: GatewayBPaymentIntent['payment_method_types'] = [
    charge.method === 'credit_card' ? 'card' : charge.method,
  ];
  return {
    id: charge.id,
    object: 'payment_intent',
    amount: charge.amountCents,
    amount_received: charge.paidAt ? charge.amountCents : 0,
    currency: 'brl',
    status: intentStatusOf(charge),
    description: charge.description || null,
    metadata: charge.metadata,
    payment_method_types: methodTypes,
    payment_method: expand.has('payment_method') ? paymentMethodView(charge) : charge.refs.payment_method_id!,
    latest_charge: hasCharge(charge)
      ? expand.has('latest_charge')
        ? chargeObjectView(charge)
        : charge.refs.charge_id!
      : null,
    last_payment_error: paymentErrorOf(charge),
    next_action: nextActionOf(charge),
    setup_future_usage: charge.card?.savedMethodId ? 'off_session' : null,
    canceled_at: charge.cancelledAt ? seconds(charge.cancelledAt) : null,
    cancellation_reason: charge.cancelledAt ? 'requested_by_customer' : null,
    created: seconds(charge.createdAt),
    livemode: false,
  };
}

function disputeView(charge: SandboxCharge): GatewayBDispute {
  const dispute = charge.dispute!;
  return {
    id: dispute.id,
    object: 'dispute',
    amount: dispute.amountCents,
    currency: 'brl',
    charge: charge.refs.charge_id!,
    payment_intent: charge.id,
    reason: 'fraudulent',
    status: 'needs_response',
    created: seconds(dispute.createdAt),
  };
}

const EVENT_TYPES: Record<ChargeEvent['kind'], GatewayBEventType> = {
  paid: 'payment_intent.succeeded',
  failed: 'payment_intent.payment_failed',
  expired: 'payment_intent.payment_failed',
  cancelled: 'payment_intent.canceled',
  refunded: 'charge.refunded',
  disputed: 'charge.dispute.created',
};

export function eventFor(charge: SandboxCharge, event: ChargeEvent, now: Date): GatewayBEvent {
  const type = EVENT_TYPES[event.kind];
  const object = type.startsWith('payment_intent.')
    ? intentView(charge)
    : event.kind === 'disputed'
      ? disputeView(charge)
      : chargeObjectView(charge);
  return {
    id: sandboxId('evt_'),
    object: 'event',
    api_version: API_VERSION,
    created: seconds(now),
    livemode: false,
    pending_webhooks: 1,
    type,
    data: { object },
  };
}
