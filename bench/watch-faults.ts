/**
 * What watch says of each simulator fault (issue 26): the simulator started
 * with the fault, the partner workload of watch's tests (watch/test-support.ts
 * `partnerWorkload`: a create, its retry, a duplicate, rate changes and their
 * deliveries, a replay walk, a snapshot, a poll, a lookup) through watch with
 * the webhook forwarded to a verifying receiver, and the findings watch
 * printed. A fault that this workload's traffic does not show gives none.
 *
 * With `--workload reference-partner`, the workload is the reference partner
 * (scenarios/partner/) running the live scenario drifted-property through
 * watch instead (cold start from snapshots, a booking mid-download, its
 * events by webhook).
 *
 *   node --import tsx bench/watch-faults.ts [--workload tests|reference-partner] [--out FILE]   (a Markdown table; a few minutes on 2 cores)
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
import { createServer } from 'node:net';
import { findScenario } from '../scenarios/catalogue.ts';
import { runScenario } from '../scenarios/kit/scenario.ts';

const { values } = parseArgs({ options: { out: { type: 'string' }, workload: { type: 'string', default: 'tests' } } });
if (values.workload !== 'tests' && values.workload !== 'reference-partner') throw new Error(`--workload must be tests or reference-partner, got "${values.workload}"`);

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
const reports = mkdtempSync(join(tmpdir(), 'watch-faults-'));

/** The distinct `side clause Kind` of the findings watch printed. */
async function watchSays(fault: FaultName): Promise<string[]> {
  const sim = await startSimulator({ faults: [fault] });
  const integration = sim.fixtures.integrations[0]!;
  const receiver = await startReceiver({ secrets: [integration.webhookSecret], slug: integration.slug });
  try {
    let run;
    if (values.workload === 'tests') {
      run = await liveWatch(sim, receiver.url, ['--webhook-secret', integration.webhookSecret, '--report-dir', reports], (api) => partnerWorkload(sim, api, receiver, { waitSeconds: 3 }));
    } else {
      const port = await freePort();
      run = await liveWatch(sim, `http://127.0.0.1:${port}/webhook`, ['--webhook-secret', integration.webhookSecret, '--report-dir', reports], async (api, webhook) => {
        await runScenario(findScenario('drifted-property')!, { live: { baseUrl: api, apiKey: integration.apiKey, webhookSecret: integration.webhookSecret, webhookPublicUrl: webhook, listenPort: port, property: '101', maxWaitMs: 2_000, deliverTimeoutMs: 8_000 }, reportDir: null });
      });
    }
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
rows.push('', `${shown} of ${FAULT_NAMES.length} faults gave findings with the ${values.workload === 'tests' ? 'test workload' : "reference partner's drifted-property scenario"}.`);
const text = `${rows.join('\n')}\n`;
if (values.out) writeFileSync(values.out, text);
else process.stdout.write(text);
rmSync(reports, { recursive: true, force: true });
process.exit(0);
