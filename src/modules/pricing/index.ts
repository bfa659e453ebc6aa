// The pricing module's public face: other modules and the processes import only what is listed here.
export { type InstallmentOption, installmentOptions, installmentTotal } from './installments.ts';
export { installmentOptionName, installmentsPhrase } from './labels.ts';
export { overdueCharges, type OverdueCharges, todayInTimeZone } from './overdue.ts';
export { divideRoundHalfUp } from './rounding.ts';
export { couponDiscount, type CouponRule, orderAmounts, type OrderAmounts, type PricedLine } from './totals.ts';
