import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { couponDiscount, orderAmounts, type CouponRule } from '../../src/modules/pricing/totals.ts';

const coupon: fc.Arbitrary<CouponRule> = fc.oneof(
  fc
    .integer({ min: 1, max: 1_000_000 })
    .map((scaled) => ({ type: 'percentage' as const, percentage: scaled / 10_000 })),
  fc.integer({ min: 1, max: 10_000_000 }).map((amountCents) => ({ type: 'price' as const, amountCents })),
);
const lines = fc.array(
  fc.record({ unitCents: fc.integer({ min: 0, max: 1_000_000 }), quantity: fc.integer({ min: 1, max: 100 }) }),
  { maxLength: 20 },
);

describe('coupon application', () => {
  test('examples: a percentage rounds half up; a price never exceeds the subtotal', () => {
    assert.equal(couponDiscount(4_990, { type: 'percentage', percentage: 10 }), 499);
    assert.equal(couponDiscount(4_995, { type: 'percentage', percentage: 10 }), 500); // 499,5 → 500
    assert.equal(couponDiscount(1_000, { type: 'price', amountCents: 2_000 }), 1_000);
    assert.equal(couponDiscount(1_000, undefined), 0);
  });

  test('the same rule on the same subtotal always gives the same discount', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000_00 }), coupon, (subtotal, rule) => {
        assert.equal(couponDiscount(subtotal, rule), couponDiscount(subtotal, structuredClone(rule)));
      }),
    );
  });

  test('the discounted total is never below zero, nor the discount above the subtotal', () => {
    fc.assert(
      fc.property(lines, fc.integer({ min: 0, max: 100_000 }), coupon, (items, freight, rule) => {
        const amounts = orderAmounts(items, freight, rule);
        assert.ok(amounts.discountCents >= 0 && amounts.discountCents <= amounts.subtotalCents);
        assert.ok(amounts.totalCents >= freight);
        assert.equal(amounts.totalCents, amounts.subtotalCents - amounts.discountCents + freight);
      }),
    );
  });
});
