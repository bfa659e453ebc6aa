import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  installmentOption,
  installmentOptions,
  installmentTotal,
  installmentValue,
  isInterestFree,
  pricedTotal,
  type InstallmentTax,
} from '../../src/modules/pricing/installments.ts';
import { formatMoney, installmentOptionName, installmentsPhrase } from '../../src/modules/pricing/labels.ts';

describe('installment totals and schedules', () => {
  test('percentage is the whole interest for the count, applied once to the base, then the fixed fee', () => {
    assert.equal(pricedTotal(10_000), 10_000);
    assert.equal(pricedTotal(10_000, { percentage: 1.79, fixedCents: 0 }), 10_179);
    assert.equal(pricedTotal(4_990, { percentage: 1.79, fixedCents: 0 }), 5_079); // 89.321 cents → 89
    assert.equal(pricedTotal(2_950, { percentage: 2.5, fixedCents: 50 }), 3_074); // 73.75 → 74, + 50
    assert.equal(installmentTotal(2_950, { percentage: 2.5, fixedCents: 50 }), 3_074); // one payment: the priced total
  });

  test('every installment is the priced total over the count rounded up; the total is that times the count', () => {
    assert.equal(installmentValue(10_000, 3), 3_334);
    assert.equal(installmentTotal(10_000, undefined, 3), 10_002);
    assert.equal(installmentValue(10_001, 4), 2_501);
    assert.equal(installmentValue(10_000, 4), 2_500);
    assert.equal(installmentTotal(18_954, undefined, 12), 18_960); // 12 × 15,80, not the 189,54 once announced
    assert.equal(installmentValue(0, 1), 0);
    assert.throws(() => installmentValue(100, 0), RangeError);
    assert.throws(() => installmentValue(-1, 1), RangeError);
    assert.throws(() => pricedTotal(10.5), RangeError);
  });

  test('a count without a tax row has neither interest nor fee', () => {
    const option = installmentOption(10_000, 4, undefined);
    assert.deepEqual(option, {
      installments: 4,
      baseCents: 10_000,
      percentage: 0,
      fixedCents: 0,
      installmentCents: 2_500,
      totalCents: 10_000,
      scheduleCents: [2_500, 2_500, 2_500, 2_500],
    });
    assert.equal(isInterestFree(option), true);
  });

  test('the rounding of an uneven split is paid by the buyer, so that count is not "sem juros"', () => {
    const option = installmentOption(10_000, 3, undefined);
    assert.equal(option.totalCents, 10_002);
    assert.deepEqual(option.scheduleCents, [3_334, 3_334, 3_334]);
    assert.equal(isInterestFree(option), false);
  });
});

