/**
 * How long a claimed create is held open, its key in progress (§4.5 rule 3), by the staff plane's
 * `create_latency_ms`. The setting is read again while holding: a create is decided once the latency as it
 * stands has passed since its claim, so lowering it (to 0) ends the holds already begun. A test or a run then
 * holds a create for as long as it needs and releases it, instead of racing a guessed time a slow machine overruns.
 */

/** How often a hold looks at the setting again: the most a lowered setting waits to be seen. */
const LOOK_EVERY_MS = 20;

export async function holdCreate(latencyMs: () => number, sleep: (ms: number) => Promise<void>, now: () => number = () => performance.now()): Promise<void> {
  const claimed = now();
  for (let left = latencyMs(); left > 0; left = latencyMs() - (now() - claimed)) await sleep(Math.min(left, LOOK_EVERY_MS));
}
