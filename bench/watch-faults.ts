/**
 * What watch says of each simulator fault (issue 26): the simulator started
 * with the fault, the partner workload of watch's tests (watch/test-support.ts
 * `partnerWorkload`: a create, its retry, a duplicate, rate changes and their
 * deliveries, a replay walk, a snapshot, a poll, a lookup) through watch with
 * the webhook forwarded to a verifying receiver, and the findings watch
 * printed. A fault that this workload's traffic does not show gives none.
 *
 *   node --import tsx bench/watch-faults.ts [--out FILE]   (a Markdown table; about 5 minutes on 2 cores)
 */
import { writeFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { FAULT_DESCRIPTIONS } from '../simulator/faults.ts';
import { FAULT_NAMES, type FaultName } from '../simulator/domain/faults.ts';
import { startSimulator } from '../simulator/start-simulator.ts';
import { startReceiver } from '../simulator/webhooks/receiver.ts';
import { liveWatch, partnerWorkload } from '../watch/test-support.ts';

const { values } = parseArgs({ options: { out: { type: 'string' } } });
const reports = mkdtempSync(join(tmpdir(), 'watch-faults-'));

/** The distinct `side clause Kind` of the findings watch printed. */
async function watchSays(fault: FaultName): Promise<string[]> {
  const sim = await startSimulator({ faults: [fault] });
  const integration = sim.fixtures.integrations[0]!;
  const receiver = await startReceiver({ secrets: [integration.webhookSecret], slug: integration.slug });
  try {
    const run = await liveWatch(sim, receiver.url, ['--webhook-secret', integration.webhookSecret, '--report-dir', reports], (api) => partnerWorkload(sim, api, receiver, { waitSeconds: 3 }));
    const found = [...run.out.matchAll(/^finding (\w+) (\S+) (\w+):/gm)].map((m) => `${m[1]} ${m[2]} ${m[3]}`);
    return [...new Set(found)];
  } finally {
    await receiver.close();
    await sim.stop();
  }
}

const rows: string[] = ['| fault | what it breaks | what watch said |', '|---|---|---|'];
let shown = 0;
for (const fault of FAULT_NAMES) {
  let said: string;
  try {
    const found = await watchSays(fault);
    if (found.length > 0) shown += 1;
    said = found.length > 0 ? found.map((f) => `\`${f}\``).join(', ') : 'nothing: not in this workload\'s traffic';
  } catch (e) {
    said = `the run failed: ${(e as Error).message.split('\n')[0]}`;
  }
  rows.push(`| \`${fault}\` | ${FAULT_DESCRIPTIONS[fault].replace(/\|/g, '\\|')} | ${said} |`);
  process.stderr.write(`${fault}: ${said}\n`);
}
rows.push('', `${shown} of ${FAULT_NAMES.length} faults gave findings with this workload.`);
const text = `${rows.join('\n')}\n`;
if (values.out) writeFileSync(values.out, text);
else process.stdout.write(text);
rmSync(reports, { recursive: true, force: true });
process.exit(0);
