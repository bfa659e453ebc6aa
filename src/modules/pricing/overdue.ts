import { percentOf, percentOfProRata } from './rounding.ts';

export type FineType = 'fixed' | 'percentage';

export type OverdueInput = {
  totalCents: number;
  /** `YYYY-MM-DD`: the last day the charge can be paid without fine. */
  dueDate: string;
  /** `YYYY-MM-DD`: today in the company's time zone (see `todayInTimeZone`). */
  today: string;
  fineType: FineType | string;
  fineCents: number;
  /** Percent of the total, charged once when `fineType` is `percentage`. */
  fineTax: number;
  /** Fixed late interest, charged once when overdue. */
  lateInterestCents: number;
  /** Percent per month of 30 days, accrued pro rata per day late. */
  lateInterestTax: number;
};

export type OverdueCharges = { daysLate: number; fineCents: number; lateInterestCents: number; extraCents: number };

const NOTHING_DUE = { fineCents: 0, lateInterestCents: 0, extraCents: 0 };
const DAYS_PER_MONTH = 30;

/**
 * Fine and late interest of a charge paid `today`. Nothing on or before the due date. After it: the
 * fine once (fixed `fineCents`, or `fineTax`% of the total), plus late interest = total × tax/100/30
 * × days late (rounded once, half up) plus the fixed `lateInterestCents` once.
 */
export function overdueCharges(input: OverdueInput): OverdueCharges {
  const daysLate = Math.max(0, daysBetween(input.dueDate, input.today));
  if (daysLate === 0) return { daysLate, ...NOTHING_DUE };
  const fineCents = input.fineType === 'fixed' ? input.fineCents : percentOf(input.totalCents, input.fineTax);
  const lateInterestCents =
    percentOfProRata(input.totalCents, input.lateInterestTax, daysLate, DAYS_PER_MONTH) + input.lateInterestCents;
  return { daysLate, fineCents, lateInterestCents, extraCents: fineCents + lateInterestCents };
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Calendar days from `from` to `to` (both `YYYY-MM-DD`); negative when `to` is earlier. */
export function daysBetween(from: string, to: string): number {
  return (dateToUtcMs(to) - dateToUtcMs(from)) / 86_400_000;
}

function dateToUtcMs(date: string): number {
  const match = ISO_DATE.exec(date);
  const ms = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : Number.NaN;
  if (!Number.isFinite(ms) || new Date(ms).toISOString().slice(0, 10) !== date)
    throw new RangeError(`not a YYYY-MM-DD date: ${date}`);
  return ms;
}

export const DEFAULT_TIME_ZONE = 'America/Sao_Paulo';

/** The calendar date (`YYYY-MM-DD`) at `now` in an IANA time zone; an unknown zone falls back to São Paulo. */
export function todayInTimeZone(now: Date, timeZone: string): string {
  return dateFormatter(timeZone).format(now);
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function dateFormatter(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    try {
      // en-CA formats dates as YYYY-MM-DD.
      formatter = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    } catch {
      return dateFormatter(DEFAULT_TIME_ZONE);
    }
    formatters.set(timeZone, formatter);
  }
  return formatter;
}
