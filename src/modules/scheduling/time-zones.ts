/** Dates and wall clocks in IANA time zones with Intl alone: no time-zone library. */

export { instantOf, wallClockAt } from '../../lib/wall-clock.ts';

/** A real calendar date written YYYY-MM-DD, within the service's date range (the one shared check). */
export { isDateInRange as isCalendarDate } from '../../http/date-range.ts';

/** Day of the week of a calendar date, 0 = Sunday. */
export function weekdayOf(date: string): number {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, day)).getUTCDay();
}

/** Midnight UTC of `date` shifted by whole days, in milliseconds: bounds a query around a local date. */
export function utcDayStart(date: string, shiftDays = 0): Date {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, day + shiftDays));
}
