/** Slot times of a day from its open intervals: pure, no I/O. */

export type OpenInterval = { starts_at: string; ends_at: string; slot_minutes: number };

const minutesOf = (time: string) => {
  const [hour, minute] = time.split(':').map(Number) as [number, number];
  return hour * 60 + minute;
};

const timeOf = (minutes: number) =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/** Every `HH:MM` from each interval's start, one per `slot_minutes`, while the slot ends by the interval's end; sorted, without repeats. */
export function slotTimes(intervals: readonly OpenInterval[]): string[] {
  const starts = new Set<number>();
  for (const interval of intervals) {
    const end = minutesOf(interval.ends_at);
    for (
      let start = minutesOf(interval.starts_at);
      start + interval.slot_minutes <= end;
      start += interval.slot_minutes
    )
      starts.add(start);
  }
  return [...starts].sort((a, b) => a - b).map(timeOf);
}
