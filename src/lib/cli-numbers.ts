/**
 * A command-line count of seconds: decimal digits only, from 0 to `max`. Anything else (an empty value from an
 * unset shell variable, `0x10`, `1e13`, a sign) is undefined, so the caller refuses it instead of reading 0.
 */
export function wholeSecondsArgument(raw: string | undefined, max: number): number | undefined {
  if (raw === undefined || !/^[0-9]{1,12}$/.test(raw)) return undefined;
  const seconds = Number(raw);
  return seconds <= max ? seconds : undefined;
}
