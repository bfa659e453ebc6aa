import qs from 'qs';
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
  assertStorableEventKey,
  eventCentsAt,
  eventDateAt,
  isObject,
  objectAt,
  ourReference,
  stringAt,
  type JsonObject,
} from '../wire.ts';
import type { GatewayCCustomer, GatewayCTransaction, GatewayCTransactionRequest } from './types.ts';

type Base = {
  amountCents: number;
  description: string;
  buyer: Buyer;
  metadata: PaymentMetadata;
  idempotencyKey: string;
};

function customerToWire(buyer: Buyer): GatewayCCustomer {
  const document = buyer.document?.replace(/[^0-9A-Za-z]/g, '').toUpperCase() || undefined;
  const customer: GatewayCCustomer = {
    name: buyer.name,
    email: buyer.email,
    type: document?.length === 14 ? 'corporation' : 'individual',
  };
  if (document) customer.document_number = document;
  const phone = buyer.phone?.replace(/\D/g, '');
  if (phone) customer.phone_numbers = [`+55${phone}`];
  return customer;
}

function transactionRequest(
  apiKey: string,
  charge: Base,
  fields: Partial<GatewayCTransactionRequest> & Pick<GatewayCTransactionRequest, 'payment_method'>,
): GatewayCTransactionRequest {
  return {
    api_key: apiKey,
    amount: charge.amountCents,
    reference_key: charge.idempotencyKey,
    customer: customerToWire(charge.buyer),
    metadata: {
      company_id: String(charge.metadata.companyId),
      order_uid: charge.metadata.orderUid,
      payment_uid: charge.metadata.paymentUid,
    },
    ...fields,
  };
}

export function cardTransactionRequest(apiKey: string, charge: CardCharge): GatewayCTransactionRequest {
  return transactionRequest(apiKey, charge, {
    payment_method: 'credit_card',
    card_hash: charge.cardToken,
    installments: charge.installments,
  });
}

export function savedMethodTransactionRequest(apiKey: string, charge: SavedMethodCharge): GatewayCTransactionRequest {
  return transactionRequest(apiKey, charge, {
    payment_method: 'credit_card',
    card_id: charge.methodReference,
    installments: charge.installments,
  });
}

export function pixTransactionRequest(apiKey: string, charge: PixCharge): GatewayCTransactionRequest {
  return transactionRequest(apiKey, charge, {
    payment_method: 'pix',
    pix_expiration_date: charge.expiresAt.toISOString(),
  });
}

export function boletoTransactionRequest(apiKey: string, charge: BoletoCharge): GatewayCTransactionRequest {
  return transactionRequest(apiKey, charge, { payment_method: 'boleto', boleto_expiration_date: charge.dueDate });
}

/**
 * The card of a transaction (or of a postback's `transaction[card]`), which gateway_c keeps for later charges by
 * its `id`; expiry `MMYY`. A card the acquirer refused (`valid` false) is none.
 */
export function savedMethodFrom(card: unknown): SavedMethod | undefined {
  const reference = stringAt(card, 'id');
  if (!reference || !isObject(card) || card.valid === false || card.valid === 'false') return undefined;
  const expiry = /^(\d{2})(\d{2})$/.exec(stringAt(card, 'expiration_date') ?? '');
  return {
    reference,
    brand: stringAt(card, 'brand') ?? null,
    last4: stringAt(card, 'last_digits') ?? null,
    expMonth: expiry ? Number(expiry[1]) : null,
    expYear: expiry ? 2000 + Number(expiry[2]) : null,
  };
}

/** gateway_c keeps every card it charged; the port reports it only when the caller asked to keep it. */
export function cardOutcomeFrom(transaction: GatewayCTransaction, keepCard: boolean): CardOutcome {
  const gatewayId = String(transaction.id);
  if (transaction.status === 'paid') {
    const savedMethod = keepCard ? savedMethodFrom(transaction.card) : undefined;
    return savedMethod ? { status: 'paid', gatewayId, savedMethod } : { status: 'paid', gatewayId };
  }
  const code = transaction.acquirer_response_code === '1016' ? 'insufficient_funds' : 'declined';
  return {
    status: 'declined',
    gatewayId,
    code,
    message: transaction.acquirer_response_message ?? 'The card was refused',
  };
}

export function pixIssuedFrom(transaction: GatewayCTransaction): PixIssued {
  if (!transaction.pix_qr_code || !transaction.pix_expiration_date)
    throw new TypeError('gateway_c answered a pix transaction without its QR code');
  return {
    gatewayId: String(transaction.id),
    brCode: transaction.pix_qr_code,
    expiresAt: new Date(transaction.pix_expiration_date),
  };
}

