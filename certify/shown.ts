/**
 * What the partner had been shown, and when: a regression is a value older
 * than one the partner had *already been shown* for that night, never merely
 * a value equal to an older event's. A partner that reads `GET /events` while
 * a drill is still recording its events (after a restart, on a periodic
 * replay, on a `GET /me` poll that finds delivery paused) rightly applies an
 * event that is superseded only afterwards (§3.3: supersession happens when
 * the newer event is recorded).
 *
 * Shown means, from the platform's own records: delivered by the platform
 * and answered 2xx (the delivery log), returned on a replay page the partner
 * fetched (the call journal; a page of one is a peek at `latest_sequence`,
 * not a replay), or inside a rates snapshot it took (§4.8: every event at or
 * below the watermark). A replay page shows the newer event only once the
 * partner moved on from it: one it read again from below the event (a restart
 * from its stored cursor, §6.8) was not taken in. Pure: observations in, a
 * judgement out.
 */
import type { DeliveryEvidence, JournalEntry, StateCheck } from './types.ts';

export interface ShownRecords {
  /** The call journal; null when it cannot be read (a running simulator). */
  journal: JournalEntry[] | null;
  platformDeliveries: DeliveryEvidence[];
}

/** The moment of a read of the partner's copy, as a run records it on a StateCheck. */
export interface ReadMoment {
  /** Platform ms of the read. */
  at: number;
  /** The newest journal entry answered before the read (0: none). */
  afterCall: number;
}

function query(e: JournalEntry, name: string): string | undefined {
  const v = e.query[name];
  return Array.isArray(v) ? v.join(',') : v;
}

/** The newest sequence when a replay page was built (the journal keeps the cursor as answered). */
function latestOf(e: JournalEntry): number | null {
  const latest = (e.cursor as { latest_sequence?: unknown } | undefined)?.latest_sequence;
  return typeof latest === 'number' ? latest : null;
}

/**
 * A replay page answered before the read that returned `sequence` (live, or
 * as a superseded row). With `kept`, only a page the partner moved on from:
 * one whose next GET /events (whenever it came) starts below `sequence` was
 * not stored as processed (a partner killed after reading it and before
 * storing its cursor, or one whose processing failed, reads it again from
 * its stored cursor, §6.8), so it does not count as taken in until read again.
 */
function pagesCovering(r: ShownRecords, sequence: number, read: ReadMoment, kept = false): JournalEntry[] {
  const journal = r.journal ?? [];
  const taken = (page: JournalEntry) => {
    const next = journal.find((e) => e.n > page.n && e.operation === 'listEvents' && e.status === 200 && e.cursor);
    return next === undefined || next.cursor!.after_sequence >= sequence;
  };
  return journal.filter((e) => e.n <= read.afterCall && e.operation === 'listEvents' && e.status === 200 && e.cursor
    && query(e, 'limit') !== '1' && sequence > e.cursor.after_sequence && sequence <= e.cursor.next_after_sequence && (!kept || taken(e)));
}

/** A rates snapshot of the night's property answered before the read whose watermark includes `sequence` for `date`. */
function snapshotsHolding(r: ShownRecords, check: Pick<StateCheck, 'property_id' | 'date'>, sequence: number, read: ReadMoment): JournalEntry[] {
  return (r.journal ?? []).filter((e) => e.n <= read.afterCall && e.operation === 'getRatesSnapshot' && e.status === 200 && typeof e.watermark === 'number'
    && e.watermark >= sequence && e.path.includes(`/properties/${check.property_id}/`)
    && (query(e, 'from') ?? '') <= check.date && check.date <= (query(e, 'to') ?? '\uffff'));
}

/** Delivered by the platform and answered 2xx before the read. */
function acknowledgedBefore(r: ShownRecords, sequence: number, read: ReadMoment): boolean {
  return r.platformDeliveries.some((d) => d.sequence === sequence && d.status !== null && d.status >= 200 && d.status < 300
    && Date.parse(d.at) + (d.ms ?? 0) <= read.at);
}

/**
 * Event `sequence` had reached the partner as a value to apply before the
 * read: delivered with its 2xx, on a replay page built before `newer` was
 * recorded (so not yet superseded), or inside a snapshot. With `kept`, a page
 * counts only once the partner moved on from it (see pagesCovering): what it
 * is held to having taken in.
 */
export function shownLive(r: ShownRecords, check: Pick<StateCheck, 'property_id' | 'date'>, sequence: number, read: ReadMoment, newer: number | null = null, kept = false): boolean {
  if (acknowledgedBefore(r, sequence, read)) return true;
  const live = (e: JournalEntry) => newer === null || (latestOf(e) !== null && latestOf(e)! < newer);
  if (pagesCovering(r, sequence, read, kept).some(live)) return true;
  return snapshotsHolding(r, check, sequence, read).some((e) => newer === null || e.watermark! < newer);
}

/**
 * The verdict on one reading of the partner's copy that equals the older
 * value: a regression only when the partner had already been shown the newer
 * event before the read, or had never been shown the older one as a value to
 * apply (it then came from a superseded row, which must not be applied, §3.3).
 * A reading without the moment it was taken (a bundle written before this
 * rule) is judged by value alone.
 */
export function regressed(r: ShownRecords, check: StateCheck): { regressed: boolean; why: string } {
  if (check.error !== undefined || check.held === undefined || check.held !== check.older || check.held === check.expected) return { regressed: false, why: '' };
  if (check.at === undefined || check.afterCall === undefined || check.sequence === undefined) return { regressed: true, why: 'it holds the superseded value' };
  const read: ReadMoment = { at: check.at, afterCall: check.afterCall };
  // A page with the newer event that the partner did not move on from (killed before it stored its cursor: its next GET
  // /events starts below the event) holds it to nothing; a delivery answered 2xx does (§6.2: acknowledged means stored).
  if (shownLive(r, check, check.sequence, read, null, true)) {
    return { regressed: true, why: `it had already been shown the newer event ${check.sequence} (${JSON.stringify(check.expected)})` };
  }
  if (check.olderSequence !== undefined && r.journal !== null && !shownLive(r, check, check.olderSequence, read, check.sequence)) {
    return { regressed: true, why: `event ${check.olderSequence} (${JSON.stringify(check.older)}) was never given to it as a value to apply, only as a superseded row (§3.3)` };
  }
  return { regressed: false, why: '' };
}
