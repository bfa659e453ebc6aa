import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { installmentOptions, pricedTotal } from '../../src/modules/pricing/installments.ts';
import { formatMoney } from '../../src/modules/pricing/labels.ts';
import { overdueCharges } from '../../src/modules/pricing/overdue.ts';
import { orderAmounts, type CouponRule } from '../../src/modules/pricing/totals.ts';
import { paymentPlanOptionsView } from '../../src/modules/payment-plans/payment-plans.view.ts';
import type { PaymentPlanOffer } from '../../src/modules/payment-plans/payment-plans.service.ts';
import { optionLabel } from '../../src/web/client/plans.ts';

const rate = fc.integer({ min: 0, max: 200_000 }).map((scaled) => scaled / 10_000); // 0–20%, four decimals
const lines = fc.array(
  fc.record({ unitCents: fc.integer({ min: 0, max: 500_000 }), quantity: fc.integer({ min: 1, max: 10 }) }),
  { minLength: 1, maxLength: 5 },
);
const coupon: fc.Arbitrary<CouponRule | undefined> = fc.option(
  fc.oneof(
    rate.map((percentage) => ({ type: 'percentage' as const, percentage: percentage * 5 })),
    fc.integer({ min: 1, max: 200_000 }).map((amountCents) => ({ type: 'price' as const, amountCents })),
  ),
  { nil: undefined },
);
const overdue = fc.option(
  fc.record({
    daysLate: fc.integer({ min: 1, max: 90 }),
    fineTax: rate,
    lateInterestTax: rate,
    lateInterestCents: fc.integer({ min: 0, max: 1_000 }),
  }),
  { nil: undefined },
);
const plan = fc.record({
  method: fc.constantFrom('credit_card' as const, 'pix' as const, 'bank_slip' as const),
  maxInstallments: fc.integer({ min: 1, max: 18 }),
  minInstallmentCents: fc.integer({ min: 0, max: 10_000 }),
  taxes: fc.uniqueArray(
    fc.record({
      installments: fc.integer({ min: 1, max: 18 }),
      fixedCents: fc.integer({ min: 0, max: 2_000 }),
      percentage: rate,
    }),
    { selector: (row) => row.installments, maxLength: 18 },
  ),
});

type PlanCase = typeof plan extends fc.Arbitrary<infer T> ? T : never;

/** What the buyer's base is: items less the coupon, plus freight, plus a charge's fine and late interest. */
function baseOf(input: {
  lines: { unitCents: number; quantity: number }[];
  freightCents: number;
  coupon: CouponRule | undefined;
  overdue: { daysLate: number; fineTax: number; lateInterestTax: number; lateInterestCents: number } | undefined;
}): number {
  const { totalCents } = orderAmounts(input.lines, input.freightCents, input.coupon);
  if (!input.overdue) return totalCents;
  const today = new Date(Date.UTC(2026, 2, 5 + input.overdue.daysLate)).toISOString().slice(0, 10);
  const late = overdueCharges({
    totalCents,
    dueDate: '2026-03-05',
    today,
    fineType: 'percentage',
    fineCents: 0,
    ...input.overdue,
  });
  return totalCents + late.extraCents;
}

function offerOf(baseCents: number, plans: PlanCase[]): PaymentPlanOffer {
  return {
    baseCents,
    amountOverride: false,
    context: { currency: 'BRL' } as PaymentPlanOffer['context'],
    plans: plans.map((candidate, index) => ({
      id: index + 1,
      name: `Plano ${index + 1}`,
      paymentMethod: candidate.method,
      fineType: 'percentage',
      fineCents: 0,
      fineTax: 0,
      lateInterestCents: 0,
      lateInterestTax: 0,
      options: installmentOptions(baseCents, candidate, candidate.taxes),
    })),
  };
}

const cents = (major: number) => Math.round(major * 100);

describe('the installment rule, from the items to the label', () => {
  test('value × number is the total charged, in the option, its name and the page label; "sem juros" only at the base', () => {
    fc.assert(
      fc.property(
        lines,
        fc.integer({ min: 0, max: 10_000 }),
        coupon,
        overdue,
        fc.array(plan, { minLength: 1, maxLength: 3 }),
        (items, freightCents, couponRule, late, plans) => {
          const baseCents = baseOf({ lines: items, freightCents, coupon: couponRule, overdue: late });
          const offer = offerOf(baseCents, plans);
          const view = paymentPlanOptionsView(offer);
          for (const plan of offer.plans)
            for (const option of plan.options) {
              const shown = view[plan.paymentMethod]!.find(
                (candidate) => candidate.id === `${plan.id}-${option.installments}`,
              )!;
              const charged = cents(shown.value) * shown.number;
              assert.equal(charged, option.totalCents);
              assert.ok(charged >= pricedTotal(baseCents, option) && charged >= baseCents);
              const interestFree = charged === baseCents;
              const label = optionLabel(shown, baseCents);
              if (shown.number > 1) {
                assert.ok(shown.name.endsWith(`(total ${formatMoney(charged)})`), shown.name);
                assert.ok(shown.name.includes(interestFree ? ' sem juros ' : ' com juros '), shown.name);
                assert.ok(label.includes(interestFree ? ' sem juros ' : ' com juros '), label);
                assert.ok(label.replace(/\s/g, ' ').endsWith(`(total ${formatMoney(charged)})`), label);
              } else {
                assert.equal(shown.name.endsWith(' com juros'), !interestFree, shown.name);
                assert.equal(label.endsWith(' com juros'), !interestFree, label);
              }
            }
        },
      ),
      { numRuns: 300 },
    );
  });
});
