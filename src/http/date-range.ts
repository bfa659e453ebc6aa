import { Type } from 'typebox';

/**
 * The one range of dates and instants the service accepts: 1900-01-01 to 9999-12-31. ajv's `date` and
 * `date-time` formats also let through year 0000 (PostgreSQL has no year 0) and the leap second
 * 23:59:60 (an invalid JS Date), which fail in the database or in `new Date` as a 500. Years before 1900
 * are refused too: no payment record is that old, a year such as 0024 is a typing slip, and the embedded
 * engine reads timestamps before year 100 back as 19xx/20xx. The end is the last four-digit year, so
 * `9999-12-31` still works as an open end of a filter. An instant is checked in UTC, so an offset
 * cannot carry it out of the range.
 */
export const FIRST_DATE = '1900-01-01';
export const LAST_DATE = '9999-12-31';
const FIRST_INSTANT = `${FIRST_DATE}T00:00:00.000Z`;
const LAST_INSTANT = `${LAST_DATE}T23:59:59.999Z`;
export const FIRST_INSTANT_MS = Date.parse(FIRST_INSTANT);
export const LAST_INSTANT_MS = Date.parse(LAST_INSTANT);

// What `date-time` allows and a JS Date cannot read: the leap second (second 60) and an offset of hours
// alone (`+03`). formatMinimum/formatMaximum (ajv-formats) compare through `new Date`, and a value it cannot
// read compares as unknown and passes, so this shape refuses both.
const INSTANT_SHAPE =
  '^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:(?!60)[0-9]{2}(\\.[0-9]+)?([Zz]|[+-][0-9]{2}:?[0-9]{2})$';

/** A `YYYY-MM-DD` request field within the range; anything else is a 422 naming the field. */
export const CalendarDate = (options: object = {}) =>
  Type.String({ format: 'date', formatMinimum: FIRST_DATE, formatMaximum: LAST_DATE, ...options });

/** An ISO 8601 date-time request field (`Z` or a `±HH:MM` offset) within the range, without a leap second. */
export const Instant = (options: object = {}) =>
  Type.String({
    format: 'date-time',
    formatMinimum: FIRST_INSTANT,
    formatMaximum: LAST_INSTANT,
    pattern: INSTANT_SHAPE,
    ...options,
  });

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const INSTANT = new RegExp(INSTANT_SHAPE);

/** Whether `text` is a real calendar date `YYYY-MM-DD` within the range (for text no schema checked). */
export function isDateInRange(text: string): boolean {
  const match = DATE.exec(text);
  if (!match || text < FIRST_DATE || text > LAST_DATE) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return days !== undefined && day >= 1 && day <= days;
}

/** Whether `instant` is a valid Date within the range. */
export function isInstantInRange(instant: Date): boolean {
  const ms = instant.getTime();
  return ms >= FIRST_INSTANT_MS && ms <= LAST_INSTANT_MS;
}

/** An ISO 8601 date-time as a Date, or undefined when it is not one or falls outside the range. */
export function instantInRange(text: string): Date | undefined {
  if (!INSTANT.test(text)) return undefined;
  const instant = new Date(text);
  return isInstantInRange(instant) ? instant : undefined;
}

/** `instant` moved into the range: bounds a query window around a date near either end. */
export function clampToRange(instant: Date): Date {
  return new Date(Math.min(Math.max(instant.getTime(), FIRST_INSTANT_MS), LAST_INSTANT_MS));
}
