/**
 * The timeline of a scenario run, for people: who did what, when on the
 * platform's clock, which sequence it concerned and how it came out.
 */
export type Actor = 'scenario' | 'partner' | 'front desk' | 'webhook' | 'staff' | 'host' | 'clock' | 'check' | 'attacker';
export type Level = 'info' | 'ok' | 'fail' | 'note';

export interface TimelineEntry {
  /** Platform clock (ms) when the entry was recorded. */
  at: number;
  actor: Actor;
  /** The call or event. */
  action: string;
  /** The event sequence concerned (a delivery), or the sequences issued since the entry before (`→ #21–23`). */
  sequence: string;
  outcome: string;
  level: Level;
}

export class Timeline {
  readonly entries: TimelineEntry[] = [];
  private lastLatest: number | null = null;

  /** `now` reads the platform clock; `latest` peeks at the newest sequence when the world can (in-process). */
  constructor(private readonly now: () => number, private readonly latest: () => number | null = () => null) {}

  add(actor: Actor, action: string, outcome: string, options: { sequence?: string; level?: Level } = {}): TimelineEntry {
    let sequence = options.sequence ?? '';
    const latest = this.safeLatest();
    if (latest !== null) {
      if (sequence === '' && this.lastLatest !== null && latest > this.lastLatest) {
        sequence = latest === this.lastLatest + 1 ? `→ #${latest}` : `→ #${this.lastLatest + 1}–${latest}`;
      }
      this.lastLatest = latest;
    }
    const entry: TimelineEntry = { at: this.now(), actor, action, sequence, outcome, level: options.level ?? 'info' };
    this.entries.push(entry);
    return entry;
  }

  private safeLatest(): number | null {
    try {
      return this.latest();
    } catch {
      return null;
    }
  }
}
