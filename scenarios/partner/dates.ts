/**
 * Calendar helpers. The platform's calendar is Asia/Kolkata (+05:30, no
 * daylight saving; spec x-assumption-time-zone): "today" and the nights of a
 * window are dates in that zone, whatever zone the partner runs in.
 */
export const PLATFORM_OFFSET_MINUTES = 330;
const DAY_MS = 86_400_000;

/** The platform's calendar date (`YYYY-MM-DD`) at an instant. */
export function platformDate(ms: number, offsetMinutes = PLATFORM_OFFSET_MINUTES): string {
  return new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, 10);
}

export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** Every night from `from` to `to`, both inclusive. */
export function nightsBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) out.push(d);
  return out;
}

/** Whole days from `a` to `b`. */
export function daysBetween(a: string, b: string): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / DAY_MS);
}
