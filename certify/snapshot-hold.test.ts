/**
 * The snapshot-watermark hold on a stage double: only the run integration's
 * first rates snapshot is held; the night changed lies in its window (the
 * planned one, else the nearest), to a rate other than the snapshot's; the
 * drill learns the watermark, the journal entry and the change's sequence.
 */
import { describe, expect, it } from 'vitest';
import { armSnapshotHold, nightIn } from './snapshot-hold.ts';
import type { HeldSnapshot, Stage } from './stage.ts';
import type { JournalEntry } from './types.ts';

function stageDouble() {
  let hook: ((a: HeldSnapshot) => Promise<void>) | null = null;
  const staffCalls: Array<[string, string, unknown]> = [];
  let lastSequence = 3;
  const journal: Partial<JournalEntry>[] = [{ n: 7, operation: 'getRatesSnapshot', watermark: 3 }];
  const stage = {
    holdSnapshotAnswers(h: typeof hook) {
      hook = h;
      return true;
    },
    async staff(method: string, path: string, body?: unknown) {
      staffCalls.push([method, path, body]);
      if (method === 'PUT') lastSequence += 1;
      return { webhook: { last_sequence: lastSequence } };
    },
    journal: () => journal,
  } as unknown as Stage;
  return { stage, staffCalls, hook: () => hook };
}

const rates = (sequence: number, from: string, to: string, rate = 6000) => JSON.stringify({
  success: true, message: 'ok',
  data: { sequence, property: { doorloom_id: 101, external_id: 'SEA' }, window: { from, to }, data: { dates: [{ date: '2027-01-06', base_rate: rate }, { date: from, base_rate: rate }] } },
});

describe('snapshot-watermark hold', () => {
  it('holds the first rates snapshot of the run\'s key, changes a night of its window, and leaves the rest alone', async () => {
    const d = stageDouble();
    const hold = armSnapshotHold(d.stage, { integrationId: 4, apiKey: () => 'key-1', night: '2027-01-06', rate: 6000 })!;
    await d.hook()!({ kind: 'availability', apiKey: 'key-1', status: 200, body: rates(3, '2026-11-26', '2027-02-25') });
    await d.hook()!({ kind: 'rates', apiKey: 'someone-else', status: 200, body: rates(3, '2026-11-26', '2027-02-25') });
    await d.hook()!({ kind: 'rates', apiKey: 'key-1', status: 422, body: '{}' });
    expect(d.staffCalls).toEqual([]);
    await d.hook()!({ kind: 'rates', apiKey: 'key-1', status: 200, body: rates(3, '2026-11-26', '2027-02-25') });
    // The planned rate is the snapshot's own: another one, or nothing would tell the two apart.
    expect(d.staffCalls[0]).toEqual(['PUT', '/properties/101/rates', { from: '2027-01-06', to: '2027-01-06', base_rate: 6010 }]);
    expect(await hold.changed).toEqual({ snapshotN: 7, watermark: 3, propertyId: 101, window: { from: '2026-11-26', to: '2027-02-25' }, night: '2027-01-06', before: 6000, after: 6010, changeSequence: 4 });
    // Only the first is held: the hook is gone.
    expect(d.hook()).toBeNull();
  });

  it('a window without the planned night gets its nearest night', () => {
    expect(nightIn({ from: '2027-02-01', to: '2027-03-01' }, '2027-01-06')).toBe('2027-02-01');
    expect(nightIn({ from: '2026-11-26', to: '2026-12-10' }, '2027-01-06')).toBe('2026-12-10');
    expect(nightIn({ from: '2026-11-26', to: '2027-02-25' }, '2027-01-06')).toBe('2027-01-06');
  });

  it('disarmed before any snapshot: nothing changed, the drill hears null', async () => {
    const d = stageDouble();
    const hold = armSnapshotHold(d.stage, { integrationId: 4, apiKey: () => 'key-1', night: '2027-01-06', rate: 5000 })!;
    hold.disarm();
    expect(await hold.changed).toBeNull();
    expect(d.hook()).toBeNull();
  });
});
