/**
 * gateway_b's wire format (Stripe style): form-encoded requests (`metadata[company_id]=7`,
 * `payment_method_types[]=pix`), JSON answers, amounts in cents, unix-second times, Bearer secret key.
 * The payment intent is the payment; its charge carries refunds and disputes.
 */

export type GatewayBIntentStatus =
  'requires_payment_method' | 'requires_confirmation' | 'requires_action' | 'processing' | 'succeeded' | 'canceled';
export type GatewayBMethodType = 'card' | 'pix' | 'boleto';

export type GatewayBCardDetails = {
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  funding: 'credit';
};
export type GatewayBPaymentMethod = {
  id: string;
  object: 'payment_method';
  type: GatewayBMethodType;
  card: GatewayBCardDetails | null;
  created: number;
};

export type GatewayBRefund = {
  id: string;
  object: 'refund';
  amount: number;
  currency: 'brl';
  charge: string;
  payment_intent: string;
  status: 'succeeded';
  created: number;
  metadata: Record<string, string>;
};

export type GatewayBCharge = {
  id: string;
  object: 'charge';
  amount: number;
  amount_captured: number;
  amount_refunded: number;
  currency: 'brl';
  paid: boolean;
  refunded: boolean;
  disputed: boolean;
  status: 'succeeded' | 'pending' | 'failed';
  payment_intent: string;
  failure_code: string | null;
  failure_message: string | null;
  metadata: Record<string, string>;
  created: number;
  /** Newest first. */
  refunds: { object: 'list'; data: GatewayBRefund[]; has_more: false };
};

export type GatewayBPaymentError = {
  type: 'card_error' | 'invalid_request_error';
  /** `card_declined`, or `payment_intent_payment_attempt_expired` when a pix or boleto lapsed. */
  code: string;
  decline_code?: 'generic_decline' | 'insufficient_funds';
  message: string;
};

export type GatewayBNextAction =
  | {
      type: 'pix_display_qr_code';
      pix_display_qr_code: { data: string; expires_at: number; hosted_instructions_url: string };
    }
  | {
      type: 'boleto_display_details';
      boleto_display_details: {
        number: string;
        barcode: string;
        expires_at: number;
        due_date: string;
        hosted_voucher_url: string;
        /** Boleto híbrido: the BR Code that pays the same boleto by Pix. */
        pix_qr_code?: string;
        /** The agência/código do beneficiário, as the bank prints it. */
        beneficiary_code?: string;
      };
    };

export type GatewayBPaymentIntent = {
  id: string;
  object: 'payment_intent';
  amount: number;
  amount_received: number;
  currency: 'brl';
  status: GatewayBIntentStatus;
  description: string | null;
  metadata: Record<string, string>;
  payment_method_types: GatewayBMethodType[];
  /** An id, or the object when `expand[]=payment_method` was asked. */
  payment_method: string | GatewayBPaymentMethod | null;
  /** An id, or the object when `expand[]=latest_charge` was asked. */
  latest_charge: string | GatewayBCharge | null;
  last_payment_error: GatewayBPaymentError | null;
  next_action: GatewayBNextAction | null;
  setup_future_usage: 'off_session' | null;
  canceled_at: number | null;
  cancellation_reason: string | null;
  created: number;
  livemode: false;
};

export type GatewayBConfirmationToken = {
  id: string;
  object: 'confirmation_token';
  created: number;
  expires_at: number;
  livemode: false;
  payment_method_preview: { type: 'card'; card: GatewayBCardDetails; billing_details: { name: string } };
};

export type GatewayBDispute = {
  id: string;
  object: 'dispute';
  amount: number;
  currency: 'brl';
  charge: string;
  payment_intent: string;
  reason: 'fraudulent';
  status: 'needs_response';
  created: number;
};

export type GatewayBEventType =
  | 'payment_intent.succeeded'
  | 'payment_intent.payment_failed'
  | 'payment_intent.canceled'
  | 'charge.refunded'
  | 'charge.dispute.created';

export type GatewayBEvent = {
  id: string;
  object: 'event';
  api_version: string;
  created: number;
  livemode: false;
  pending_webhooks: number;
  type: GatewayBEventType;
  data: { object: GatewayBPaymentIntent | GatewayBCharge | GatewayBDispute };
};

export type GatewayBError = {
  error: {
    type: 'api_error' | 'authentication_error' | 'card_error' | 'invalid_request_error';
    code?: string;
    decline_code?: string;
    message: string;
    param?: string;
    payment_intent?: GatewayBPaymentIntent;
  };
};
