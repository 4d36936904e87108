/**
 * How certify tells a partner that does not catch up from one that is slow, by the partner's own calls and never by
 * certify's clock (issue 38): while delivery is withheld, GET /me answers `status: paused` (§2.1), and a partner that
 * reads it knows its webhook is down and must catch up by GET /events from its stored cursor (§6.8 ordinary outage;
 * §5.7 polls GET /me once a minute for this). Two such answers with no replay page between them (a page of GET
 * /events that walks, not a one-row peek at `latest_sequence`) are a partner that saw the pause, went round its own
 * loop, and still did not replay: however fast or slow its machine, that is what it did.
 */
import type { JournalEntry } from './types.ts';

/** A page of a replay walk: GET /events answered 200 with a cursor, not a one-row peek at where the log ends. */
export function isWalkPage(e: JournalEntry): boolean {
  const limit = e.query.limit;
  return e.operation === 'listEvents' && e.status === 200 && e.cursor !== undefined && (Array.isArray(limit) ? limit.join(',') : limit) !== '1';
}

/**
 * The first two GET /me calls answered 200 in `[from, to]` (platform ms, delivery withheld throughout) with no page of
 * a replay walk between them; null when the partner never read the pause twice without walking in between.
 */
export function pauseSeenWithoutReplay(journal: readonly JournalEntry[], from: number, to: number): [JournalEntry, JournalEntry] | null {
  let seen: JournalEntry | null = null;
  for (const e of journal) {
    if (e.at < from || e.at > to) continue;
    if (isWalkPage(e)) seen = null;
    else if (e.operation === 'getMe' && e.status === 200) {
      if (seen) return [seen, e];
      seen = e;
    }
  }
  return null;
}
