/**
 * A webhook port nothing listens on (issue 41, done-when: "certify against a
 * closed webhook port exits 2 within 15 s and writes no certificate"). A
 * receiver is graded on what it answers (§6.2: a 2xx acknowledges a
 * delivery); a port that refuses every connection has nothing to grade, and
 * waiting the whole `--ready-timeout` for it only delays the setup error.
 *
 * The early end applies only where nobody asked for a longer wait: no
 * `--ready-timeout` was given and no `--partner-command` is starting the
 * receiver (certify/run.ts decides). It ends on an event, the refusals,
 * never on how fast the machine is: a refusal is the operating system saying
 * nothing listens, at once, however loaded the machine. Anything else (an
 * answer of any status, a time-out, a reset, a name that does not resolve)
 * means something may be there, and the full ready wait applies from then on.
 */

/** How long a port may refuse every signed ping before the run ends as a setup problem. */
export const NOTHING_LISTENING_MS = 10_000;

/** True when a ping's failure (certify/fetch-failure.ts's words) is every address refusing the connection. */
export function refusedConnection(error: string | null | undefined): boolean {
  if (!error) return false;
  return error.split('; ').every((part) => part.startsWith('ECONNREFUSED'));
}

/** Watches the ready wait's pings for a port that refuses them all for `capMs` (null: never gives up early). */
export class NothingListening {
  private firstRefusal: number | null = null;
  private somethingThere = false;

  constructor(private readonly capMs: number | null) {}

  /** Notes one ping's outcome at `now` (ms on a monotonic clock). */
  note(outcome: { status: number | null; error?: string | null }, now: number): void {
    if (outcome.status !== null || !refusedConnection(outcome.error)) {
      this.somethingThere = true;
      return;
    }
    this.firstRefusal ??= now;
  }

  /** True once every ping for `capMs` was refused and nothing ever accepted one. */
  gaveUp(now: number): boolean {
    if (this.capMs === null || this.somethingThere || this.firstRefusal === null) return false;
    return now - this.firstRefusal >= this.capMs;
  }
}
