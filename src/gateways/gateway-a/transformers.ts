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
} from '../wire.ts';
import type {
  GatewayACharge,
  GatewayACustomer,
  GatewayAOrder,
  GatewayAOrderRequest,
  GatewayAPayment,
} from './types.ts';

/** Metadata travels as text: gateway_a keeps string values only. */
export function metadataToWire(metadata: PaymentMetadata): Record<string, string> {
  return { company_id: String(metadata.companyId), order_uid: metadata.orderUid, payment_uid: metadata.paymentUid };
}

function customerToWire(buyer: Buyer): GatewayACustomer {
  const document = buyer.document?.replace(/[^0-9A-Za-z]/g, '').toUpperCase() || undefined;
  const customer: GatewayACustomer = {
    name: buyer.name,
    email: buyer.email,
    type: document?.length === 14 ? 'company' : 'individual',
  };
  if (document) customer.document = document;
  const phone = buyer.phone?.replace(/\D/g, '');
  if (phone && phone.length >= 10)
    customer.phones = { mobile_phone: { country_code: '55', area_code: phone.slice(0, 2), number: phone.slice(2) } };
  return customer;
}

function orderRequest(
  charge: { amountCents: number; description: string; buyer: Buyer; metadata: PaymentMetadata },
  payment: GatewayAPayment,
): GatewayAOrderRequest {
  return {
    code: charge.metadata.paymentUid,
    items: [
      { amount: charge.amountCents, description: charge.description, quantity: 1, code: charge.metadata.orderUid },
    ],
    customer: customerToWire(charge.buyer),
    payments: [payment],
    metadata: metadataToWire(charge.metadata),
  };
}

export function cardOrderRequest(charge: CardCharge): GatewayAOrderRequest {
  const creditCard = {
    installments: charge.installments,
    card_token: charge.cardToken,
    save_card: charge.saveForLater,
  };
  return orderRequest(charge, { payment_method: 'credit_card', amount: charge.amountCents, credit_card: creditCard });
}

export function savedMethodOrderRequest(charge: SavedMethodCharge): GatewayAOrderRequest {
  return orderRequest(charge, {
    payment_method: 'credit_card',
    amount: charge.amountCents,
    credit_card: { installments: charge.installments, card_id: charge.methodReference },
  });
}

export function pixOrderRequest(charge: PixCharge, now: Date): GatewayAOrderRequest {
  const expiresIn = Math.max(1, Math.ceil((charge.expiresAt.getTime() - now.getTime()) / 1000));
  return orderRequest(charge, { payment_method: 'pix', amount: charge.amountCents, pix: { expires_in: expiresIn } });
}

export function boletoOrderRequest(charge: BoletoCharge): GatewayAOrderRequest {
  return orderRequest(charge, {
    payment_method: 'boleto',
    amount: charge.amountCents,
    boleto: { due_at: `${charge.dueDate}T00:00:00Z` },
  });
}

export function firstCharge(order: GatewayAOrder): GatewayACharge {
  const charge = order.charges[0];
  if (!charge) throw new TypeError('gateway_a answered an order without charges');
  return charge;
}

/** The card of a charge's transaction when the gateway saved it (`save_card`): only a saved card has an `id`. */
export function savedMethodFrom(transaction: unknown): SavedMethod | undefined {
  const card = objectAt(transaction, 'card');
  const reference = stringAt(card, 'id');
  if (!reference) return undefined;
  return {
    reference,
    brand: stringAt(card, 'brand') ?? null,
    last4: stringAt(card, 'last_four_digits') ?? null,
    expMonth: integerAt(card, 'exp_month') ?? null,
    expYear: integerAt(card, 'exp_year') ?? null,
  };
}

export function cardOutcomeFrom(order: GatewayAOrder): CardOutcome {
  const charge = firstCharge(order);
  const transaction = charge.last_transaction;
  if (charge.status === 'paid') {
    const savedMethod = savedMethodFrom(transaction);
    return savedMethod
      ? { status: 'paid', gatewayId: charge.id, savedMethod }
      : { status: 'paid', gatewayId: charge.id };
  }
  const code = transaction.acquirer_return_code === '51' ? 'insufficient_funds' : 'declined';
  return {
    status: 'declined',
    gatewayId: charge.id,
    code,
    message: transaction.acquirer_message ?? 'The card was not authorised',
  };
}

export function pixIssuedFrom(order: GatewayAOrder): PixIssued {
  const charge = firstCharge(order);
  const { qr_code: brCode, expires_at: expiresAt } = charge.last_transaction;
  if (!brCode || !expiresAt) throw new TypeError('gateway_a answered a pix order without its QR code');
  return { gatewayId: charge.id, brCode, expiresAt: new Date(expiresAt) };
}

