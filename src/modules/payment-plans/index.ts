// The payment-plans module's public face: other modules and the processes import only what is listed here.
export {
  checkoutPagePricingContext,
  type PricingContext,
  type PricingQuery,
  resolvePricingContext,
} from './payment-plans.context.ts';
export { databaseReads, type PricingReads, readsWithPageRows } from './payment-plans.reads.ts';
export { pageProductsQuery, planRowsQuery } from './payment-plans.repo.ts';
export { registerPaymentPlanRoutes } from './payment-plans.routes.ts';
export { type PaymentPlanQuote, quoteOption, quoteOptionInContext } from './payment-plans.service.ts';
export { contextTotal } from './payment-plans.totals.ts';
