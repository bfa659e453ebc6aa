/**
 * Boleto due-date factor ("fator de vencimento"): days since 1997-10-07 up to 9999 on 2025-02-21;
 * from 2025-02-22 FEBRABAN restarted it at 1000, counting one a day.
 */

const DAY_MS = 86_400_000;
const FIRST_CYCLE_BASE = isoDateToDayNumber('1997-10-07');
const SECOND_CYCLE_START = isoDateToDayNumber('2025-02-22');
const FIRST_FACTOR_OF_SECOND_CYCLE = 1000;
const LAST_FACTOR = 9999;
/** 2049-10-13, factor 9999 of the second cycle: the rule after it is not published yet. */
export const LAST_DATE_WITH_A_DUE_FACTOR = '2049-10-13';

/** Days since 1970-01-01 of a calendar date 'YYYY-MM-DD'; throws for anything else (e.g. 2025-02-30). */
export function isoDateToDayNumber(date: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  const milliseconds = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : Number.NaN;
  // A date string, not a Date, so a time zone can never move the due date by a day.
  if (Number.isNaN(milliseconds) || new Date(milliseconds).toISOString().slice(0, 10) !== date) {
    throw new RangeError(`expected a calendar date as YYYY-MM-DD, got ${JSON.stringify(date)}`);
  }
  return milliseconds / DAY_MS;
}

/** The factor for a due date 'YYYY-MM-DD' (1997-10-08 → 1, 2025-02-21 → 9999, 2025-02-22 → 1000, 2026-06-30 → 1493). */
export function boletoDueFactor(date: string): number {
  const day = isoDateToDayNumber(date);
  if (day <= FIRST_CYCLE_BASE) throw new RangeError(`due dates start on 1997-10-08 (factor 1), got ${date}`);
  if (day < SECOND_CYCLE_START) return day - FIRST_CYCLE_BASE;
  const factor = FIRST_FACTOR_OF_SECOND_CYCLE + (day - SECOND_CYCLE_START);
  if (factor > LAST_FACTOR) {
    throw new RangeError(
      `${date} is after ${LAST_DATE_WITH_A_DUE_FACTOR}, the last date of the 2025 factor cycle; the next reset is not published`,
    );
  }
  return factor;
}
