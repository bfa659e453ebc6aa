import { toMajor } from '../../lib/money.ts';

/** The order number a buyer reads and quotes to the merchant: the first eight characters of the order's UID. */
export function orderNumber(orderUid: string): string {
  return orderUid.slice(0, 8).toUpperCase();
}

type PaymentFacts = {
  method: string;
  status: string;
  amount_cents: number;
  installments: number;
  pix_code: string | null;
  order_uid: string;
};

/**
 * What the result views of a page show about one payment, read through its UID (the capability the page holds):
 * the amount with interest, the installments, the order number, and a waiting Pix's copy-and-paste code.
 */
export function receipt(payment: PaymentFacts) {
  const waiting = payment.status === 'pending' || payment.status === 'waiting_payment';
  return {
    method: payment.method,
    amount: toMajor(payment.amount_cents),
    installments: payment.installments,
    order_number: orderNumber(payment.order_uid),
    ...(payment.method === 'pix' && waiting && payment.pix_code ? { pix_code: payment.pix_code } : {}),
  };
}
