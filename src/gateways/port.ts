/**
 * The one interface every card gateway implements. Pay flows, refunds, renewals and webhook receivers
 * speak only this; each gateway folder holds its HTTP client, its sandbox server and the mapping of its
 * own types onto these (the `transformers`). A live driver is a new implementation of this interface.
 */

export type GatewayName = 'gateway_a' | 'gateway_b' | 'gateway_c';

/** A payment method, as the pay bodies and payment plans name it. */
export type PayMethod = 'credit_card' | 'pix' | 'bank_slip';

/** Where and how to reach one company's account at a gateway. */
export type GatewayAccount = { baseUrl: string; publicKey: string | null; secretKey: string };

export type PaymentMetadata = { companyId: number; orderUid: string; paymentUid: string };

export type Buyer = { name: string; email: string; document?: string | null; phone?: string | null };

export type CardCharge = {
  amountCents: number;
  installments: number;
  /** gateway_a: a token from its browser tokenizer; gateway_c: a card hash `<key id>_<base64>`. */
  cardToken?: string;
  /** gateway_b: the confirmation token its browser library produced. */
  confirmationTokenId?: string;
  /** Keep the card for one-click upsell and subscription renewals. */
  saveForLater: boolean;
  buyer: Buyer;
  description: string;
  metadata: PaymentMetadata;
  /** Sent to the gateway so a retried call never charges twice. */
  idempotencyKey: string;
};

export type SavedMethodCharge = Omit<CardCharge, 'cardToken' | 'confirmationTokenId' | 'saveForLater'> & {
  methodReference: string;
};

export type SavedMethod = {
  reference: string;
  brand: string | null;
  last4: string | null;
  expMonth: number | null;
  expYear: number | null;
};

export type CardOutcome =
  | { status: 'paid'; gatewayId: string; savedMethod?: SavedMethod }
  | {
      status: 'declined';
      gatewayId: string | null;
      code: 'declined' | 'insufficient_funds' | 'invalid_token';
      message: string;
    };

export type PixCharge = {
  amountCents: number;
  expiresAt: Date;
  buyer: Buyer;
  description: string;
  metadata: PaymentMetadata;
  idempotencyKey: string;
};
export type PixIssued = { gatewayId: string; brCode: string; expiresAt: Date };

export type BoletoCharge = {
  amountCents: number;
  dueDate: string;
  buyer: Buyer;
  description: string;
  metadata: PaymentMetadata;
  idempotencyKey: string;
};
/**
 * `pixCode`: a boleto híbrido's BR Code, when the gateway issues one, that pays the same boleto by Pix.
 * `beneficiaryCode`: the agência/código do beneficiário the bank prints on the slip, when the gateway tells it.
 */
export type BoletoIssued = {
  gatewayId: string;
  barcode: string;
  digitableLine: string;
  dueDate: string;
  pixCode?: string;
  beneficiaryCode?: string;
};

export type RemoteStatus =
  'pending' | 'waiting_payment' | 'paid' | 'failed' | 'cancelled' | 'refunded' | 'partially_refunded' | 'charged_back';

/** Our own references of a charge request: the payment uid (in the metadata) and the idempotency key sent. */
export type ChargeReference = { paymentUid: string; idempotencyKey: string };
/**
 * A charge as a lookup found it (by our reference, or by its gateway id). `savedMethod`: the card the gateway
 * keeps for later charges of this charge's buyer, when it keeps one (gateway_a and gateway_b only when the
 * charge asked to save it; gateway_c keeps every card it charges, so the caller decides whether it wanted it).
 */
export type FoundCharge = { gatewayId: string; status: RemoteStatus; savedMethod?: SavedMethod };

/** A refund the gateway found by the reference it was made under. */
export type FoundRefund = { refundId: string; amountCents: number };

/** The closed set of effects an inbound gateway event can have, whatever the gateway calls it. */
export type PaymentAction =
  /**
   * `paymentUid`: our payment's uid as the gateway echoes it back (charge metadata), when the event carries it.
   * `savedMethod`: the card the gateway keeps for later charges, as far as the event names it (see `FoundCharge`).
   */
  | {
      kind: 'payment_paid';
      gatewayId: string;
      paidAt: Date;
      amountCents?: number;
      paymentUid?: string;
      savedMethod?: SavedMethod;
    }
  | { kind: 'payment_failed'; gatewayId: string; reason: string }
  | { kind: 'payment_cancelled'; gatewayId: string }
  | { kind: 'payment_expired'; gatewayId: string }
  | { kind: 'payment_refunded'; gatewayId: string; amountCents: number; refundId: string }
  | { kind: 'payment_disputed'; gatewayId: string; disputeId: string; amountCents: number }
  | { kind: 'ignored'; reason: string };

export type InboundEvent = { eventId: string; type: string; actions: PaymentAction[] };

/** Gateway failures the caller must tell apart: a timeout may have charged; an error did not. */
export class GatewayUnavailableError extends Error {
  constructor(
    readonly gateway: GatewayName,
    readonly kind: 'timeout' | 'error',
    message: string,
  ) {
    super(message);
    this.name = 'GatewayUnavailableError';
  }
}

export interface PaymentGateway {
  readonly name: GatewayName;
  /** The methods the gateway refuses to charge without the payer's name and CPF/CNPJ (`Buyer.name`, `document`). */
  readonly payerIdentityRequired: readonly PayMethod[];
  chargeCard(account: GatewayAccount, charge: CardCharge): Promise<CardOutcome>;
  chargeSavedMethod(account: GatewayAccount, charge: SavedMethodCharge): Promise<CardOutcome>;
  createPix(account: GatewayAccount, charge: PixCharge): Promise<PixIssued>;
  createBoleto(account: GatewayAccount, charge: BoletoCharge): Promise<BoletoIssued>;
  /** Cancels a charge not yet settled, or fully refunds one that was: the compensation of a failed split. */
  voidCharge(account: GatewayAccount, gatewayId: string, idempotencyKey: string): Promise<void>;
  /** The idempotency key doubles as the refund's reference at the gateway, by which `findRefund` finds it. */
  refund(
    account: GatewayAccount,
    gatewayId: string,
    amountCents: number,
    idempotencyKey: string,
  ): Promise<{ refundId: string }>;
  fetchStatus(account: GatewayAccount, gatewayId: string): Promise<RemoteStatus>;
  /** The charge with this gateway id as the gateway sees it now: its status and the card it keeps for later charges. */
  fetchCharge(account: GatewayAccount, gatewayId: string): Promise<FoundCharge>;
  /** The charge a request with these references made, if the gateway has one: what a call that timed out may still have created. */
  findCharge(account: GatewayAccount, reference: ChargeReference): Promise<FoundCharge | undefined>;
  /** The refund of this charge made under `reference` (a refund call's idempotency key), if the gateway made it: what a refund call whose answer was lost may have done. */
  findRefund(account: GatewayAccount, gatewayId: string, reference: string): Promise<FoundRefund | undefined>;
  /** Parses a webhook body the receiver has already authenticated. */
  parseWebhook(body: unknown): InboundEvent;
}
