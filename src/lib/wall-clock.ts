/**
 * Wall clocks in IANA time zones with Intl alone. No imports: the server's slots and the checkout page's
 * client bundle share this file, so both name the same instant for the same slot.
 */

export type WallClock = { date: string; time: string; second: number };

const DAY_MS = 86_400_000;
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
  return {
    date: `${pad(f.year!, 4)}-${pad(f.month!)}-${pad(f.day!)}`,
    time: `${pad(f.hour!)}:${pad(f.minute!)}`,
    second: f.second!,
  };
}

/** Minutes `zone` is ahead of UTC at `instant` (negative west of Greenwich). */
function offsetMinutesAt(instantMs: number, zone: string): number {
  const f = fieldsAt(new Date(instantMs), zone);
  const asUtc = Date.UTC(f.year!, f.month! - 1, f.day!, f.hour!, f.minute!, f.second!);
  return Math.round((asUtc - Math.floor(instantMs / 1000) * 1000) / 60_000);
}

/** `date` `time` read as if in UTC, in milliseconds. */
function naiveMs(date: string, time: string): number {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const [hour, minute] = time.split(':').map(Number) as [number, number];
  return Date.UTC(year, month - 1, day, hour, minute);
}

/**
 * The instant a clock in `zone` shows `date` `time`. Undefined when that wall time does not exist
 * (skipped by a DST jump); when it exists twice (clocks set back), the earlier instant.
 * Every offset in force within a day of the wall time is tried, so the answer does not depend on which
 * side of UTC the zone is.
 */
export function instantOf(date: string, time: string, zone: string): Date | undefined {
  const naive = naiveMs(date, time);
  const offsets = new Set([offsetMinutesAt(naive - DAY_MS, zone), offsetMinutesAt(naive + DAY_MS, zone)]);
  const matches = [...offsets]
    .map((offset) => naive - offset * 60_000)
    .filter((candidate) => {
      const shown = wallClockAt(new Date(candidate), zone);
      return shown.date === date && shown.time === time;
    });
  return matches.length ? new Date(Math.min(...matches)) : undefined;
}

/**
 * `date` `time` in `zone` written with its UTC offset (`2030-03-04T14:00:00-03:00`): the instant
 * `instantOf` names. A wall time skipped by a DST jump has none and gets undefined.
 */
export function zonedDateTime(date: string, time: string, zone: string): string | undefined {
  const instant = instantOf(date, time, zone);
  if (!instant) return undefined;
  const minutes = Math.round((naiveMs(date, time) - instant.getTime()) / 60_000);
  const sign = minutes < 0 ? '-' : '+';
  return `${date}T${time}:00${sign}${pad(Math.floor(Math.abs(minutes) / 60))}:${pad(Math.abs(minutes) % 60)}`;
}
