import { assertWithinAmountLimit } from '../../http/amount-limits.ts';
import { businessRule, validationFailed } from '../../http/errors.ts';
import type { OrderAmounts } from '../pricing/index.ts';
import type { ProductRow } from './order-create.repo.ts';

export type AttachedPayment = {
  gateway: string;
  gatewayId?: string;
  paymentPlanId?: number;
  amountCents: number;
  method?: 'credit_card' | 'bank_slip' | 'pix';
  installments?: number;
  paidAt?: Date;
};

export type OrderDraft = {
  accountId: string;
  companyId: number;
  customer: { id: number; minimumRetentionCents: number | null };
  items: Array<{ productId: number; quantity: number }>;
  mainProductId?: number;
  coupon?: string;
  date?: string;
  scheduledAt?: string;
  observation?: string;
  meta?: Record<string, unknown>;
  crmInfo?: { create_deal?: boolean; list_ids?: string; url?: string; tags?: string };
  skipContentRelease?: boolean;
  calculateRetention?: boolean;
  payments?: AttachedPayment[];
  /** Why the order exists, recorded on its `order.created` event. */
  cause: string;
};

/**
 * Every amount the order would store stays within the service's limit, so the order never reaches the
 * database with a sum it could not read back.
 */
export function assertOrderWithinLimit(
  draft: OrderDraft,
  lines: ReadonlyArray<{ product: ProductRow; quantity: number }>,
  amounts: OrderAmounts,
): void {
  const lineField = (i: number) => (draft.items.length === 0 ? 'body/main_product_id' : `body/items/${i}/quantity`);
  assertWithinAmountLimit('The order', [
    ...lines.map((line, i) => ({ field: lineField(i), cents: line.product.value_cents * line.quantity })),
    { field: 'body/items', cents: amounts.subtotalCents },
    { field: 'body/coupon', cents: amounts.discountCents },
    { field: 'body', cents: amounts.freightCents },
    { field: 'body/items', cents: amounts.totalCents },
  ]);
}

/** An order sells something: at least one item (`items`, or `main_product_id` alone). */
export function assertHasItems(lines: readonly unknown[]): void {
  if (lines.length === 0)
    throw validationFailed('An order needs at least one item: send items or main_product_id', [
      { field: 'body/items', message: 'must contain at least one item' },
    ]);
}

/** An order worth nothing has nothing to charge: its link could never be paid (a payment is never of zero). */
export function assertPositiveTotal(amounts: OrderAmounts): void {
  if (amounts.totalCents <= 0)
    throw businessRule('The order’s total must be positive: its items are free or the coupon takes all of it', [
      { field: 'body/items', message: 'the total is zero' },
    ]);
}

/**
 * Attached payments are what a gateway or a till really took: each at least one cent per installment, and
 * together within the per-order limit (their sum is the order's `paid_cents`; interest may put it above the
 * total, never above the limit).
 */
export function assertPaymentsRecordable(
  payments: ReadonlyArray<{ amountCents: number; installments?: number | undefined }>,
): void {
  const split = payments.findIndex((payment) => (payment.installments ?? 1) > payment.amountCents);
  if (split >= 0)
    throw businessRule('A payment cannot be split into installments of less than one cent', [
      { field: `body/payments/${split}/installments`, message: 'more installments than cents in the amount' },
    ]);
  assertWithinAmountLimit('The order’s payments', [
    { field: 'body/payments', cents: payments.reduce((sum, payment) => sum + payment.amountCents, 0) },
  ]);
}
