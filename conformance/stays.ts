/**
 * Stays a check may book, found free through the availability snapshot
 * (§4.8), never assumed. A live target is a world that earlier runs (and real
 * guests) have booked into: a check that expects a 201 must ask for nights
 * that are free now, or it reports a 409 that is not a breach.
 *
 * Before a check that writes, the planner reads the availability of the
 * properties it may book on over two windows the run's seed picks: "far"
 * (about 400 to 720 days ahead: no near-term guest inventory, and inside the
 * 730-day snapshot horizon so it can be checked) and "horizon" (250 to 350
 * days ahead, inside a 365-day event horizon, for checks that need the
 * events a create emits). It then hands out stays synchronously, counting
 * down what it handed out, so the stays of one check never compete.
 */
import { addDays, dateAt } from '../protocol/calendar.ts';
import type { ApiClient } from './client.ts';

/** A night's free units over every primed property (the minimum: any of them may be booked). */
type Free = Map<string, number>;

export interface Stay {
  check_in: string;
  check_out: string;
}

/** Nights per snapshot call: the document's maximum window (§8). */
const WINDOW = 92;
/** How many of the named properties are read (a stay is free on all of them). */
const MAX_PROPERTIES = 3;

export class StayPlanner {
  private readonly free: Record<'far' | 'horizon', Free> = { far: new Map(), horizon: new Map() };
  /** Nights handed out in the far window (a night filled on purpose must not be one). */
  private readonly handedOut = new Set<string>();
  private primed = false;
  private readonly offsets: Record<'far' | 'horizon', number>;
  private starts: Record<'far' | 'horizon', string> | null = null;

  /** `now` is the platform's clock (it may have been moved through the control plane). */
  constructor(private readonly api: ApiClient, private readonly properties: number[], random: () => number, private readonly now: () => number = Date.now) {
    // Far windows end by day 400 + 228 + 92 = 720, inside the 730-day snapshot horizon (§4.8).
    this.offsets = { far: 400 + Math.floor(random() * 229), horizon: 250 + Math.floor(random() * 9) };
  }

  /** Reads the availability the stays are chosen from; a property that does not answer 200 is left out. */
  async prime(): Promise<void> {
    if (this.primed) return;
    this.primed = true;
    const today = dateAt(this.now());
    this.starts = { far: addDays(today, this.offsets.far), horizon: addDays(today, this.offsets.horizon) };
    const properties = this.properties.slice(0, MAX_PROPERTIES);
    for (const kind of ['far', 'horizon'] as const) {
      const from = this.starts[kind];
      let seen = 0;
      for (const property of properties) {
        const res = await this.api.get(`/properties/${property}/availability`, { query: { from, to: addDays(from, WINDOW - 1) } });
        const dates = res.status === 200 ? res.body?.data?.data?.dates : undefined;
        if (!Array.isArray(dates)) continue;
        const here = new Map<string, number>();
        for (const d of dates) {
          if (typeof d?.date === 'string' && Number.isInteger(d.available_units)) here.set(d.date, d.is_blocked === true ? 0 : Math.max(0, d.available_units));
        }
        const into = this.free[kind];
        for (let i = 0; i < WINDOW; i++) {
          const night = addDays(from, i);
          const n = here.get(night) ?? 0;
          into.set(night, seen === 0 ? n : Math.min(into.get(night) ?? 0, n));
        }
        seen += 1;
      }
    }
  }

  /** True once availability was read (a check that writes). */
  get ready(): boolean {
    return this.primed && (this.free.far.size > 0 || this.free.horizon.size > 0);
  }

  /**
   * The first `nights` consecutive nights with at least `units` free in the
   * window, counted as taken; null when none is left.
   */
  take(kind: 'far' | 'horizon', nights: number, units = 1): Stay | null {
    if (!this.starts) return null;
    const free = this.free[kind];
    const from = this.starts[kind];
    for (let i = 0; i + nights <= WINDOW; i++) {
      const run = Array.from({ length: nights }, (_, k) => addDays(from, i + k));
      if (run.every((n) => (free.get(n) ?? 0) >= units)) {
        for (const n of run) free.set(n, (free.get(n) ?? 0) - units);
        if (kind === 'far') for (const n of run) this.handedOut.add(n);
        return { check_in: run[0]!, check_out: addDays(run.at(-1)!, 1) };
      }
    }
    return null;
  }

  /**
   * A night on `property` with 1 to `maxUnits` units free, read now, and
   * how many: for a check that fills a night on purpose with one booking.
   * Far by default; `horizon` when the check must see the events of what it
   * does there (events reach only horizon_days ahead, §2.1).
   */
  async fillable(property: number, maxUnits: number, kind: 'far' | 'horizon' = 'far'): Promise<{ night: string; available: number } | null> {
    await this.prime();
    const from = this.starts![kind];
    const res = await this.api.get(`/properties/${property}/availability`, { query: { from, to: addDays(from, WINDOW - 1) } });
    const dates: any[] = res.status === 200 && Array.isArray(res.body?.data?.data?.dates) ? res.body.data.data.dates : [];
    for (const d of dates) {
      if (d.is_blocked !== true && d.available_units >= 1 && d.available_units <= maxUnits && !this.handedOut.has(d.date) && (kind === 'far' || (this.free.horizon.get(d.date) ?? 0) > 0)) {
        this.free[kind].set(d.date, 0);
        this.handedOut.add(d.date);
        return { night: d.date, available: d.available_units };
      }
    }
    return null;
  }
}
