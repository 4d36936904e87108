/**
 * Convergence: the partner's state against fresh answers of the platform.
 * For every covered property: availability, rates and restrictions night by
 * night over the compared window (snapshots, ≤ 92 nights each), the property
 * record and inventory (the property list); then the booking list field for
 * field; then the partner's own reservations, each of which must be on the
 * platform or declined. Differences come out in a fixed order (property id,
 * type, date, field; then bookings by id; then reservations), so "the first
 * divergence" means the same thing on every run.
 */
import type { PartnerApi } from '../partner/api-client.ts';
import type { Booking, JsonObject } from '../partner/api-types.ts';
import { nightValues } from '../partner/apply.ts';
import { nightsBetween } from '../partner/dates.ts';
import { snapshotWindows, type Window } from '../partner/snapshots.ts';
import { NIGHT_TYPES, type PartnerState } from '../partner/state.ts';

export interface Difference {
  /** `SEA-VIEW (101) · rates · 2026-10-01 · base_rate`, `booking 5001 · status`, `reservation G-2`. */
  where: string;
  property?: number;
  type?: string;
  date?: string;
  field?: string;
  expected: unknown;
  actual: unknown;
}

export interface Divergence {
  differences: Difference[];
  /** How many differences there were (only the first 200 are kept). */
  total: number;
  compared: { window: Window; properties: number; nights: number; bookings: number; reservations: number };
}

const KEEP = 200;
export const MISSING = '(missing)';

