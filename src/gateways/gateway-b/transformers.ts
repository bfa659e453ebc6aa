import { WebhookPayloadError } from '../errors.ts';
import type {
  BoletoCharge,
  BoletoIssued,
  Buyer,
  CardCharge,
  CardOutcome,
  FoundCharge,
  InboundEvent,
  PaymentAction,
  PaymentMetadata,
  PixCharge,
  PixIssued,
  RemoteStatus,
  SavedMethod,
  SavedMethodCharge,
} from '../port.ts';
import {
  arrayAt,
  assertStorableEventKey,
  eventCentsAt,
  eventDateAt,
  integerAt,
  isObject,
  objectAt,
  ourReference,
  stringAt,
  type JsonObject,
} from '../wire.ts';
import type { GatewayBCharge, GatewayBPaymentIntent } from './types.ts';

/** The `code` of a pix or boleto that lapsed unpaid. */
export const ATTEMPT_EXPIRED = 'payment_intent_payment_attempt_expired';

/** Form fields of a payment intent request, before form encoding. */
export type IntentForm = Record<string, unknown>;

function intentBase(charge: { amountCents: number; description: string; metadata: PaymentMetadata }): IntentForm {
  return {
    amount: charge.amountCents,
    currency: 'brl',
    confirm: 'true',
    description: charge.description,
    metadata: {
      company_id: charge.metadata.companyId,
      order_uid: charge.metadata.orderUid,
      payment_uid: charge.metadata.paymentUid,
    },
    expand: ['payment_method', 'latest_charge'],
  };
}

function installmentOptions(installments: number): IntentForm {
  return installments > 1
    ? { card: { installments: { plan: { count: installments, interval: 'month', type: 'fixed_count' } } } }
    : {};
}

function billingDetails(buyer: Buyer): IntentForm {
  return { name: buyer.name, email: buyer.email, ...(buyer.phone ? { phone: buyer.phone } : {}) };
}

export function cardIntentForm(charge: CardCharge): IntentForm {
  const form: IntentForm = {
    ...intentBase(charge),
    payment_method_types: ['card'],
    payment_method_options: installmentOptions(charge.installments),
  };
  if (charge.confirmationTokenId) form.confirmation_token = charge.confirmationTokenId;
  if (charge.saveForLater) form.setup_future_usage = 'off_session';
  return form;
}

export function savedMethodIntentForm(charge: SavedMethodCharge): IntentForm {
  return {
    ...intentBase(charge),
    payment_method_types: ['card'],
    payment_method: charge.methodReference,
    off_session: 'true',
    payment_method_options: installmentOptions(charge.installments),
  };
}

export function pixIntentForm(charge: PixCharge): IntentForm {
  return {
    ...intentBase(charge),
    payment_method_types: ['pix'],
    payment_method_data: { type: 'pix', billing_details: billingDetails(charge.buyer) },
    payment_method_options: { pix: { expires_at: Math.floor(charge.expiresAt.getTime() / 1000) } },
  };
}

export function boletoIntentForm(charge: BoletoCharge): IntentForm {
  const taxId = charge.buyer.document?.replace(/[^0-9A-Za-z]/g, '').toUpperCase();
  return {
    ...intentBase(charge),
    payment_method_types: ['boleto'],
    payment_method_data: {
      type: 'boleto',
      billing_details: billingDetails(charge.buyer),
      ...(taxId ? { boleto: { tax_id: taxId } } : {}),
    },
    payment_method_options: { boleto: { due_date: charge.dueDate } },
  };
}

/**
 * The card an intent saved for later off-session charges (`setup_future_usage: off_session`): its payment
 * method, with the card's brand, last digits and expiry when the payment method came expanded. Events never
 * expand it (Stripe-style), so an intent from a webhook gives the reference alone.
 */
export function savedMethodFrom(intent: unknown): SavedMethod | undefined {
  if (stringAt(intent, 'setup_future_usage') !== 'off_session') return undefined;
  const expanded = objectAt(intent, 'payment_method');
  const reference = expanded ? stringAt(expanded, 'id') : stringAt(intent, 'payment_method');
  if (!reference) return undefined;
  if (expanded && stringAt(expanded, 'type') !== 'card') return undefined;
  const card = objectAt(expanded, 'card');
  return {
    reference,
    brand: stringAt(card, 'brand') ?? null,
    last4: stringAt(card, 'last4') ?? null,
    expMonth: integerAt(card, 'exp_month') ?? null,
    expYear: integerAt(card, 'exp_year') ?? null,
  };
}

export function cardOutcomeFrom(intent: GatewayBPaymentIntent): CardOutcome {
  if (intent.status === 'succeeded') {
    const method = intent.payment_method;
    const savedMethod = isObject(method) && method.card ? savedMethodFrom(intent) : undefined;
    return savedMethod
      ? { status: 'paid', gatewayId: intent.id, savedMethod }
      : { status: 'paid', gatewayId: intent.id };
  }
  return declinedFrom(intent.id, intent.last_payment_error);
}

