/** Wall-clock arithmetic in IANA time zones with Intl alone: no time-zone library. */

export type WallClock = { date: string; time: string; second: number };

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

function fieldsAt(instant: Date, zone: string): Record<string, number> {
  const fields: Record<string, number> = {};
  for (const part of formatterFor(zone).formatToParts(instant)) {
    if (part.type !== 'literal') fields[part.type] = Number(part.value);
  }
  return fields;
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** The date (YYYY-MM-DD), time (HH:MM) and second that a clock in `zone` shows at `instant`. */
export function wallClockAt(instant: Date, zone: string): WallClock {
  const f = fieldsAt(instant, zone);
  return { date: `${pad(f.year!, 4)}-${pad(f.month!)}-${pad(f.day!)}`, time: `${pad(f.hour!)}:${pad(f.minute!)}`, second: f.second! };
}

/** Minutes `zone` is ahead of UTC at `instant` (negative west of Greenwich). */
function offsetMinutesAt(instantMs: number, zone: string): number {
  const f = fieldsAt(new Date(instantMs), zone);
  const asUtc = Date.UTC(f.year!, f.month! - 1, f.day!, f.hour!, f.minute!, f.second!);
  return Math.round((asUtc - Math.floor(instantMs / 1000) * 1000) / 60_000);
}

/**
 * The instant a clock in `zone` shows `date` `time`. Undefined when that wall time does not exist
 * (skipped by a DST jump); when it exists twice (clocks set back), the earlier instant.
 */
export function instantOf(date: string, time: string, zone: string): Date | undefined {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const [hour, minute] = time.split(':').map(Number) as [number, number];
  const naive = Date.UTC(year, month - 1, day, hour, minute);
  let guess = naive - offsetMinutesAt(naive, zone) * 60_000;
  guess = naive - offsetMinutesAt(guess, zone) * 60_000;
  const shown = wallClockAt(new Date(guess), zone);
  return shown.date === date && shown.time === time ? new Date(guess) : undefined;
}

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
