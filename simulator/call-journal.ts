/**
 * The call journal: every partner API call, attributed to its integration
 * (a rotated-out key still names the integration it belonged to), with what
 * certification grades a partner's API usage on: the operation, the
 * Idempotency-Key and body fingerprint of creates, the answer's status and
 * code, Retry-After, and the cursor or watermark a response handed out.
 * In memory and bounded: it serves a certification run, not an audit.
 */
export interface JournalEntry {
  n: number;
  integration_id: number;
  /** Virtual time of the call (ms). */
  at: number;
  operation: string;
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  idempotency_key: string | null;
  body_fingerprint: string | null;
  status: number;
  code: string | null;
  /** Which key authenticated the call: the live one, one rotated out, or none that is known. */
  credential: 'current' | 'retired';
  retry_after: number | null;
  /** GET /events: the cursor handed out; snapshots: the watermark. */
  cursor?: { after_sequence: number; next_after_sequence: number; has_more: boolean; first: number | null; last: number | null };
  watermark?: number;
  /** GET /bookings: the highest updated_at on the page. */
  max_updated_at?: string | null;
}

export class CallJournal {
  private readonly entries: JournalEntry[] = [];
  private readonly listeners = new Set<(entry: JournalEntry) => void>();
  private counter = 0;

  constructor(private readonly limit = 100_000) {}

  record(entry: Omit<JournalEntry, 'n'>): void {
    this.counter += 1;
    const recorded = { ...entry, n: this.counter };
    this.entries.push(recorded);
    for (const listener of this.listeners) {
      try {
        listener(recorded);
      } catch {
        // A listener's failure is its own: the call is answered as it was decided.
      }
    }
    // Trim in batches: a splice per call would cost a shift of the whole array every time.
    if (this.entries.length > this.limit + this.limit / 10) this.entries.splice(0, this.entries.length - this.limit);
  }

  /**
   * Calls `listener` with each entry as it is recorded: the answer is decided,
   * not yet sent (certification's tests act at the instant of a partner's
   * call). Returns what removes it.
   */
  subscribe(listener: (entry: JournalEntry) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** An integration's calls, oldest first, optionally from a virtual instant on. */
  of(integrationId: number, since = -Infinity): JournalEntry[] {
    return this.entries.filter((e) => e.integration_id === integrationId && e.at >= since);
  }
}
