/**
 * Snapshots (§4.8): availability, rates and restrictions of one property
 * over a window, fetched in windows of at most 92 nights, each applied with
 * the watermark rule: the nights are current as of `data.sequence`, read by
 * the platform before it built the payload, so every event above it still
 * applies on top. Stamping them with anything read later (the latest
 * sequence after the download) would silently drop the events that happened
 * during the download.
 */
import { addDays } from './dates.ts';
import type { PartnerApi } from './api-client.ts';
import { applySnapshot } from './apply.ts';
import type { SnapshotEnvelope } from './api-types.ts';
import type { NightType, PartnerState, PropertyCopy } from './state.ts';

/** §4.8 / §8: a snapshot window spans at most 92 nights. */
export const SNAPSHOT_MAX_NIGHTS = 92;

export interface Window {
  from: string;
  to: string;
}

/** `from`..`to` (inclusive) cut into windows of at most `max` nights. */
export function snapshotWindows(from: string, to: string, max = SNAPSHOT_MAX_NIGHTS): Window[] {
  const out: Window[] = [];
  for (let start = from; start <= to; start = addDays(start, max)) {
    const end = addDays(start, max - 1);
    out.push({ from: start, to: end < to ? end : to });
  }
  return out;
}

/** The runs of nights in `from`..`to` the copy holds nothing for (new nights coming into the horizon). */
export function missingRanges(copy: PropertyCopy | undefined, type: NightType, from: string, to: string): Window[] {
  const out: Window[] = [];
  let start: string | null = null;
  for (let d = from; d <= to; d = addDays(d, 1)) {
    const missing = !copy?.nights[type][d];
    if (missing && start === null) start = d;
    if (!missing && start !== null) {
      out.push({ from: start, to: addDays(d, -1) });
      start = null;
    }
  }
  if (start !== null) out.push({ from: start, to });
  return out;
}

export interface SnapshotResult {
  /** The lowest stamp applied: events above it may still be missing and must be replayed. */
  lowestStamp: number | null;
  nights: number;
}

/**
 * Snapshots `types` of one property over the windows given. With
 * `ignoreWatermark` (a breakage) every night is stamped with the latest
 * sequence read after the whole download instead.
 */
export async function takeSnapshots(
  api: PartnerApi,
  state: PartnerState,
  propertyId: number,
  types: readonly NightType[],
  windows: readonly Window[],
  options: { ignoreWatermark: boolean },
): Promise<SnapshotResult> {
  const taken: { type: NightType; snapshot: SnapshotEnvelope }[] = [];
  let lowest: number | null = null;
  let nights = 0;
  for (const type of types) {
    for (const w of windows.flatMap((x) => snapshotWindows(x.from, x.to))) {
      const snapshot = await api.snapshot(type, propertyId, w.from, w.to);
      if (options.ignoreWatermark) {
        taken.push({ type, snapshot });
        continue;
      }
      // §4.8 watermark rule: the nights are current as of data.sequence.
      nights += applySnapshot(state, type, snapshot, snapshot.sequence).applied;
      lowest = lowest === null ? snapshot.sequence : Math.min(lowest, snapshot.sequence);
    }
  }
  if (options.ignoreWatermark && taken.length > 0) {
    // BROKEN on purpose: "the cursor set after the payload".
    const after = await api.latestSequence();
    for (const t of taken) nights += applySnapshot(state, t.type, t.snapshot, after).applied;
    lowest = after;
  }
  return { lowestStamp: lowest, nights };
}
