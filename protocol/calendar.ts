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

/**
 * The most nights any window may hold: the staff plane's 731 (staff document,
 * nights/rates/restrictions); every other window (92-night snapshots, 30-night
 * stays, horizons of at most 730 days) is shorter.
 */
export const MAX_WINDOW_NIGHTS = 731;

/** How many nights from `from` to `to`, both inclusive (0 when `to` is before `from`). */
export function nightCount(from: IsoDate, to: IsoDate): number {
  return Math.max(0, daysBetween(from, to) + 1);
}

/**
 * Every night from `from` to `to`, both inclusive. Counted, never walked by
 * comparing text: the day after 9999-12-31 formats as `+010000-01-01`, which
 * sorts before `9999-…`, so a loop "until d > to" never ends (issue 17). The
 * length is known before anything is allocated; callers refuse a window
 * longer than they allow first, and a longer one here is a programming error.
 */
export function nights(from: IsoDate, to: IsoDate): IsoDate[] {
  const count = nightCount(from, to);
  // Stryker disable next-line all: a defensive assertion no request reaches: every caller refuses a longer window first (§4.5 stays, §4.8 windows, §8)
  if (count > MAX_WINDOW_NIGHTS) throw new RangeError(`A window of ${count} nights; callers refuse more than ${MAX_WINDOW_NIGHTS}.`);
  const start = Date.parse(`${from}T00:00:00Z`);
  return Array.from({ length: count }, (_, i) => new Date(start + i * DAY_MS).toISOString().slice(0, 10));
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
