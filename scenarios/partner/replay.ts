/**
 * Replay (§4.6): walk GET /events from the cursor, following
 * `next_after_sequence` while `has_more`, through the same handler as webhook
 * deliveries (§6.4). Pages include superseded rows so that every retained
 * sequence shows up: then a first row above `cursor + 1` can only mean the
 * events in between left the 30-day retention (§6.7), and the caller switches
 * to snapshots or POST /sync (§6.8). Superseded rows are never applied (§3.3).
 */
import type { PartnerApi } from './api-client.ts';
import type { EventEnvelope } from './api-types.ts';

export type ReplayOutcome =
  | { kind: 'caught-up'; cursor: number; rows: number; superseded: number; pages: number }
  | { kind: 'gap'; after: number; firstRetained: number | null; latest: number };

export interface ReplayHandlers {
  /** The webhook handler (apply-if-newer, cursor); replayed events go through it too (§6.4). */
  ingest(event: EventEnvelope): Promise<void> | void;
  /** Called after each page with the page's `next_after_sequence`. */
  pageDone(cursor: number): Promise<void>;
  /** Only the `applySuperseded` breakage passes this: superseded events handed over after the page. */
  superseded?(events: EventEnvelope[]): Promise<void> | void;
  /** Only the `applySupersededInOrder` breakage sets this: superseded rows go through `ingest` like any other. */
  ingestSuperseded?: boolean;
}

export async function replayFrom(api: PartnerApi, after: number, handlers: ReplayHandlers): Promise<ReplayOutcome> {
  let cursor = after;
  let rows = 0;
  let superseded = 0;
  for (let pages = 1; ; pages++) {
    const page = await api.events(cursor);
    const first = page.rows[0]?.sequence ?? null;
    const expired = first === null ? page.cursor.latest_sequence > cursor && !page.cursor.has_more : first > cursor + 1;
    if (expired) return { kind: 'gap', after: cursor, firstRetained: first, latest: page.cursor.latest_sequence };
    const skipped: EventEnvelope[] = [];
    for (const row of page.rows) {
      if (row.status === 'superseded' && !handlers.ingestSuperseded) {
        // §3.3: a newer event fully covers it; it must not be applied.
        superseded += 1;
        skipped.push(row.event);
        continue;
      }
      await handlers.ingest(row.event);
      rows += 1;
    }
    if (handlers.superseded && skipped.length > 0) await handlers.superseded(skipped);
    cursor = Math.max(cursor, page.cursor.next_after_sequence);
    await handlers.pageDone(cursor);
    if (!page.cursor.has_more) return { kind: 'caught-up', cursor, rows, superseded, pages };
  }
}