describe('which installment counts are selectable', () => {
  const noTaxes: InstallmentTax[] = [];

  test('n > 1 only while each installment reaches the plan minimum', () => {
    const counts = installmentOptions(10_000, { maxInstallments: 12, minInstallmentCents: 1_000 }, noTaxes).map(
      (o) => o.installments,
    );
    assert.deepEqual(counts, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  test('one payment is always offered, even below the minimum', () => {
    const options = installmentOptions(500, { maxInstallments: 12, minInstallmentCents: 1_000 }, noTaxes);
    assert.deepEqual(
      options.map((o) => o.installments),
      [1],
    );
    assert.equal(options[0]!.totalCents, 500);
  });

  test('a zero total offers one payment of zero; installments are at least one cent', () => {
    assert.deepEqual(
      installmentOptions(0, { maxInstallments: 12, minInstallmentCents: 0 }, noTaxes).map((o) => o.totalCents),
      [0],
    );
    assert.deepEqual(
      installmentOptions(3, { maxInstallments: 12, minInstallmentCents: 0 }, noTaxes).map((o) => o.installments),
      [1, 2, 3],
    );
  });

  test('the minimum is checked on the installment with interest included', () => {
    const taxes = [{ installments: 3, percentage: 2.5, fixedCents: 50 }];
    const plan = { maxInstallments: 3, minInstallmentCents: 1_000 };
    // 3x of 29,50 is 9,83 each, below the minimum; with 2.5% + R$ 0,50 it is 30,74 → 10,24 each.
    assert.deepEqual(
      installmentOptions(2_950, plan, []).map((o) => o.installments),
      [1, 2],
    );
    assert.deepEqual(
      installmentOptions(2_950, plan, taxes).map((o) => o.installments),
      [1, 2, 3],
    );
  });

  test('max_installments caps the counts; a tax row beyond it is ignored', () => {
    const options = installmentOptions(100_000, { maxInstallments: 2, minInstallmentCents: 0 }, [
      { installments: 3, percentage: 5, fixedCents: 0 },
    ]);
    assert.deepEqual(
      options.map((o) => o.installments),
      [1, 2],
    );
  });
});

describe('pt-BR labels', () => {
  test('money is R$ with a dot for thousands and a comma for cents', () => {
    assert.equal(formatMoney(123_450), 'R$ 1.234,50');
    assert.equal(formatMoney(5), 'R$ 0,05');
    assert.equal(formatMoney(100_000_000), 'R$ 1.000.000,00');
    assert.equal(formatMoney(100, 'usd'), 'USD 1,00');
  });

  test('one payment shows the plan name; several the count, the installment, sem/com juros and the total', () => {
    const one = { installments: 1, installmentCents: 4_990, totalCents: 4_990, baseCents: 4_990 };
    assert.equal(installmentOptionName({ ...one, planName: 'Pix' }), 'Pix - R$ 49,90');
    assert.equal(
      installmentOptionName({ ...one, planName: 'Cartão', totalCents: 5_079, installmentCents: 5_079 }),
      'Cartão - R$ 50,79 com juros',
    );
    assert.equal(
      installmentOptionName({
        planName: 'Cartão',
        installments: 3,
        installmentCents: 3_450,
        totalCents: 10_350,
        baseCents: 10_000,
      }),
      '3x de R$ 34,50 com juros (total R$ 103,50)',
    );
    assert.equal(
      installmentOptionName({
        planName: 'Cartão',
        installments: 4,
        installmentCents: 2_500,
        totalCents: 10_000,
        baseCents: 10_000,
      }),
      '4x de R$ 25,00 sem juros (total R$ 100,00)',
    );
    assert.equal(
      installmentsPhrase(
        { installments: 2, installmentCents: 150, totalCents: 300, baseCents: 300 },
        (cents) => `<${cents}>`,
      ),
      '2x de <150> sem juros (total <300>)',
    );
  });
});

const cents = fc.integer({ min: 0, max: 10_000_000_00 });
const rate = fc.integer({ min: 0, max: 1_000_000 }).map((scaled) => scaled / 10_000); // 0–100%, four decimals
const taxRows = fc.uniqueArray(
  fc.record({
    installments: fc.integer({ min: 1, max: 24 }),
    fixedCents: fc.integer({ min: 0, max: 100_00 }),
    percentage: rate,
  }),
  { selector: (row) => row.installments, maxLength: 24 },
);
const terms = fc.record({
  maxInstallments: fc.integer({ min: 1, max: 24 }),
  minInstallmentCents: fc.integer({ min: 0, max: 50_000 }),
});

describe('installment properties', () => {
  test('totals and installments are never negative, and never below the base', () => {
    fc.assert(
      fc.property(cents, terms, taxRows, (base, plan, taxes) => {
        for (const option of installmentOptions(base, plan, taxes)) {
          assert.ok(option.totalCents >= base);
          assert.ok(option.scheduleCents.every((amount) => Number.isInteger(amount) && amount >= 0));
        }
      }),
    );
  });

  test('the installments of an option are equal and sum exactly to its total; the rounding is under a cent each', () => {
    fc.assert(
      fc.property(cents, terms, taxRows, (base, plan, taxes) => {
        for (const option of installmentOptions(base, plan, taxes)) {
          assert.equal(option.scheduleCents.length, option.installments);
          assert.ok(option.scheduleCents.every((amount) => amount === option.installmentCents));
          assert.equal(option.installmentCents * option.installments, option.totalCents);
          const priced = pricedTotal(base, option);
          assert.ok(option.totalCents >= priced && option.totalCents - priced < option.installments);
        }
      }),
    );
  });

  test('without interest, the per-installment value never grows with the count', () => {
    fc.assert(
      fc.property(cents, terms, (base, plan) => {
        const values = installmentOptions(base, plan, []).map((option) => option.installmentCents);
        for (let i = 1; i < values.length; i++) assert.ok(values[i]! <= values[i - 1]!);
      }),
    );
  });

  test('every selectable count above one respects the minimum; one is always offered', () => {
    fc.assert(
      fc.property(cents, terms, taxRows, (base, plan, taxes) => {
        const options = installmentOptions(base, plan, taxes);
        assert.equal(options[0]!.installments, 1);
        for (const option of options.slice(1))
          assert.ok(option.installmentCents >= Math.max(1, plan.minInstallmentCents));
      }),
    );
  });
});
