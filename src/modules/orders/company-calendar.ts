// Building an Intl.DateTimeFormat costs about a millisecond; one per time zone is kept.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The calendar date (YYYY-MM-DD) that `instant` falls on in `timeZone`. */
export function dateIn(timeZone: string, instant: Date): string {
  const parts = formatterFor(timeZone).formatToParts(instant);
  const part = (type: string) => parts.find((p) => p.type === type)!.value;
  return `${part('year')}-${part('month')}-${part('day')}`;
}

/** The calendar date `days` after the day `instant` falls on in `timeZone`: calendar days, whatever a DST change does to the hours. */
export function dateInDaysAfter(timeZone: string, instant: Date, days: number): string {
  const today = Date.parse(`${dateIn(timeZone, instant)}T00:00:00Z`);
  return new Date(today + days * 86_400_000).toISOString().slice(0, 10);
}