/** An intent as a lookup sees it (asked with `expand[]=payment_method`): its status and the card it saved. */
export function foundChargeFrom(intent: GatewayBPaymentIntent): FoundCharge {
  const savedMethod = intent.payment_method_types.includes('card') ? savedMethodFrom(intent) : undefined;
  return { gatewayId: intent.id, status: remoteStatusFrom(intent), ...(savedMethod ? { savedMethod } : {}) };
}

export function declinedFrom(
  gatewayId: string | null,
  error: { decline_code?: string; message: string } | null,
): CardOutcome {
  const code = error?.decline_code === 'insufficient_funds' ? 'insufficient_funds' : 'declined';
  return { status: 'declined', gatewayId, code, message: error?.message ?? 'The card was declined' };
}

export function pixIssuedFrom(intent: GatewayBPaymentIntent): PixIssued {
  const action = intent.next_action;
  if (action?.type !== 'pix_display_qr_code')
    throw new TypeError('gateway_b answered a pix intent without its QR code');
  return {
    gatewayId: intent.id,
    brCode: action.pix_display_qr_code.data,
    expiresAt: new Date(action.pix_display_qr_code.expires_at * 1000),
  };
}

export function boletoIssuedFrom(intent: GatewayBPaymentIntent): BoletoIssued {
  const action = intent.next_action;
  if (action?.type !== 'boleto_display_details')
    throw new TypeError('gateway_b answered a boleto intent without its details');
  const details = action.boleto_display_details;
  return {
    gatewayId: intent.id,
    barcode: details.barcode,
    digitableLine: details.number,
    dueDate: details.due_date,
    ...(details.pix_qr_code ? { pixCode: details.pix_qr_code } : {}),
    ...(details.beneficiary_code ? { beneficiaryCode: details.beneficiary_code } : {}),
  };
}

export function remoteStatusFrom(intent: GatewayBPaymentIntent): RemoteStatus {
  switch (intent.status) {
    case 'requires_payment_method':
    case 'requires_confirmation':
      if (intent.last_payment_error?.code === ATTEMPT_EXPIRED) return 'cancelled';
      return intent.last_payment_error ? 'failed' : 'pending';
    case 'requires_action':
      return 'waiting_payment';
    case 'processing':
      return 'pending';
    case 'canceled':
      return 'cancelled';
    case 'succeeded':
      return settledStatus(intent.latest_charge);
  }
}

function settledStatus(charge: string | GatewayBCharge | null): RemoteStatus {
  if (!isObject(charge)) return 'paid';
  if (charge.disputed) return 'charged_back';
  if (charge.refunded) return 'refunded';
  return charge.amount_refunded > 0 ? 'partially_refunded' : 'paid';
}

/** The effects of a gateway_b event; types it does not send for payments are ignored. */
export function inboundEventFrom(body: unknown): InboundEvent {
  const eventId = stringAt(body, 'id');
  const type = stringAt(body, 'type');
  const object = objectAt(objectAt(body, 'data'), 'object');
  if (!eventId || !type || !object)
    throw new WebhookPayloadError('gateway_b', 'expected an event { id, type, data: { object } }');
  assertStorableEventKey('gateway_b', eventId, type);
  return {
    eventId,
    type,
    actions: [eventAction(type, object, eventDateAt('gateway_b', body, 'created') ?? new Date())],
  };
}

function eventAction(type: string, object: JsonObject, created: Date): PaymentAction {
  const intentId = stringAt(object, type.startsWith('payment_intent.') ? 'id' : 'payment_intent');
  if (!intentId) return { kind: 'ignored', reason: `${type} names no payment intent` };
  const error = objectAt(object, 'last_payment_error');
  switch (type) {
    case 'payment_intent.succeeded': {
      const savedMethod = arrayAt(object, 'payment_method_types').includes('card')
        ? savedMethodFrom(object)
        : undefined;
      return {
        kind: 'payment_paid',
        gatewayId: intentId,
        paidAt: created,
        amountCents: eventCentsAt('gateway_b', object, 'amount_received'),
        ...ourReference(objectAt(object, 'metadata')),
        ...(savedMethod ? { savedMethod } : {}),
      };
    }
    case 'payment_intent.payment_failed':
      if (stringAt(error, 'code') === ATTEMPT_EXPIRED) return { kind: 'payment_expired', gatewayId: intentId };
      return { kind: 'payment_failed', gatewayId: intentId, reason: stringAt(error, 'message') ?? 'payment failed' };
    case 'payment_intent.canceled':
      return { kind: 'payment_cancelled', gatewayId: intentId };
    case 'charge.refunded': {
      const latest = arrayAt(objectAt(object, 'refunds'), 'data')[0];
      const refundId = stringAt(latest, 'id');
      const amountCents = eventCentsAt('gateway_b', latest, 'amount');
      if (!refundId || amountCents === undefined)
        throw new WebhookPayloadError('gateway_b', 'charge.refunded without its refunds');
      return { kind: 'payment_refunded', gatewayId: intentId, amountCents, refundId };
    }
    case 'charge.dispute.created':
      return {
        kind: 'payment_disputed',
        gatewayId: intentId,
        disputeId: stringAt(object, 'id') ?? intentId,
        amountCents: eventCentsAt('gateway_b', object, 'amount') ?? 0,
      };
    default:
      return { kind: 'ignored', reason: `${type} has no effect on a payment` };
  }
}
