import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { instantOf, wallClockAt } from '../../src/modules/scheduling/time-zones.ts';
import { scheduledAt } from '../../src/web/client/schedule.ts';

/** What the hosted checkout sends for a slot must be the instant the server gives that slot. */
describe("the checkout page's scheduled_at", () => {
  test('carries the offset in force at the slot itself, next to DST changes', () => {
    const cases: Array<[string, string, string, string]> = [
      ['2027-04-03', '16:00', 'Australia/Sydney', '2027-04-03T16:00:00+11:00'], // the Saturday before DST ends
      ['2026-10-03', '16:30', 'Australia/Sydney', '2026-10-03T16:30:00+10:00'], // the Saturday before DST starts
      ['2027-04-03', '15:00', 'Pacific/Auckland', '2027-04-03T15:00:00+13:00'],
      ['2027-03-14', '03:00', 'America/New_York', '2027-03-14T03:00:00-04:00'], // spring-forward day
      ['2027-03-14', '06:59', 'America/New_York', '2027-03-14T06:59:00-04:00'],
      ['2027-03-13', '22:00', 'America/New_York', '2027-03-13T22:00:00-05:00'],
      ['2027-01-15', '09:00', 'America/Sao_Paulo', '2027-01-15T09:00:00-03:00'],
      ['2018-11-04', '01:00', 'America/Sao_Paulo', '2018-11-04T01:00:00-02:00'], // DST started at midnight
      ['2025-03-06', '00:15', 'Asia/Kathmandu', '2025-03-06T00:15:00+05:45'],
    ];
    for (const [date, time, zone, sent] of cases)
      assert.equal(scheduledAt(date, time, zone), sent, `${zone} ${date} ${time}`);
  });

  test('a repeated wall time is sent as its first occurrence; a skipped one is not sent', () => {
    assert.equal(scheduledAt('2027-04-04', '02:30', 'Australia/Sydney'), '2027-04-04T02:30:00+11:00');
    assert.equal(scheduledAt('2027-11-07', '01:30', 'America/New_York'), '2027-11-07T01:30:00-04:00');
    assert.equal(scheduledAt('2027-10-28', '23:00', 'Africa/Cairo'), '2027-10-28T23:00:00+03:00');
    assert.equal(scheduledAt('2027-03-14', '02:30', 'America/New_York'), undefined);
  });

  test("every half hour around DST changes, the instant sent is the server's slot and shows the chosen wall time", () => {
    const days: Array<[string, string]> = [
      ['2027-04-03', 'Australia/Sydney'],
      ['2027-04-04', 'Australia/Sydney'],
      ['2026-10-03', 'Australia/Sydney'],
      ['2026-10-04', 'Australia/Sydney'],
      ['2027-04-04', 'Pacific/Auckland'],
      ['2027-03-14', 'America/New_York'],
      ['2027-11-07', 'America/New_York'],
      ['2027-10-31', 'Europe/Berlin'],
      ['2027-10-28', 'Africa/Cairo'],
      ['2018-11-04', 'America/Sao_Paulo'],
      ['2019-02-16', 'America/Sao_Paulo'],
    ];
    const wrong: string[] = [];
    for (const [date, zone] of days) {
      for (let minutes = 0; minutes < 24 * 60; minutes += 30) {
        const time = `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
        const sent = scheduledAt(date, time, zone);
        const sentAt = sent === undefined ? undefined : new Date(sent);
        if (sentAt?.getTime() !== instantOf(date, time, zone)?.getTime())
          wrong.push(`${zone} ${date} ${time}: sends ${sent}`);
        else if (sentAt && wallClockAt(sentAt, zone).time !== time)
          wrong.push(`${zone} ${date} ${time}: ${sent} is ${wallClockAt(sentAt, zone).time} there`);
      }
    }
    assert.deepEqual(wrong, []);
  });
});
