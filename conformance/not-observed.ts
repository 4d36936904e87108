/**
 * "Not observed": a check waited for an event it needs (the platform's record
 * of a delivery, the event a change recorded, a sync's events, an answer) and
 * its safety cap ran out before the event came. Like a Jepsen `:info`, that is
 * neither a pass nor a failure: the check is not applicable, naming what it
 * waited for and how long (issue 38: "a slow machine makes a test slower,
 * never red"). A wait ends on the event itself; its cap only bounds the run
 * and is far above what the slowest machine needs, so it runs out only when
 * the event is not coming, or not coming yet.
 */
import { NotApplicable } from './check.ts';

/** A wait whose cap ran out: the check is not applicable, naming what it waited for. */
export class NotObserved extends NotApplicable {
  constructor(readonly awaited: string, readonly waited: string, readonly why?: string) {
    super(`not observed: ${awaited}, after ${waited}${why ? ` (${why})` : ''}`);
  }
}

/**
 * The real-time cap of a wait for something a correct platform does at once
 * (record a change's event, record an attempt's outcome, answer a create):
 * two minutes, hundreds of times what it takes on a loaded two-core machine.
 */
export const OBSERVE_REAL_SECONDS = 120;

/** How a wait passes real time: injected by tests, so a cap can run out without waiting for it. */
export interface WaitClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const REAL_TIME: WaitClock = { now: () => Date.now(), sleep: (ms) => new Promise((ok) => setTimeout(ok, ms)) };

export interface ObserveOptions {
  /** The cap, in seconds of real time (default OBSERVE_REAL_SECONDS). */
  seconds?: number;
  /** Between looks (default 100 ms). */
  everyMs?: number;
  clock?: WaitClock;
}

/**
 * Looks until `look` yields a value (anything but `undefined`): at once, then
 * every `everyMs`, for at most `seconds` of real time. `undefined` when the
 * cap ran out: the caller says what was not observed, or judges nothing on it.
 */
export async function observed<T>(look: () => Promise<T | undefined>, o: ObserveOptions = {}): Promise<T | undefined> {
  const clock = o.clock ?? REAL_TIME;
  const end = clock.now() + (o.seconds ?? OBSERVE_REAL_SECONDS) * 1000;
  for (;;) {
    const seen = await look();
    if (seen !== undefined) return seen;
    if (clock.now() >= end) return undefined;
    await clock.sleep(o.everyMs ?? 100);
  }
}

/** `observed`, or `NotObserved` naming `awaited` (and `why` the check needed it) when the cap ran out. */
export async function awaitObserved<T>(awaited: string, look: () => Promise<T | undefined>, o: ObserveOptions & { why?: string } = {}): Promise<T> {
  const seen = await observed(look, o);
  if (seen === undefined) throw new NotObserved(awaited, `${o.seconds ?? OBSERVE_REAL_SECONDS} s of real time`, o.why);
  return seen;
}