export function boletoIssuedFrom(transaction: GatewayCTransaction): BoletoIssued {
  const {
    boleto_barcode: barcode,
    boleto_digitable_line: digitableLine,
    boleto_expiration_date: dueDate,
  } = transaction;
  if (!barcode || !digitableLine || !dueDate)
    throw new TypeError('gateway_c answered a boleto transaction without its barcode');
  const pixCode = transaction.boleto_pix_qr_code;
  const beneficiaryCode = transaction.boleto_beneficiary_code;
  return {
    gatewayId: String(transaction.id),
    barcode,
    digitableLine,
    dueDate: dueDate.slice(0, 10),
    ...(pixCode ? { pixCode } : {}),
    ...(beneficiaryCode ? { beneficiaryCode } : {}),
  };
}

const REMOTE_STATUSES: Record<GatewayCTransaction['status'], RemoteStatus> = {
  processing: 'pending',
  waiting_payment: 'waiting_payment',
  paid: 'paid',
  partially_refunded: 'partially_refunded',
  refunded: 'refunded',
  refused: 'failed',
  canceled: 'cancelled',
  expired: 'cancelled',
  chargedback: 'charged_back',
};

export function remoteStatusFrom(transaction: GatewayCTransaction): RemoteStatus {
  return REMOTE_STATUSES[transaction.status];
}

/** A transaction as a lookup sees it: its status and its card, which gateway_c keeps whether or not the charge wanted it kept. */
export function foundChargeFrom(transaction: GatewayCTransaction): FoundCharge {
  const savedMethod = transaction.payment_method === 'credit_card' ? savedMethodFrom(transaction.card) : undefined;
  return {
    gatewayId: String(transaction.id),
    status: remoteStatusFrom(transaction),
    ...(savedMethod ? { savedMethod } : {}),
  };
}

/** Accepts the postback as its raw form-encoded text or as the object a form parser made of it. */
export function inboundEventFrom(body: unknown): InboundEvent {
  const postback: unknown =
    typeof body === 'string' || Buffer.isBuffer(body)
      ? qs.parse(body.toString(), { depth: 3, parameterLimit: 200 })
      : body;
  const eventId = stringAt(postback, 'postback_id');
  const type = stringAt(postback, 'event');
  const gatewayId = stringAt(postback, 'id');
  const status = stringAt(postback, 'current_status');
  if (!eventId || !type || !gatewayId || !isObject(postback))
    throw new WebhookPayloadError('gateway_c', 'expected a postback with postback_id, event and id');
  assertStorableEventKey('gateway_c', eventId, type);
  if (type !== 'transaction_status_changed' || !status)
    return { eventId, type, actions: [{ kind: 'ignored', reason: `${type} has no effect on a payment` }] };
  return { eventId, type, actions: [statusAction(status, gatewayId, postback)] };
}

function statusAction(status: string, gatewayId: string, postback: JsonObject): PaymentAction {
  const transaction = objectAt(postback, 'transaction');
  switch (status) {
    case 'paid': {
      // The postback carries the transaction's card (`transaction[card][id]`, brand, last digits, expiry).
      const savedMethod =
        stringAt(transaction, 'payment_method') === 'credit_card'
          ? savedMethodFrom(objectAt(transaction, 'card'))
          : undefined;
      const paidAt = eventDateAt('gateway_c', transaction, 'date_updated') ?? new Date();
      return {
        kind: 'payment_paid',
        gatewayId,
        paidAt,
        amountCents: eventCentsAt('gateway_c', transaction, 'paid_amount'),
        ...ourReference(objectAt(transaction, 'metadata') ?? objectAt(postback, 'metadata')),
        ...(savedMethod ? { savedMethod } : {}),
      };
    }
    case 'refused':
      return {
        kind: 'payment_failed',
        gatewayId,
        reason: stringAt(transaction, 'acquirer_response_message') ?? 'refused',
      };
    case 'expired':
      return { kind: 'payment_expired', gatewayId };
    case 'canceled':
      return { kind: 'payment_cancelled', gatewayId };
    case 'refunded':
    case 'partially_refunded': {
      const refund = objectAt(postback, 'refund');
      const refundId = stringAt(refund, 'id');
      const amountCents = eventCentsAt('gateway_c', refund, 'amount');
      if (!refundId || amountCents === undefined)
        throw new WebhookPayloadError('gateway_c', `a ${status} postback without refund[id] and refund[amount]`);
      return { kind: 'payment_refunded', gatewayId, amountCents, refundId };
    }
    case 'chargedback': {
      const chargeback = objectAt(postback, 'chargeback');
      return {
        kind: 'payment_disputed',
        gatewayId,
        disputeId: stringAt(chargeback, 'id') ?? gatewayId,
        amountCents: eventCentsAt('gateway_c', chargeback, 'amount') ?? 0,
      };
    }
    default:
      return { kind: 'ignored', reason: `status ${status} needs no action` };
  }
}
