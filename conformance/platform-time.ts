/**
 * The platform's time as a live target shows it. Dates a check computes
 * ("yesterday" for the earliest check-in, §4.5; stays inside the snapshot
 * horizon, §4.8) are the platform's, not this machine's: a staging clock
 * moved by its staff, or a machine whose clock is off, must never turn into
 * a reported breach. Without a control plane that reports its clock, the
 * `Date` header every HTTP answer carries (RFC 9110 §6.6.1) is the
 * platform's clock; it has one-second precision, so an offset under
 * `TRUST_OWN_CLOCK_MS` is taken as none.
 */
const TRUST_OWN_CLOCK_MS = 60_000;

export class PlatformTime {
  private offsetMs = 0;

  /** Takes the platform's clock from an answer's `Date` header (ignored when absent or unreadable). */
  observe(dateHeader: string | null | undefined, receivedAt = Date.now()): void {
    if (!dateHeader) return;
    const at = Date.parse(dateHeader);
    if (Number.isNaN(at)) return;
    const offset = at - receivedAt;
    this.offsetMs = Math.abs(offset) < TRUST_OWN_CLOCK_MS ? 0 : offset;
  }

  /** The platform's time in ms since the epoch. */
  now(): number {
    return Date.now() + this.offsetMs;
  }
}
