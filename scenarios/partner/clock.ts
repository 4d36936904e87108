/**
 * Time for the partner. Every rule with a duration (signature tolerance,
 * GET /me at most once a minute, back-off) asks this clock, so tests and
 * scenarios can run the partner on the platform's virtual clock.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/** Real time, for a partner in production. */
export const systemClock: Clock = { now: () => Date.now() };

/** Real waiting, for a partner in production (scenarios inject a virtual one). */
export const realSleep = (ms: number): Promise<void> => new Promise((ok) => setTimeout(ok, ms));
