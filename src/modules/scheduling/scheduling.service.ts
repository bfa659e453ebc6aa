import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { clampToRange, isInstantInRange } from '../../http/date-range.ts';
import { AppError } from '../../http/errors.ts';
import {
  findScheduleCompany,
  insertBookingUnlessTaken,
  listBookedInstants,
  listOpenIntervals,
} from './scheduling.repo.ts';
import { slotTimes } from './slots.ts';
import { instantOf, isCalendarDate, utcDayStart, wallClockAt, weekdayOf } from './time-zones.ts';

const COMPANY_ID = /^[1-9][0-9]{0,9}$/;
const MAX_ID = 2_147_483_647;

/** A company id from path text; undefined when it is not a positive integer id. */
export function parseCompanyId(text: string | undefined): number | undefined {
  if (text === undefined || !COMPANY_ID.test(text)) return undefined;
  const id = Number(text);
  return id <= MAX_ID ? id : undefined;
}

type Company = NonNullable<Awaited<ReturnType<typeof findScheduleCompany>>>;

/**
 * The slots of the company's schedule on `date` that exist in its zone and start after `now`, with their
 * instants. A slot whose instant falls past the end of year 9999 in UTC is left out: no `scheduled_at`
 * the service accepts can name it.
 */
async function futureSlotsOn(
  db: Kysely<DB>,
  company: Company,
  date: string,
  now: Date,
): Promise<Array<{ time: string; instant: Date }>> {
  const intervals = await listOpenIntervals(db, company.account_id, company.id, weekdayOf(date));
  const slots: Array<{ time: string; instant: Date }> = [];
  for (const time of slotTimes(intervals)) {
    const instant = instantOf(date, time, company.time_zone);
    if (instant && instant > now && isInstantInRange(instant)) slots.push({ time, instant });
  }
  return slots;
}

/**
 * The free `HH:MM` slots of a company on a date in its own time zone. Empty for a missing or malformed
 * id or date (including one outside the service's date range), an unknown company, a past date, or a
 * weekday without schedule.
 */
export async function availableSlots(
  db: Kysely<DB>,
  companyIdText: string | undefined,
  date: string | undefined,
  now: Date,
): Promise<string[]> {
  const companyId = parseCompanyId(companyIdText);
  if (companyId === undefined || date === undefined || !isCalendarDate(date)) return [];
  const company = await findScheduleCompany(db, companyId);
  if (!company || date < wallClockAt(now, company.time_zone).date) return [];
  const slots = await futureSlotsOn(db, company, date, now);
  if (slots.length === 0) return [];
  // Offsets stay within a day of UTC, so a three-day window holds every booking of the local date; it is
  // clamped to the date range so the last days of 9999 do not ask the database for year 10000.
  const bounds = [clampToRange(utcDayStart(date, -1)), clampToRange(utcDayStart(date, 2))] as const;
  const booked = await listBookedInstants(db, company.account_id, company.id, ...bounds);
  const taken = new Set(
    booked
      .map((instant) => wallClockAt(instant, company.time_zone))
      .filter((wall) => wall.date === date)
      .map((wall) => wall.time),
  );
  return slots.map((slot) => slot.time).filter((time) => !taken.has(time));
}

/** Whether `scheduledAt` is exactly one of the company's slots and still in the future (taken or not). */
export async function isBookableSlot(
  db: Kysely<DB>,
  companyId: number,
  scheduledAt: Date,
  now: Date,
): Promise<boolean> {
  if (!(scheduledAt > now)) return false;
  const company = await findScheduleCompany(db, companyId);
  if (!company) return false;
  const wall = wallClockAt(scheduledAt, company.time_zone);
  const slots = await futureSlotsOn(db, company, wall.date, now);
  return slots.some((slot) => slot.instant.getTime() === scheduledAt.getTime());
}

/** Books a slot for the payment flow inside its transaction; a slot someone else holds is a conflict. */
export async function bookSlot(
  trx: Kysely<DB> | Transaction<DB>,
  booking: { accountId: string; companyId: number; scheduledAt: Date; orderId: number | null },
): Promise<{ id: number }> {
  const booked = await insertBookingUnlessTaken(trx, booking);
  if (!booked) throw new AppError('conflict', 'This appointment slot has already been booked; choose another one');
  return booked;
}
