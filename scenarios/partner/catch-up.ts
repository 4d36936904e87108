/**
 * The catch-up decision of §6.8, as a pure function of what the partner
 * observed, so it reads like the document and is tested table by table:
 *
 * - ordinary outage: replay GET /events from the stored cursor;
 * - cursor older than retention (the first retained event is above
 *   cursor + 1), or cold start (no cursor): rebuild from snapshots or POST
 *   /sync, and poll bookings by `updated_since` (§6.9: snapshots and sync
 *   carry no bookings);
 * - a property newly covered: snapshots of that property;
 * - one drifted property: a snapshot of that property.
 */
export type Recovery = 'snapshots' | 'sync';

export interface CatchUpObservation {
  /** The stored replay cursor; null on a cold start. */
  cursor: number | null;
  /** The first retained sequence after the cursor (superseded rows included), null when none. */
  firstAfterCursor: number | null;
  latestSequence: number;
  /** Properties the partner holds a copy of. */
  knownProperties: number[];
  /** Properties the integration covers now, when the partner checked (the property list); null when not checked. */
  coveredProperties: number[] | null;
  /** Properties whose copy is known to be wrong. */
  driftedProperties: number[];
}

export type CatchUpStep =
  | { do: 'replay'; after: number; why: string }
  | { do: 'rebuild'; with: Recovery; why: string }
  | { do: 'poll-bookings'; since: 'stored' | 'beginning'; why: string }
  | { do: 'snapshot-properties'; properties: number[]; why: string }
  | { do: 'forget-properties'; properties: number[]; why: string };

/** True when events after the cursor were dropped by retention (§6.7). */
export function cursorBeyondRetention(o: Pick<CatchUpObservation, 'cursor' | 'firstAfterCursor' | 'latestSequence'>): boolean {
  if (o.cursor === null) return false;
  return o.firstAfterCursor === null ? o.latestSequence > o.cursor : o.firstAfterCursor > o.cursor + 1;
}

export function decideCatchUp(o: CatchUpObservation, recovery: Recovery): CatchUpStep[] {
  const steps: CatchUpStep[] = [];
  if (o.cursor === null) {
    steps.push({ do: 'rebuild', with: recovery, why: '§6.8 cold start: no cursor' });
    steps.push({ do: 'poll-bookings', since: 'beginning', why: '§6.9 bookings are not in snapshots or syncs' });
    return steps;
  }
  if (cursorBeyondRetention(o)) {
    steps.push({ do: 'rebuild', with: recovery, why: `§6.8 cursor ${o.cursor} is older than retention (first retained ${o.firstAfterCursor ?? 'none'})` });
    steps.push({ do: 'poll-bookings', since: 'stored', why: '§6.9 outage beyond retention: poll bookings by updated_since' });
  } else if (o.latestSequence > o.cursor) {
    steps.push({ do: 'replay', after: o.cursor, why: `§6.8 ordinary outage: replay from cursor ${o.cursor} to ${o.latestSequence}` });
  }
  if (o.coveredProperties) {
    const added = o.coveredProperties.filter((p) => !o.knownProperties.includes(p));
    const removed = o.knownProperties.filter((p) => !o.coveredProperties!.includes(p));
    if (added.length > 0) steps.push({ do: 'snapshot-properties', properties: added, why: '§6.8 new property' });
    if (removed.length > 0) steps.push({ do: 'forget-properties', properties: removed, why: 'no longer covered (§1)' });
  }
  const drifted = o.driftedProperties.filter((p) => o.knownProperties.includes(p));
  if (drifted.length > 0) steps.push({ do: 'snapshot-properties', properties: drifted, why: '§6.8 single drifted property: a snapshot' });
  return steps;
}
