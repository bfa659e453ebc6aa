/**
 * gateway_a's wire format (Pagar.me v5 style): JSON, amounts in cents, ISO 8601 times, the secret key as
 * the HTTP Basic user name. An order holds one charge per payment; the charge is what gets refunded.
 */

export type GatewayAPaymentMethod = 'credit_card' | 'pix' | 'boleto';
export type GatewayAChargeStatus = 'pending' | 'paid' | 'failed' | 'canceled' | 'refunded' | 'chargedback';
export type GatewayAOrderStatus = 'pending' | 'paid' | 'failed' | 'canceled';
/** `captured` and `not_authorized` for cards; pix and boleto go `waiting_payment` → `paid` | `expired`. */
export type GatewayATransactionStatus =
  'captured' | 'not_authorized' | 'waiting_payment' | 'paid' | 'expired' | 'canceled';

export type GatewayACard = {
  id?: string;
  first_six_digits: string;
  last_four_digits: string;
  brand: string;
  holder_name: string;
  exp_month: number;
  exp_year: number;
};

export type GatewayATransaction = {
  id: string;
  transaction_type: GatewayAPaymentMethod;
  status: GatewayATransactionStatus;
  success: boolean;
  amount: number;
  created_at: string;
  installments?: number;
  /** Acquirer answer for cards: `00` approved, `05` not authorised, `51` insufficient funds. */
  acquirer_return_code?: string;
  acquirer_message?: string;
  card?: GatewayACard;
  qr_code?: string;
  qr_code_url?: string;
  expires_at?: string;
  line?: string;
  barcode?: string;
  due_at?: string;
  pdf?: string;
  /** A boleto's agência/código do beneficiário, as the bank prints it. */
  beneficiary_code?: string;
};

/** `code`: the merchant's reference sent with the refund request. */
export type GatewayARefund = { id: string; amount: number; status: 'refunded'; created_at: string; code?: string };

export type GatewayACharge = {
  id: string;
  code: string;
  amount: number;
  paid_amount: number;
  refunded_amount: number;
  status: GatewayAChargeStatus;
  payment_method: GatewayAPaymentMethod;
  paid_at?: string;
  canceled_at?: string;
  created_at: string;
  updated_at: string;
  order: { id: string };
  metadata: Record<string, string>;
  last_transaction: GatewayATransaction;
  refunds: GatewayARefund[];
  chargeback?: { id: string; amount: number; created_at: string };
};

export type GatewayAOrder = {
  id: string;
  code: string;
  amount: number;
  currency: 'BRL';
  status: GatewayAOrderStatus;
  closed: boolean;
  created_at: string;
  metadata: Record<string, string>;
  charges: GatewayACharge[];
};

export type GatewayACustomer = {
  name: string;
  email: string;
  document?: string;
  type: 'individual' | 'company';
  phones?: { mobile_phone: { country_code: string; area_code: string; number: string } };
};

export type GatewayAPayment =
  | {
      payment_method: 'credit_card';
      amount: number;
      credit_card: {
        installments: number;
        statement_descriptor?: string;
        card_token?: string;
        card_id?: string;
        save_card?: boolean;
      };
    }
  | { payment_method: 'pix'; amount: number; pix: { expires_in: number } }
  | { payment_method: 'boleto'; amount: number; boleto: { due_at: string; instructions?: string } };

export type GatewayAOrderRequest = {
  code: string;
  items: { amount: number; description: string; quantity: number; code: string }[];
  customer: GatewayACustomer;
  payments: [GatewayAPayment];
  metadata: Record<string, string>;
};

export type GatewayAToken = {
  id: string;
  type: 'card';
  created_at: string;
  expires_at: string;
  card: Omit<GatewayACard, 'id'>;
};

/** Answer of `POST /charges/{id}/refund`. */
export type GatewayARefundResult = GatewayARefund & { charge: GatewayACharge };

export type GatewayAWebhookType =
  | 'charge.paid'
  | 'charge.payment_failed'
  | 'charge.refunded'
  | 'charge.canceled'
  | 'charge.chargedback'
  | 'order.paid'
  | 'order.payment_failed'
  | 'order.canceled';

export type GatewayAWebhook = {
  id: string;
  type: GatewayAWebhookType;
  created_at: string;
  data: GatewayACharge | GatewayAOrder;
};

/** Error body: a message and, for invalid fields, messages per field path. */
export type GatewayAError = { message: string; errors?: Record<string, string[]> };