/** The first leaf where `actual` differs from `expected`: its path and both values, or null when equal. */
export function firstDifference(expected: unknown, actual: unknown, path = ''): { path: string; expected: unknown; actual: unknown } | null {
  if (Object.is(expected, actual)) return null;
  const bothObjects = expected !== null && actual !== null && typeof expected === 'object' && typeof actual === 'object';
  if (!bothObjects || Array.isArray(expected) !== Array.isArray(actual)) return { path: path || '(value)', expected, actual };
  if (Array.isArray(expected) && Array.isArray(actual)) {
    for (let i = 0; i < Math.max(expected.length, actual.length); i++) {
      if (i >= expected.length) return { path: `${path}[${i}]`, expected: MISSING, actual: actual[i] };
      if (i >= actual.length) return { path: `${path}[${i}]`, expected: expected[i], actual: MISSING };
      const d = firstDifference(expected[i], actual[i], `${path}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  const e = expected as Record<string, unknown>;
  const a = actual as Record<string, unknown>;
  for (const key of [...Object.keys(e), ...Object.keys(a).filter((k) => !(k in e))]) {
    const sub = path ? `${path}.${key}` : key;
    if (!(key in a)) return { path: sub, expected: e[key], actual: MISSING };
    if (!(key in e)) return { path: sub, expected: MISSING, actual: a[key] };
    const d = firstDifference(e[key], a[key], sub);
    if (d) return d;
  }
  return null;
}

/** Compares the partner's state with the platform now, through the partner API only. */
export async function compareWithPlatform(api: PartnerApi, state: PartnerState, window: Window): Promise<Divergence> {
  const differences: Difference[] = [];
  let total = 0;
  const add = (d: Difference) => {
    total += 1;
    if (differences.length < KEEP) differences.push(d);
  };
  const list = (await api.properties()).sort((a, b) => a.doorloom_id - b.doorloom_id);
  const dates = nightsBetween(window.from, window.to);
  let nights = 0;
  for (const record of list) {
    const name = `${record.external_id} (${record.doorloom_id})`;
    const copy = state.properties[String(record.doorloom_id)];
    if (!copy) {
      add({ where: `${name}`, property: record.doorloom_id, field: '(property)', expected: 'covered: the partner should hold it', actual: MISSING });
      continue;
    }
    for (const [slot, expected] of [['record', record.property], ['inventory', record.inventory]] as const) {
      const d = firstDifference(expected, copy[slot]?.value ?? MISSING);
      if (d) add({ where: `${name} · ${slot} · ${d.path}`, property: record.doorloom_id, type: slot, field: d.path, expected: d.expected, actual: d.actual });
    }
    for (const type of NIGHT_TYPES) {
      const truth = new Map<string, JsonObject>();
      for (const w of snapshotWindows(window.from, window.to)) {
        const snap = await api.snapshot(type, record.doorloom_id, w.from, w.to);
        for (const [date, value] of nightValues(type, snap.data)) truth.set(date, value);
      }
      for (const date of dates) {
        nights += 1;
        const held = copy.nights[type][date]?.value;
        const expected = truth.get(date);
        if (held === undefined) {
          add({ where: `${name} · ${type} · ${date}`, property: record.doorloom_id, type, date, field: '(night)', expected, actual: MISSING });
          continue;
        }
        const d = firstDifference(expected, held);
        if (d) add({ where: `${name} · ${type} · ${date} · ${d.path}`, property: record.doorloom_id, type, date, field: d.path, expected: d.expected, actual: d.actual });
      }
    }
  }
  for (const id of Object.keys(state.properties).map(Number).sort((a, b) => a - b)) {
    if (!list.some((r) => r.doorloom_id === id)) add({ where: `property ${id}`, property: id, field: '(property)', expected: 'not covered', actual: 'held by the partner' });
  }

  const bookings = (await api.bookings(null)).sort((a, b) => a.id - b.id);
  for (const b of bookings) {
    const held = state.bookings[String(b.id)]?.booking;
    if (!held) {
      add({ where: `booking ${b.id} (${b.external_booking_id})`, field: '(booking)', expected: `revision ${b.revision}, ${String(b.status)}`, actual: MISSING });
      continue;
    }
    const d = firstDifference(b, held);
    if (d) add({ where: `booking ${b.id} (${b.external_booking_id}) · ${d.path}`, field: d.path, expected: d.expected, actual: d.actual });
  }
  for (const id of Object.keys(state.bookings).map(Number).sort((a, b) => a - b)) {
    if (!bookings.some((b) => b.id === id)) add({ where: `booking ${id}`, field: '(booking)', expected: MISSING, actual: 'held by the partner' });
  }

  const byExternal = new Map<string, Booking>(bookings.map((b) => [b.external_booking_id, b]));
  const reservations = Object.values(state.reservations).sort((a, b) => a.external_booking_id.localeCompare(b.external_booking_id));
  for (const r of reservations) {
    const onPlatform = byExternal.get(r.external_booking_id);
    const answer = r.answer ? `${r.answer.status}${r.answer.code ? ` ${r.answer.code}` : ''}` : 'no answer';
    if (r.status === 'placed' && onPlatform?.id !== r.booking_id) {
      add({ where: `reservation ${r.external_booking_id}`, field: 'status', expected: onPlatform ? `booking ${onPlatform.id}` : 'no booking on the platform', actual: `placed as booking ${r.booking_id}` });
    } else if (r.status === 'declined' && onPlatform) {
      add({ where: `reservation ${r.external_booking_id}`, field: 'status', expected: `placed (booking ${onPlatform.id} exists)`, actual: 'declined' });
    } else if (r.status === 'sending' || r.status === 'failed') {
      add({
        where: `reservation ${r.external_booking_id}`, field: 'status',
        expected: onPlatform ? `placed (booking ${onPlatform.id})` : 'placed, or declined with 409 UNAVAILABLE',
        actual: `${r.status} (last answer: ${answer}); the guest holds a reservation ${onPlatform ? 'the partner does not know is placed' : 'the platform does not have'}`,
      });
    }
  }
  return { differences, total, compared: { window, properties: list.length, nights, bookings: bookings.length, reservations: reservations.length } };
}

/** One line for a difference: where, expected, actual. */
export function describeDifference(d: Difference): string {
  return `${d.where}: expected ${show(d.expected)}, actual ${show(d.actual)}`;
}

export function show(v: unknown): string {
  if (v === MISSING) return MISSING;
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  return text === undefined ? String(v) : text.length > 160 ? `${text.slice(0, 157)}...` : text;
}
