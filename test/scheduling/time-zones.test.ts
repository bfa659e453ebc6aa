import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { slotTimes } from '../../src/modules/scheduling/slots.ts';
import { parseCompanyId } from '../../src/modules/scheduling/scheduling.service.ts';
import { instantOf, isCalendarDate, wallClockAt, weekdayOf } from '../../src/modules/scheduling/time-zones.ts';

describe('wall clocks in IANA zones', () => {
  test('America/Sao_Paulo is UTC-3 all year (no DST since 2019)', () => {
    assert.deepEqual(wallClockAt(new Date('2025-01-15T12:00:00Z'), 'America/Sao_Paulo'), {
      date: '2025-01-15',
      time: '09:00',
      second: 0,
    });
    assert.deepEqual(wallClockAt(new Date('2025-07-15T02:30:15Z'), 'America/Sao_Paulo'), {
      date: '2025-07-14',
      time: '23:30',
      second: 15,
    });
    assert.equal(instantOf('2025-01-15', '09:00', 'America/Sao_Paulo')?.toISOString(), '2025-01-15T12:00:00.000Z');
    assert.equal(instantOf('2025-07-15', '09:00', 'America/Sao_Paulo')?.toISOString(), '2025-07-15T12:00:00.000Z');
  });

  test('America/New_York follows DST: UTC-5 in winter, UTC-4 in summer', () => {
    assert.equal(instantOf('2025-01-15', '09:00', 'America/New_York')?.toISOString(), '2025-01-15T14:00:00.000Z');
    assert.equal(instantOf('2025-07-15', '09:00', 'America/New_York')?.toISOString(), '2025-07-15T13:00:00.000Z');
    assert.deepEqual(wallClockAt(new Date('2025-07-15T13:00:00Z'), 'America/New_York'), {
      date: '2025-07-15',
      time: '09:00',
      second: 0,
    });
  });

  test('a wall time skipped by the spring-forward jump does not exist', () => {
    assert.equal(instantOf('2025-03-09', '02:30', 'America/New_York'), undefined);
    assert.equal(instantOf('2025-03-09', '01:30', 'America/New_York')?.toISOString(), '2025-03-09T06:30:00.000Z');
    assert.equal(instantOf('2025-03-09', '03:00', 'America/New_York')?.toISOString(), '2025-03-09T07:00:00.000Z');
  });

  test('a wall time repeated by the fall-back jump resolves to its earlier instant', () => {
    assert.equal(instantOf('2025-11-02', '01:30', 'America/New_York')?.toISOString(), '2025-11-02T05:30:00.000Z');
    assert.deepEqual(wallClockAt(new Date('2025-11-02T06:30:00Z'), 'America/New_York').time, '01:30');
  });

  test('east of UTC too, a repeated wall time is its first occurrence and a skipped one does not exist', () => {
    const first: Array<[string, string, string, string]> = [
      ['2027-10-28', '23:00', 'Africa/Cairo', '2027-10-28T20:00:00.000Z'], // +03:00, then again at +02:00
      ['2027-10-30', '23:30', 'Asia/Beirut', '2027-10-30T20:30:00.000Z'],
      ['2027-10-31', '02:30', 'Europe/Berlin', '2027-10-31T00:30:00.000Z'],
      ['2027-04-04', '02:30', 'Australia/Sydney', '2027-04-03T15:30:00.000Z'],
      ['2027-04-04', '02:30', 'Pacific/Auckland', '2027-04-03T13:30:00.000Z'],
    ];
    for (const [date, time, zone, instant] of first)
      assert.equal(instantOf(date, time, zone)?.toISOString(), instant, `${zone} ${date} ${time}`);
    // Just outside the repeated hour, one instant each.
    assert.equal(instantOf('2027-10-28', '22:00', 'Africa/Cairo')?.toISOString(), '2027-10-28T19:00:00.000Z');
    assert.equal(instantOf('2027-10-31', '03:00', 'Europe/Berlin')?.toISOString(), '2027-10-31T02:00:00.000Z');
    for (const [date, time, zone] of [
      ['2027-03-28', '02:30', 'Europe/Berlin'],
      ['2026-10-04', '02:30', 'Australia/Sydney'],
      ['2027-09-26', '02:30', 'Pacific/Auckland'],
    ] as const) {
      assert.equal(instantOf(date, time, zone), undefined, `${zone} ${date} ${time}`);
    }
  });

  test('zones east of UTC and with quarter-hour offsets', () => {
    assert.equal(instantOf('2025-03-06', '09:00', 'Asia/Tokyo')?.toISOString(), '2025-03-06T00:00:00.000Z');
    assert.equal(instantOf('2025-03-06', '00:15', 'Asia/Kathmandu')?.toISOString(), '2025-03-05T18:30:00.000Z');
  });
});

describe('calendar dates and weekdays', () => {
  test('only real YYYY-MM-DD dates pass', () => {
    assert.equal(isCalendarDate('2024-02-29'), true);
    for (const text of [
      '2025-02-29',
      '2025-13-01',
      '2025-00-10',
      '2025-1-01',
      '05/03/2025',
      'tomorrow',
      '2025-03-05T10:00',
      '',
    ]) {
      assert.equal(isCalendarDate(text), false, text);
    }
  });

  test('weekday 0 is Sunday', () => {
    assert.equal(weekdayOf('2025-03-09'), 0);
    assert.equal(weekdayOf('2025-03-05'), 3);
    assert.equal(weekdayOf('2025-03-08'), 6);
  });

  test('company ids are positive 32-bit integers written plainly', () => {
    assert.equal(parseCompanyId('42'), 42);
    for (const text of [undefined, '', '0', '-1', '1.5', '1e3', '042', 'abc', '2147483648', '99999999999'])
      assert.equal(parseCompanyId(text), undefined, String(text));
  });
});

describe('slot times', () => {
  test('from each start, every slot_minutes, while the slot ends by the interval end', () => {
    assert.deepEqual(slotTimes([{ starts_at: '09:00:00', ends_at: '12:00:00', slot_minutes: 60 }]), [
      '09:00',
      '10:00',
      '11:00',
    ]);
    assert.deepEqual(slotTimes([{ starts_at: '09:00:00', ends_at: '10:30:00', slot_minutes: 45 }]), ['09:00', '09:45']);
    assert.deepEqual(slotTimes([{ starts_at: '09:00:00', ends_at: '10:29:00', slot_minutes: 45 }]), ['09:00']);
    assert.deepEqual(slotTimes([{ starts_at: '09:00:00', ends_at: '09:30:00', slot_minutes: 60 }]), []);
  });

  test('intervals are merged, sorted and without repeats', () => {
    const intervals = [
      { starts_at: '14:00:00', ends_at: '15:00:00', slot_minutes: 30 },
      { starts_at: '08:00:00', ends_at: '10:00:00', slot_minutes: 60 },
      { starts_at: '09:00:00', ends_at: '10:00:00', slot_minutes: 30 },
    ];
    assert.deepEqual(slotTimes(intervals), ['08:00', '09:00', '09:30', '14:00', '14:30']);
  });

  test('a slot may end at midnight', () => {
    assert.deepEqual(slotTimes([{ starts_at: '22:00:00', ends_at: '24:00:00', slot_minutes: 60 }]), ['22:00', '23:00']);
  });
});
