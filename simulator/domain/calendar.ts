/**
 * Calendar arithmetic in the platform time zone. The API document does not
 * name the zone of "yesterday" or "today"; spec/openapi.yaml assumes
 * Asia/Kolkata (UTC+05:30, no daylight saving), see info.x-assumption-time-zone.
 */
const OFFSET_MS = 330 * 60_000;
const OFFSET_TEXT = '+05:30';
const DAY_MS = 86_400_000;

/** A `YYYY-MM-DD` date, one night. */
export type IsoDate = string;

/** The platform's calendar date at an instant. */
export function dateAt(ms: number): IsoDate {
  return new Date(ms + OFFSET_MS).toISOString().slice(0, 10);
}

/**
 * An instant as ISO 8601 with the platform offset and milliseconds
 * (`2026-09-01T10:00:00.000+05:30`): `updated_at` orders GET /bookings
 * (§4.4), so two updates within a second must still compare in order.
 */
export function timestamp(ms: number): string {
  return new Date(ms + OFFSET_MS).toISOString().replace('Z', OFFSET_TEXT);
}

export function addDays(date: IsoDate, days: number): IsoDate {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** Whole days from `a` to `b` (positive when b is later). */
export function daysBetween(a: IsoDate, b: IsoDate): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / DAY_MS);
}

/** Every night from `from` to `to`, both inclusive. */
export function nights(from: IsoDate, to: IsoDate): IsoDate[] {
  const out: IsoDate[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) out.push(d);
  return out;
}

/** True for a real calendar date in `YYYY-MM-DD` form (2026-02-30 is not). */
export function isIsoDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const ms = Date.parse(`${value}T00:00:00Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === value;
}

/**
 * §4.4 `updated_since`: "any parseable date or timestamp". A bare date means
 * midnight of that date in the platform zone; anything else goes through the
 * ECMAScript date parser. Returns null when it does not parse.
 */
export function parseInstant(value: string): number | null {
  const trimmed = value.trim();
  if (isIsoDate(trimmed)) return Date.parse(`${trimmed}T00:00:00Z`) - OFFSET_MS;
  const ms = Date.parse(trimmed);
  return Number.isNaN(ms) ? null : ms;
}

/** The last day of the calendar month of `date`. */
export function endOfMonth(date: IsoDate): IsoDate {
  const [y, m] = date.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
}
