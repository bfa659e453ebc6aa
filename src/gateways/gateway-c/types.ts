/**
 * gateway_c's wire format (Pagar.me v4 style): JSON bodies that carry `api_key` (GET requests take it
 * in the query), integer transaction ids, amounts in cents, ISO 8601 times. Cards travel as card hashes
 * encrypted in the browser with a single-use RSA key. Postbacks are form-encoded and signed with the api key.
 */

export type GatewayCPaymentMethod = 'credit_card' | 'pix' | 'boleto';
export type GatewayCStatus =
  | 'processing'
  | 'paid'
  | 'partially_refunded'
  | 'refunded'
  | 'waiting_payment'
  | 'refused'
  | 'canceled'
  | 'expired'
  | 'chargedback';

export type GatewayCCardHashKey = { id: number; public_key: string; date_created: string };

export type GatewayCCard = {
  object: 'card';
  id: string;
  brand: string;
  holder_name: string;
  first_digits: string;
  last_digits: string;
  /** MMYY */
  expiration_date: string;
  valid: boolean;
};

/** `reference_key`: the merchant's reference sent with the refund request. */
export type GatewayCRefund = {
  object: 'refund';
  id: string;
  amount: number;
  date_created: string;
  reference_key: string | null;
};

export type GatewayCTransaction = {
  object: 'transaction';
  id: number;
  status: GatewayCStatus;
  /** Why a transaction was refused or closed: `acquirer`, `expired`. */
  status_reason: string | null;
  /** `0000` approved, `1000` not authorised, `1016` insufficient funds. */
  acquirer_response_code: string | null;
  acquirer_response_message: string | null;
  amount: number;
  authorized_amount: number;
  paid_amount: number;
  refunded_amount: number;
  installments: number;
  payment_method: GatewayCPaymentMethod;
  reference_key: string | null;
  date_created: string;
  date_updated: string;
  card: GatewayCCard | null;
  pix_qr_code: string | null;
  pix_expiration_date: string | null;
  boleto_barcode: string | null;
  boleto_digitable_line: string | null;
  boleto_url: string | null;
  boleto_expiration_date: string | null;
  /** Boleto híbrido: the BR Code that pays the same boleto by Pix. */
  boleto_pix_qr_code?: string | null;
  /** The boleto's agência/código do beneficiário, as the bank prints it. */
  boleto_beneficiary_code?: string | null;
  metadata: Record<string, string>;
  refunds: GatewayCRefund[];
  chargeback: { id: string; amount: number; date_created: string } | null;
};

export type GatewayCCustomer = {
  name: string;
  email: string;
  document_number?: string;
  type: 'individual' | 'corporation';
  phone_numbers?: string[];
};

export type GatewayCTransactionRequest = {
  api_key: string;
  amount: number;
  payment_method: GatewayCPaymentMethod;
  /** Sent again with the same value, the first answer is repeated instead of charging twice. */
  reference_key: string;
  customer: GatewayCCustomer;
  metadata: Record<string, string>;
  installments?: number;
  card_hash?: string;
  card_id?: string;
  pix_expiration_date?: string;
  boleto_expiration_date?: string;
  soft_descriptor?: string;
};

export type GatewayCRefundRequest = { api_key: string; reference_key: string; amount?: number };

export type GatewayCError = {
  errors: { type: string; parameter_name: string | null; message: string }[];
  url: string;
  method: string;
};

/**
 * A postback, before form encoding: `event=transaction_status_changed&id=…&old_status=…&current_status=…`,
 * the transaction under `transaction[…]`, and `refund[…]` / `chargeback[…]` when one caused it.
 */
export type GatewayCPostback = {
  postback_id: string;
  event: 'transaction_status_changed';
  object: 'transaction';
  id: string;
  old_status: GatewayCStatus;
  current_status: GatewayCStatus;
  desired_status: GatewayCStatus;
  transaction: {
    id: string;
    status: GatewayCStatus;
    amount: string;
    paid_amount: string;
    refunded_amount: string;
    payment_method: GatewayCPaymentMethod;
    date_updated: string;
    acquirer_response_message?: string;
    /** A card transaction's card, as in the transaction (`transaction[card][id]`, the id it is charged again by). */
    card?: {
      object: 'card';
      id: string;
      brand: string;
      holder_name: string;
      first_digits: string;
      last_digits: string;
      expiration_date: string;
      valid: string;
    };
    metadata: Record<string, string>;
  };
  refund?: { id: string; amount: string };
  chargeback?: { id: string; amount: string };
};
