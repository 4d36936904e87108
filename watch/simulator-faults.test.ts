/**
 * Each simulator fault a partner's traffic shows, with the same workload
 * through watch, is a platform finding naming the clause the fault breaks
 * (simulator/faults.ts describes each). The full list and what watch said of
 * each fault is in docs/watch.md.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../simulator/start-simulator.ts';
import type { FaultName } from '../simulator/domain/faults.ts';
import { startReceiver, type Receiver } from '../simulator/webhooks/receiver.ts';
import { liveWatch, partnerWorkload } from './test-support.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const reports = mkdtempSync(join(tmpdir(), 'watch-faults-'));

const FAULTS: [FaultName, string][] = [
  ['cursor-off-by-one', '4.6.R4'],
  ['replay-not-byte-identical', '4.5.R1'],
  ['duplicate-creates-booking', '4.5.R4'],
  ['integration-header-missing', '6.R3'],
  ['signature-wrong-secret', '5.R4'],
  ['webhook-pair-swapped', '6.R2a'],
  ['watermark-after-payload', '4.8.R7'],
  ['pagination-inside-data', '4.R2'],
  ['envelope-without-errors', '4.R2'],
];

let sim: RunningSimulator | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  await sim?.stop();
});

describe('simulator faults through watch', () => {
  it.each(FAULTS)('%s is a platform finding naming %s', async (fault, clause) => {
    sim = await startSimulator({ faults: [fault] });
    const integration = sim.fixtures.integrations[0]!;
    receiver = await startReceiver({ secrets: [integration.webhookSecret], slug: integration.slug });
    const run = await liveWatch(sim, receiver.url, ['--webhook-secret', integration.webhookSecret, '--report-dir', reports], (api) => partnerWorkload(sim!, api, receiver!));
    expect(run.code, run.out).toBe(1);
    expect(run.out).toMatch(new RegExp(`^finding platform ${clause.replace(/\./g, '\\.')} `, 'm'));
    expect(run.out).not.toMatch(/^finding partner /m);
  });
});
