import type { Static } from 'typebox';
import { fitsOnePayment } from '../../http/amount-limits.ts';
import { toMajor } from '../../lib/money.ts';
import { installmentOptionName } from '../pricing/index.ts';
import type { PaymentPlanOptionSchema, PaymentPlanOptionsSchema } from './payment-plans.schemas.ts';
import type { PaymentMethod, PaymentPlanOffer } from './payment-plans.service.ts';

type PaymentPlanOption = Static<typeof PaymentPlanOptionSchema>;

/** The offer in the API's shape (major units): one key per payment method present, plans in offer order. */
export function paymentPlanOptionsView(offer: PaymentPlanOffer): Static<typeof PaymentPlanOptionsSchema> {
  const byMethod: Partial<Record<PaymentMethod, PaymentPlanOption[]>> = {};
  for (const plan of offer.plans) {
    const list = (byMethod[plan.paymentMethod] ??= []);
    // An option whose interest or fee takes the amount past what one payment can carry is not offered.
    for (const option of plan.options.filter((candidate) => fitsOnePayment(candidate.totalCents))) {
      list.push({
        id: `${plan.id}-${option.installments}`,
        name: installmentOptionName({ ...option, planName: plan.name, currency: offer.context.currency }),
        number: option.installments,
        value: toMajor(option.installmentCents),
        fine: toMajor(plan.fineCents),
        fine_tax: plan.fineTax,
        fine_type: plan.fineType,
        late_interest: toMajor(plan.lateInterestCents),
        late_interest_tax: plan.lateInterestTax,
        payment_method: plan.paymentMethod,
        fixed: toMajor(option.fixedCents),
        percentage: option.percentage,
      });
    }
  }
  return byMethod;
}
