/**
 * What watch says of each simulator fault (issue 26): the simulator started
 * with the fault, the partner workload of watch's tests (watch/test-support.ts
 * `partnerWorkload`: a create, its retry, a duplicate, rate changes and their
 * deliveries, a replay walk, a snapshot, a poll, a lookup) through watch with
 * the webhook forwarded to a verifying receiver, and the findings watch
 * printed. A fault that this workload's traffic does not show gives none.
 *
 * With `--workload reference-partner`, the workload is the reference partner
 * (scenarios/partner/) running every live-capable scenario through watch
 * instead, each on a fresh simulator with the fault: webhook-outage (its own
 * outage and the catch-up by replay), drifted-property (cold start from
 * snapshots, a booking mid-download, its events by webhook) and
 * overbooking-race (two creates racing for the last unit). A fault's findings
 * are those of all three.
 *
 *   node --import tsx bench/watch-faults.ts [--workload tests|reference-partner] [--faults a,b] [--out FILE]   (a Markdown table)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { freePort } from '../conformance/served-simulator.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { FAULT_DESCRIPTIONS } from '../simulator/faults.ts';
import { FAULT_NAMES, type FaultName } from '../simulator/domain/faults.ts';
import { startSimulator } from '../simulator/start-simulator.ts';
import { startReceiver } from '../simulator/webhooks/receiver.ts';
import { liveWatch, partnerWorkload } from '../watch/test-support.ts';
import { findScenario } from '../scenarios/catalogue.ts';
import { runScenario } from '../scenarios/kit/scenario.ts';

const { values } = parseArgs({ options: { out: { type: 'string' }, workload: { type: 'string', default: 'tests' }, faults: { type: 'string' } } });
/** The reference partner's live-capable scenarios and the property each runs on (watch/reference-partner.test.ts). */
const LIVE_SCENARIOS = [['webhook-outage', '101'], ['drifted-property', '101'], ['overbooking-race', '102']] as const;
const chosen = values.faults ? values.faults.split(',').map((f) => f.trim()) : [...FAULT_NAMES];
const unknown = chosen.find((f) => !(FAULT_NAMES as readonly string[]).includes(f));
if (unknown) throw new Error(`unknown fault "${unknown}"`);
if (values.workload !== 'tests' && values.workload !== 'reference-partner') throw new Error(`--workload must be tests or reference-partner, got "${values.workload}"`);

const reports = mkdtempSync(join(tmpdir(), 'watch-faults-'));

/** The distinct `side clause Kind` of the findings watch printed. */
function findingsIn(out: string): string[] {
  return [...out.matchAll(/^finding (\w+) (\S+) (\w+):/gm)].map((m) => `${m[1]} ${m[2]} ${m[3]}`);
}

/** What watch said with the test workload. */
async function testWorkload(fault: FaultName): Promise<string[]> {
  const sim = await startSimulator({ faults: [fault] });
  const integration = sim.fixtures.integrations[0]!;
  const receiver = await startReceiver({ secrets: [integration.webhookSecret], slug: integration.slug });
  try {
    const run = await liveWatch(sim, receiver.url, ['--webhook-secret', integration.webhookSecret, '--report-dir', reports], (api) => partnerWorkload(sim, api, receiver, { waitSeconds: 3 }));
    return findingsIn(run.out);
  } finally {
    await receiver.close();
    await sim.stop();
  }
}

/** What watch said with the reference partner running one live scenario on a fresh simulator with the fault, and whether the scenario passed. */
async function scenarioWorkload(fault: FaultName, scenario: string, property: string): Promise<{ found: string[]; ok: boolean }> {
  const sim = await startSimulator({ faults: [fault] });
  const integration = sim.fixtures.integrations[0]!;
  let ok = false;
  try {
    const port = await freePort();
    const run = await liveWatch(sim, `http://127.0.0.1:${port}/webhook`, ['--webhook-secret', integration.webhookSecret, '--report-dir', reports], async (api, webhook) => {
      ok = (await runScenario(findScenario(scenario)!, { live: { baseUrl: api, apiKey: integration.apiKey, webhookSecret: integration.webhookSecret, webhookPublicUrl: webhook, listenPort: port, property, maxWaitMs: 2_000, deliverTimeoutMs: 8_000 }, reportDir: null })).ok;
    });
    return { found: findingsIn(run.out), ok };
  } finally {
    await sim.stop();
  }
}

/** Watch's findings; with the reference partner, also the scenarios the fault made fail (the partner saw it: did watch?). */
async function watchSays(fault: FaultName): Promise<{ found: string[]; failedScenarios: string[] }> {
  if (values.workload === 'tests') return { found: [...new Set(await testWorkload(fault))], failedScenarios: [] };
  const found: string[] = [];
  const failedScenarios: string[] = [];
  for (const [scenario, property] of LIVE_SCENARIOS) {
    const run = await scenarioWorkload(fault, scenario, property);
    found.push(...run.found);
    if (!run.ok) failedScenarios.push(scenario);
  }
  return { found: [...new Set(found)], failedScenarios };
}

const rows: string[] = ['| fault | what it breaks | what watch said |', '|---|---|---|'];
let shown = 0;
/** Faults that made a reference-partner scenario fail while watch said nothing: the partner saw a breach watch missed. */
const missed: string[] = [];
for (const fault of chosen as FaultName[]) {
  let said: string;
  try {
    const { found, failedScenarios } = await watchSays(fault);
    if (found.length > 0) shown += 1;
    else if (failedScenarios.length > 0) missed.push(`${fault} (${failedScenarios.join(', ')})`);
    said = found.length > 0 ? found.map((f) => `\`${f}\``).join(', ') : failedScenarios.length > 0 ? `nothing, **but the scenario failed**: ${failedScenarios.join(', ')}` : 'nothing: not in this workload\'s traffic';
  } catch (e) {
    said = `the run failed: ${(e as Error).message.split('\n')[0]}`;
  }
  rows.push(`| \`${fault}\` | ${FAULT_DESCRIPTIONS[fault].replace(/\|/g, '\\|')} | ${said} |`);
  process.stderr.write(`${fault}: ${said}\n`);
}
rows.push('', `${shown} of ${chosen.length} faults gave findings with the ${values.workload === 'tests' ? 'test workload' : `reference partner's live scenarios (${LIVE_SCENARIOS.map(([s]) => s).join(', ')})`}.`);
if (values.workload !== 'tests') rows.push('', missed.length === 0 ? 'No fault made a scenario fail without a finding.' : `${missed.length} fault(s) made a scenario fail while watch said nothing: ${missed.join('; ')}.`);
const text = `${rows.join('\n')}\n`;
if (values.out) writeFileSync(values.out, text);
else process.stdout.write(text);
rmSync(reports, { recursive: true, force: true });
process.exit(0);
