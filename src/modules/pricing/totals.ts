import { percentOf } from './rounding.ts';

export type PricedLine = { unitCents: number; quantity: number };
export type CouponRule = { type: 'percentage'; percentage: number } | { type: 'price'; amountCents: number };

export function lineTotal(line: PricedLine): number {
  return line.unitCents * line.quantity;
}

export function subtotalOf(lines: readonly PricedLine[]): number {
  return lines.reduce((sum, line) => sum + lineTotal(line), 0);
}

/**
 * The discount a coupon gives on the items' subtotal (freight is never discounted): a percentage
 * rounded half up to the cent, or a fixed amount; never more than the subtotal, so no total goes negative.
 */
export function couponDiscount(subtotalCents: number, coupon: CouponRule | undefined): number {
  if (!coupon) return 0;
  const discount = coupon.type === 'percentage' ? percentOf(subtotalCents, coupon.percentage) : coupon.amountCents;
  return Math.min(discount, subtotalCents);
}

export type OrderAmounts = { subtotalCents: number; discountCents: number; freightCents: number; totalCents: number };

/** Items, coupon and freight into the amounts an order stores. */
export function orderAmounts(lines: readonly PricedLine[], freightCents: number, coupon?: CouponRule): OrderAmounts {
  const subtotalCents = subtotalOf(lines);
  const discountCents = couponDiscount(subtotalCents, coupon);
  return { subtotalCents, discountCents, freightCents, totalCents: subtotalCents - discountCents + freightCents };
}
