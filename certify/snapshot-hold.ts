/**
 * The snapshot-watermark drill's hold (§4.8): the answer of the partner's
 * first rates snapshot is held after the platform built it, and one night of
 * its window changes meanwhile. The change is an event above the snapshot's
 * `data.sequence` that the snapshot does not hold, and it exists before the
 * partner can read any "now" (latest_sequence) after the snapshot; so a
 * partner that sets its cursor to "now" instead of to the watermark never
 * replays it, and keeps the snapshot's value.
 */
import type { HeldSnapshot, Stage } from './stage.ts';
import type { SnapshotWatermarkDrill } from './grade.ts';

/** What the hold did: everything of the drill's evidence but the partner's answer to it. */
export type HeldChange = Omit<SnapshotWatermarkDrill, 'state'>;

export interface SnapshotHold {
  /** Resolves once a snapshot was held and its night changed; null once disarmed without that. */
  changed: Promise<HeldChange | null>;
  disarm(): void;
}

export interface HoldOptions {
  integrationId: number;
  /** The run integration's current key: only its calls are held. */
  apiKey: () => string;
  /** The planned night and rate; a window without the night gets its nearest night. */
  night: string;
  rate: number;
  log?: (line: string) => void;
}

interface RatesSnapshot {
  data?: {
    sequence?: number;
    property?: { doorloom_id?: number };
    window?: { from?: string; to?: string };
    data?: { dates?: Array<{ date?: string; base_rate?: unknown }> };
  };
}

/** The planned night if the window holds it, else the window's nearest night. */
export function nightIn(window: { from: string; to: string }, planned: string): string {
  return planned < window.from ? window.from : planned > window.to ? window.to : planned;
}

/** Arms the hold on the stage; null when the stage cannot hold an answer (a running simulator). */
export function armSnapshotHold(stage: Stage, o: HoldOptions): SnapshotHold | null {
  let settle: (c: HeldChange | null) => void = () => undefined;
  const changed = new Promise<HeldChange | null>((ok) => void (settle = ok));
  let done = false;
  const disarm = () => {
    stage.holdSnapshotAnswers(null);
    if (!done) settle(null);
    done = true;
  };
  const armed = stage.holdSnapshotAnswers(async (answer: HeldSnapshot) => {
    if (done || answer.kind !== 'rates' || answer.status !== 200 || answer.apiKey !== o.apiKey()) return;
    let snapshot: RatesSnapshot;
    try {
      snapshot = JSON.parse(answer.body) as RatesSnapshot;
    } catch {
      return;
    }
    const data = snapshot.data;
    const watermark = data?.sequence;
    const propertyId = data?.property?.doorloom_id;
    const from = data?.window?.from;
    const to = data?.window?.to;
    if (typeof watermark !== 'number' || typeof propertyId !== 'number' || typeof from !== 'string' || typeof to !== 'string') return;
    // Only the first: the others are answered as they are.
    done = true;
    stage.holdSnapshotAnswers(null);
    const night = nightIn({ from, to }, o.night);
    const before = data?.data?.dates?.find((d) => d.date === night)?.base_rate ?? null;
    const after = before === o.rate ? o.rate + 10 : o.rate;
    try {
      await stage.staff('PUT', `/properties/${propertyId}/rates`, { from: night, to: night, base_rate: after });
      const { webhook } = await stage.staff<{ webhook: { last_sequence: number } }>('GET', `/integrations/${o.integrationId}`);
      const snapshotN = (stage.journal(o.integrationId) ?? []).filter((e) => e.operation === 'getRatesSnapshot' && e.watermark === watermark).at(-1)?.n ?? -1;
      o.log?.(`  held the rates snapshot #${snapshotN} of property ${propertyId} (watermark ${watermark}) while base_rate of ${night} changed ${JSON.stringify(before)} → ${after} (sequence ${webhook.last_sequence})`);
      settle({ snapshotN, watermark, propertyId, window: { from, to }, night, before, after, changeSequence: webhook.last_sequence });
    } catch (e) {
      o.log?.(`  the snapshot-watermark change failed: ${(e as Error).message}`);
      settle(null);
    }
  });
  return armed ? { changed, disarm } : null;
}