export function boletoIssuedFrom(order: GatewayAOrder): BoletoIssued {
  const charge = firstCharge(order);
  const { barcode, line, due_at: dueAt, qr_code: pixCode, beneficiary_code: beneficiaryCode } = charge.last_transaction;
  if (!barcode || !line || !dueAt) throw new TypeError('gateway_a answered a boleto order without its barcode');
  return {
    gatewayId: charge.id,
    barcode,
    digitableLine: line,
    dueDate: dueAt.slice(0, 10),
    ...(pixCode ? { pixCode } : {}),
    ...(beneficiaryCode ? { beneficiaryCode } : {}),
  };
}

export function remoteStatusFrom(charge: GatewayACharge): RemoteStatus {
  switch (charge.status) {
    case 'pending':
      return charge.payment_method === 'credit_card' ? 'pending' : 'waiting_payment';
    case 'paid':
      return charge.refunded_amount > 0 ? 'partially_refunded' : 'paid';
    case 'failed':
      // An unpaid pix or boleto that lapsed is closed, not failed: nothing was refused.
      return charge.last_transaction.status === 'expired' ? 'cancelled' : 'failed';
    case 'canceled':
      return charge.paid_at ? 'refunded' : 'cancelled';
    case 'refunded':
      return 'refunded';
    case 'chargedback':
      return 'charged_back';
  }
}

/** A charge as a lookup sees it: its status and the card saved with it. */
export function foundChargeFrom(charge: GatewayACharge): FoundCharge {
  const savedMethod = charge.payment_method === 'credit_card' ? savedMethodFrom(charge.last_transaction) : undefined;
  return { gatewayId: charge.id, status: remoteStatusFrom(charge), ...(savedMethod ? { savedMethod } : {}) };
}

/** The effects of a gateway_a webhook; order events repeat their charge's and are ignored. */
export function inboundEventFrom(body: unknown): InboundEvent {
  const eventId = stringAt(body, 'id');
  const type = stringAt(body, 'type');
  const data = objectAt(body, 'data');
  if (!eventId || !type || !data) throw new WebhookPayloadError('gateway_a', 'expected { id, type, data }');
  assertStorableEventKey('gateway_a', eventId, type);
  if (!type.startsWith('charge.'))
    return { eventId, type, actions: [{ kind: 'ignored', reason: `${type}: the charge events carry the effect` }] };
  const gatewayId = stringAt(data, 'id');
  if (!gatewayId) throw new WebhookPayloadError('gateway_a', 'a charge event without data.id');
  return { eventId, type, actions: [chargeAction(type, gatewayId, data)] };
}

function chargeAction(type: string, gatewayId: string, data: Record<string, unknown>): PaymentAction {
  const transaction = objectAt(data, 'last_transaction');
  switch (type) {
    case 'charge.paid': {
      // The event carries the whole charge: a card saved with it comes with its id, brand, last digits and expiry.
      const savedMethod = savedMethodFrom(transaction);
      const paidAt =
        eventDateAt('gateway_a', data, 'paid_at') ?? eventDateAt('gateway_a', data, 'updated_at') ?? new Date();
      return {
        kind: 'payment_paid',
        gatewayId,
        paidAt,
        amountCents: eventCentsAt('gateway_a', data, 'paid_amount') ?? eventCentsAt('gateway_a', data, 'amount'),
        ...ourReference(objectAt(data, 'metadata')),
        ...(savedMethod ? { savedMethod } : {}),
      };
    }
    case 'charge.payment_failed':
      if (stringAt(transaction, 'status') === 'expired') return { kind: 'payment_expired', gatewayId };
      return {
        kind: 'payment_failed',
        gatewayId,
        reason: stringAt(transaction, 'acquirer_message') ?? 'payment failed',
      };
    case 'charge.canceled':
      return { kind: 'payment_cancelled', gatewayId };
    case 'charge.refunded': {
      const refund = arrayAt(data, 'refunds').at(-1);
      const refundId = stringAt(refund, 'id');
      const amountCents = eventCentsAt('gateway_a', refund, 'amount');
      if (!isObject(refund) || !refundId || amountCents === undefined)
        throw new WebhookPayloadError('gateway_a', 'charge.refunded without its refund');
      return { kind: 'payment_refunded', gatewayId, amountCents, refundId };
    }
    case 'charge.chargedback': {
      const chargeback = objectAt(data, 'chargeback');
      return {
        kind: 'payment_disputed',
        gatewayId,
        disputeId: stringAt(chargeback, 'id') ?? gatewayId,
        amountCents: eventCentsAt('gateway_a', chargeback, 'amount') ?? eventCentsAt('gateway_a', data, 'amount') ?? 0,
      };
    }
    default:
      return { kind: 'ignored', reason: `${type} has no effect on a payment` };
  }
}

/** `data.metadata.company_id` of a webhook body: the company whose credentials authenticate it. */
export function webhookCompanyId(body: unknown): number | null {
  const raw = stringAt(objectAt(objectAt(body, 'data'), 'metadata'), 'company_id');
  return raw !== undefined && /^[1-9]\d{0,14}$/.test(raw) ? Number(raw) : null;
}
