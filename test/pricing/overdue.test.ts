import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { daysBetween, overdueCharges, todayInTimeZone, type OverdueInput } from '../../src/modules/pricing/overdue.ts';
import { percentOfProRata } from '../../src/modules/pricing/rounding.ts';

const boleto: Omit<OverdueInput, 'today'> = {
  totalCents: 32_480,
  dueDate: '2026-03-05',
  fineType: 'percentage',
  fineCents: 0,
  fineTax: 2,
  lateInterestCents: 0,
  lateInterestTax: 1,
};

describe('fines and late interest', () => {
  test('nothing is due on or before the due date', () => {
    for (const today of ['2026-02-01', '2026-03-04', '2026-03-05']) {
      assert.deepEqual(
        overdueCharges({ ...boleto, today }),
        { daysLate: 0, fineCents: 0, lateInterestCents: 0, extraCents: 0 },
        today,
      );
    }
  });

  test('ten days late: 2% fine once, 1% a month pro rata per day (the worked example of docs/pricing.md)', () => {
    // fine 324,80 × 2% = 6,496 → 6,50; interest 324,80 × 1% / 30 × 10 = 1,0827 → 1,08.
    assert.deepEqual(overdueCharges({ ...boleto, today: '2026-03-15' }), {
      daysLate: 10,
      fineCents: 650,
      lateInterestCents: 108,
      extraCents: 758,
    });
  });

  test('a fixed fine ignores fine_tax; a fixed late interest is added once', () => {
    const result = overdueCharges({
      ...boleto,
      fineType: 'fixed',
      fineCents: 500,
      lateInterestCents: 100,
      today: '2026-03-06',
    });
    // one day: 324,80 × 1% / 30 = 0,1083 → 0,11, plus 1,00 once.
    assert.deepEqual(result, { daysLate: 1, fineCents: 500, lateInterestCents: 111, extraCents: 611 });
  });

  test('late interest is rounded once, half up', () => {
    assert.equal(percentOfProRata(4_500, 1, 1, 30), 2); // 1,5 cents → 2
    assert.equal(percentOfProRata(4_499, 1, 1, 30), 1); // 1,4997 → 1
    assert.equal(
      overdueCharges({ ...boleto, totalCents: 4_500, fineTax: 0, today: '2026-03-06' }).lateInterestCents,
      2,
    );
    assert.throws(() => percentOfProRata(100, 1, 1, 0), RangeError);
  });

  test('days are calendar days, across months and years', () => {
    assert.equal(daysBetween('2026-02-27', '2026-03-01'), 2);
    assert.equal(daysBetween('2025-12-31', '2026-01-01'), 1);
    assert.equal(daysBetween('2026-03-05', '2026-03-01'), -4);
    assert.throws(() => daysBetween('2026-02-30', '2026-03-01'), RangeError);
    assert.throws(() => daysBetween('05/03/2026', '2026-03-01'), RangeError);
  });

  test('today is the calendar date in the company’s time zone', () => {
    const lateEvening = new Date('2026-03-16T01:30:00Z'); // 22:30 on the 15th in São Paulo
    assert.equal(todayInTimeZone(lateEvening, 'America/Sao_Paulo'), '2026-03-15');
    assert.equal(todayInTimeZone(lateEvening, 'UTC'), '2026-03-16');
    assert.equal(todayInTimeZone(new Date('2026-03-15T16:00:00Z'), 'Asia/Tokyo'), '2026-03-16');
    assert.equal(todayInTimeZone(lateEvening, 'Not/AZone'), '2026-03-15'); // unknown zone: São Paulo
  });
});

const isoDate = fc
  .integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2040, 0, 1) })
  .map((ms) => new Date(ms).toISOString().slice(0, 10));
const rate = fc.integer({ min: 0, max: 200_000 }).map((scaled) => scaled / 10_000);
const terms = fc.record({
  totalCents: fc.integer({ min: 0, max: 1_000_000_00 }),
  dueDate: isoDate,
  fineType: fc.constantFrom('fixed', 'percentage'),
  fineCents: fc.integer({ min: 0, max: 100_00 }),
  fineTax: rate,
  lateInterestCents: fc.integer({ min: 0, max: 100_00 }),
  lateInterestTax: rate,
});
const shiftDate = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

describe('overdue properties', () => {
  test('zero on or before the due date', () => {
    fc.assert(
      fc.property(terms, fc.integer({ min: 0, max: 4_000 }), (input, early) => {
        assert.equal(overdueCharges({ ...input, today: shiftDate(input.dueDate, -early) }).extraCents, 0);
      }),
    );
  });

  test('never negative, and non-decreasing day after day past the due date', () => {
    fc.assert(
      fc.property(terms, fc.integer({ min: 0, max: 2_000 }), fc.integer({ min: 0, max: 400 }), (input, late, more) => {
        const earlier = overdueCharges({ ...input, today: shiftDate(input.dueDate, late) });
        const later = overdueCharges({ ...input, today: shiftDate(input.dueDate, late + more) });
        assert.ok(earlier.fineCents >= 0 && earlier.lateInterestCents >= 0);
        assert.ok(later.fineCents >= earlier.fineCents);
        assert.ok(later.lateInterestCents >= earlier.lateInterestCents);
        assert.equal(later.extraCents, later.fineCents + later.lateInterestCents);
      }),
    );
  });
});
