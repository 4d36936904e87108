/**
 * The CI recipes of docs/ci/ run as written: every `run:` (GitHub) and
 * `script:`/`before_script:` (GitLab) command is executed in a fresh
 * directory against the simulator, with the variables each recipe reads set
 * to the simulator's credentials. The CI platform's own parts are emulated
 * (docs/ci-emulator.ts says which and how); other parties' `uses:` actions
 * are not run but checked (setup-node is a no-op, the JUnit publisher must
 * find valid JUnit, artifacts are copied between jobs as the platform does).
 * This repository's own action (action.yml) is run, step by step, from the
 * suite's checkout. Getting the suite (its repository checked out at the
 * tag of this version, packed, the tarball installed) is emulated: `npx
 * partner-api` is this clone's CLI (the test run's build of it), put where the install line
 * would put the command; cheaper than packing and installing, which
 * build/installed-package.test.ts proves on its own.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../conformance/served-simulator.ts';
import { startSimulator, type RunningSimulator } from '../simulator/start-simulator.ts';
import { holds, RecipeFailure, removeScratch, runGithubWorkflow, runGitlabPipeline, type JobRun, type Vars } from './ci-emulator.ts';

const RECIPES = new URL('./ci/', import.meta.url).pathname;
/** Every recipe of docs/ci/, each run by a test below. */
const RUN = ['github-release-gate.yml', 'github-partner-ci.yml', 'github-matrix.yml', 'gitlab-release-gate.gitlab-ci.yml', 'gitlab-partner-ci.gitlab-ci.yml', 'gitlab-matrix.gitlab-ci.yml'] as const;
const recipe = (name: (typeof RUN)[number]) => readFileSync(join(RECIPES, name), 'utf8');

/** Where a GitHub recipe checks the suite out from (a repository variable: owner/name), and a GitLab recipe clones it from. */
const SUITE_GITHUB = { PARTNER_API_SUITE_REPOSITORY: 'example-org/partner-api-conformance' };
const SUITE_GITLAB = { PARTNER_API_SUITE_REPOSITORY: 'https://gitlab.example/example-org/partner-api-conformance.git' };

/** Credentials the conformance runner reads from the environment by itself (its --help). */
const RUNNER_READS = ['PARTNER_API_KEY', 'PARTNER_WEBHOOK_SECRET', 'PARTNER_OTHER_API_KEY', 'PARTNER_DISABLED_API_KEY', 'PARTNER_NON_INTEGRATION_TOKEN', 'PARTNER_CONTROL_TOKEN'];

const running: RunningSimulator[] = [];
afterAll(async () => {
  await Promise.all(running.map((s) => s.stop()));
  removeScratch();
});

/** A deployment: the simulator in this process, described by the variables a platform team would set for it. */
async function deployment(o: { webhooks: boolean; control: boolean; platform: boolean }): Promise<Vars> {
  const port = o.webhooks ? await freePort() : undefined;
  const sim = await startSimulator(port !== undefined ? { webhookUrl: `http://127.0.0.1:${port}/webhook` } : {});
  running.push(sim);
  const [main, other, disabled] = sim.fixtures.integrations;
  return {
    PARTNER_API_TARGET: sim.baseUrl,
    PARTNER_PROPERTY_ID: String(main!.properties[0]!.doorloom_id),
    PARTNER_API_KEY: main!.apiKey,
    ...(o.platform ? {
      PARTNER_WEBHOOK_SECRET: main!.webhookSecret,
      PARTNER_OTHER_API_KEY: other!.apiKey,
      PARTNER_OTHER_PROPERTY_ID: String(other!.properties[0]!.doorloom_id),
      PARTNER_DISABLED_API_KEY: disabled!.apiKey,
      PARTNER_NON_INTEGRATION_TOKEN: sim.fixtures.staffToken,
    } : {}),
    ...(o.control ? { PARTNER_CONTROL_URL: sim.controlUrl, PARTNER_CONTROL_TOKEN: sim.fixtures.staffToken } : {}),
    ...(port !== undefined ? { PARTNER_WEBHOOK_PUBLIC_URL: `http://127.0.0.1:${port}/webhook`, PARTNER_WEBHOOK_LISTEN_PORT: String(port) } : {}),
  };
}

function report(run: JobRun, dir: string) {
  return JSON.parse(readFileSync(join(run.workdir, dir, 'latest', 'report.json'), 'utf8'));
}

/**
 * A partner's project as its checkout holds it: a test that uses the
 * variables the recipe exports (a key, a create, a read back by its own id).
 */
function partnerProject(dir: string): void {
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'partner-example', private: true, type: 'module', scripts: { test: 'node integration.test.mjs' } }, null, 2));
  writeFileSync(join(dir, 'integration.test.mjs'), `
import assert from 'node:assert/strict';
const base = process.env.PARTNER_API_BASE_URL;
const headers = { Authorization: 'Bearer ' + process.env.PARTNER_API_KEY, 'Content-Type': 'application/json' };
assert.match(process.env.PARTNER_WEBHOOK_SECRET, /^whsec_/);
assert.match(process.env.PARTNER_STAFF_TOKEN, /^stf_/);
const me = await fetch(base + '/me', { headers });
assert.equal(me.status, 200);
assert.equal((await me.json()).data.api_version, '2026-09');
const day = (n) => new Date(Date.now() + n * 86400000).toISOString().slice(0, 10);
const booking = { external_booking_id: 'ci-' + Date.now(), property: { doorloom_id: 101 }, units: [{ adults: 2 }], check_in: day(200), check_out: day(202), guest: { name: 'CI Guest', mobile: '9800000000' }, pricing: { total: 12000 } };
const created = await fetch(base + '/bookings', { method: 'POST', headers: { ...headers, 'Idempotency-Key': 'ci-key-' + booking.external_booking_id }, body: JSON.stringify(booking) });
assert.equal(created.status, 201, await created.clone().text());
const read = await fetch(base + '/bookings/external/' + booking.external_booking_id, { headers });
assert.equal((await read.json()).data.id, (await created.json()).data.id);
console.log('partner tests: 3 passed');
`);
}

describe('docs/ci recipes', () => {
  it.concurrent('github-release-gate.yml: the suite\'s action from its checkout, preflight and read-only run, then the whole catalogue with writes; its outputs; JUnit published, reports uploaded without rotated credentials', async () => {
    const staging = await deployment({ webhooks: true, control: true, platform: true });
    const uploads = new Map<string, string>();
    const [job] = await runGithubWorkflow(recipe('github-release-gate.yml'), { environments: { '*': SUITE_GITHUB, staging }, onArtifact: (n, d) => uploads.set(n, d) });
    // Every variable the recipe reads is one the test sets, and the other way round (a misspelt name shows here).
    expect([...job!.read].sort()).toEqual(Object.keys({ ...staging, ...SUITE_GITHUB }).sort());
    // The action ran from the suite's checkout, twice, and handed its verdict and report paths to the next step.
    expect(job!.output.match(/\(emulated\) npm ci --no-audit --no-fund && npm run build in the action's checkout/g)).toHaveLength(2);
    expect(job!.output).toContain('verdict on staging passed, report reports/writes/latest/index.html');
    const readOnly = report(job!, 'reports/read-only');
    expect(readOnly.options.allowWrites).toBe(false);
    expect(readOnly.summary.bookings_created).toBe(0);
    expect(readOnly.summary.verdict).toBe('passed');
    const writes = report(job!, 'reports/writes');
    expect(writes.target).toMatchObject({ kind: 'live', baseUrl: staging.PARTNER_API_TARGET, label: 'staging' });
    expect(writes.options).toMatchObject({ suites: [], checks: [], allowWrites: true });
    expect(writes.summary.verdict, job!.output.slice(-3000)).toBe('passed');
    // The whole catalogue ran; only the burst check (left out on purpose) and the https delivery (the receiver's URL is
    // plain http) are not applicable.
    const notApplicable = writes.results.filter((r: { outcome: string }) => r.outcome === 'not_applicable');
    // The reasons go with the assertion: the job's directory is removed once the test ends.
    expect(notApplicable.map((r: { id: string }) => r.id), JSON.stringify(notApplicable, null, 1).slice(0, 4000)).toEqual(['auth.rate-limited-headers', 'webhooks.https-delivery']);
    expect(job!.output).toMatch(/JUnit published: reports\/read-only\/latest\/junit.xml, reports\/writes\/latest\/junit.xml/);
    // The control plane rotated credentials; the file stays on the runner and out of the artifact.
    expect(existsSync(join(job!.workdir, 'reports/writes/rotated-credentials.json'))).toBe(true);
    const artifact = uploads.get('conformance-staging')!;
    expect(holds(artifact, 'writes/latest/index.html')).toBe(true);
    expect(holds(artifact, 'writes/rotated-credentials.json')).toBe(false);
  });

  it.concurrent('gitlab-release-gate.gitlab-ci.yml: the read-only stage, then the writes stage (no webhook URL: those checks are not applicable), JUnit reports and artifacts', async () => {
    const staging = await deployment({ webhooks: false, control: true, platform: true });
    const runs = await runGitlabPipeline(recipe('gitlab-release-gate.gitlab-ci.yml'), { environments: { '*': SUITE_GITLAB, staging } });
    expect(runs.map((r) => r.job)).toEqual(['conformance:read-only', 'conformance:writes']);
    // Each variable the test sets is named by a command, or is a credential the runner reads from the environment
    // itself (conformance/cli.ts) and the recipe's header documents.
    const named = new Set(runs.flatMap((r) => [...r.read]));
    const text = recipe('gitlab-release-gate.gitlab-ci.yml');
    for (const name of Object.keys(staging)) expect(named.has(name) || (RUNNER_READS.includes(name) && text.includes(name)), name).toBe(true);
    for (const name of [...named].filter((n) => n.startsWith('PARTNER_'))) expect(name in staging || name in SUITE_GITLAB || /^PARTNER_WEBHOOK_(PUBLIC_URL|LISTEN_PORT)$/.test(name), name).toBe(true);
    expect(report(runs[0]!, 'reports/read-only').summary.verdict).toBe('passed');
    const writes = report(runs[1]!, 'reports/writes');
    expect(writes.summary.verdict, runs[1]!.output.slice(-3000)).toBe('passed');
    const na = writes.results.filter((r: { outcome: string }) => r.outcome === 'not_applicable');
    // docs/ci.md's count of the checks applicable without the webhook variables is this run's, not a sum.
    const stated = /and (\d+) \((\d+)%\)\s+without them/.exec(readFileSync(new URL('./ci.md', import.meta.url), 'utf8').replace(/\s+/g, ' '));
    const applicable = writes.results.length - na.length;
    expect([Number(stated?.[1]), Number(stated?.[2])], `docs/ci.md: ${applicable} of ${writes.results.length} applicable without the webhook variables`).toEqual([applicable, Math.round((100 * applicable) / writes.results.length)]);
    expect(na.filter((r: { id: string }) => r.id !== 'auth.rate-limited-headers').every((r: { reason: string }) => r.reason.includes('--webhook-public-url'))).toBe(true);
    // The read-only stage's artifacts reached the writes job (needs:).
    expect(existsSync(join(runs[1]!.workdir, 'reports/read-only/latest/report.json'))).toBe(true);
  });

  it.concurrent.each([
    ['github-partner-ci.yml', runGithubWorkflow, SUITE_GITHUB],
    ['gitlab-partner-ci.gitlab-ci.yml', runGitlabPipeline, SUITE_GITLAB],
  ] as const)('%s: the suite\'s tarball built and installed, the simulator started for the job, the partner\'s tests against it', async (name, run, suite) => {
    // The documented port 4010 moved to 0 (a free one: other tests may hold 4010); the recipe reads the URL from fixtures.json.
    const runs = await run(recipe(name), { environments: { '*': { SIM_PORT: '0', ...suite } }, overrides: { SIM_PORT: '0' }, checkout: partnerProject });
    expect(runs).toHaveLength(1);
    expect(runs[0]!.output).toContain('partner tests: 3 passed');
    expect(runs[0]!.output).toContain('(emulated) npm install --no-save --no-audit --no-fund ./partner-api-conformance/partner-api-conformance-0.1.0.tgz');
    expect(readFileSync(join(runs[0]!.workdir, 'simulator.log'), 'utf8')).toContain('Partner API 2026-09 simulator');
  });

  it.concurrent('github-matrix.yml: a read-only run per deployment, merged into one report with a column per deployment', async () => {
    const environments = {
      '*': SUITE_GITHUB,
      'production-eu': await deployment({ webhooks: false, control: false, platform: false }),
      'production-us': await deployment({ webhooks: false, control: false, platform: false }),
    };
    const runs = await runGithubWorkflow(recipe('github-matrix.yml'), { environments });
    expect(runs.map((r) => `${r.job} ${Object.values(r.matrix).join()}`)).toEqual(['conformance production-eu', 'conformance production-us', 'merge ']);
    for (const r of runs.slice(0, 2)) expect([...r.read].sort()).toEqual(Object.keys({ ...environments['production-eu'], ...SUITE_GITHUB }).sort());
    const merged = report(runs[2]!, 'merged');
    expect(merged.kind).toBe('merged');
    expect(merged.deployments.map((d: { label: string }) => d.label)).toEqual(['production-eu', 'production-us']);
    expect(merged.summary.verdict).toBe('passed');
    expect(merged.coverage.find((c: { id: string }) => c.id === '5.R5b').deployments).toEqual({ 'production-eu': 'passed', 'production-us': 'passed' });
    expect(runs[2]!.output).toContain('JUnit published: merged/latest/junit.xml');
  });

  it.concurrent('gitlab-matrix.gitlab-ci.yml: a parallel job per deployment, their artifacts merged by the next stage', async () => {
    const environments = {
      '*': SUITE_GITLAB,
      'production-eu': await deployment({ webhooks: false, control: false, platform: false }),
      'production-us': await deployment({ webhooks: false, control: false, platform: false }),
    };
    const runs = await runGitlabPipeline(recipe('gitlab-matrix.gitlab-ci.yml'), { environments });
    expect(runs.map((r) => `${r.job} ${Object.values(r.matrix).join()}`)).toEqual(['conformance production-eu', 'conformance production-us', 'merge ']);
    const text = recipe('gitlab-matrix.gitlab-ci.yml');
    for (const name of Object.keys(environments['production-eu'])) expect(runs[0]!.read.has(name) || (RUNNER_READS.includes(name) && text.includes(name)), name).toBe(true);
    const merged = report(runs[2]!, 'merged');
    expect(merged.deployments.map((d: { label: string; target: { baseUrl: string } }) => [d.label, d.target.baseUrl])).toEqual([
      ['production-eu', environments['production-eu'].PARTNER_API_TARGET],
      ['production-us', environments['production-us'].PARTNER_API_TARGET],
    ]);
    expect(merged.summary.verdict).toBe('passed');
  });

  it('a wrong command fails the recipe: a misspelt flag exits 2 naming the nearest, and the run stops there', async () => {
    const eu = await deployment({ webhooks: false, control: false, platform: false });
    const broken = recipe('github-matrix.yml').replace('--label "$DEPLOYMENT" --report-dir reports', '--label "$DEPLOYMENT" --reprot-dir reports');
    const environments = { '*': SUITE_GITHUB, 'production-eu': eu, 'production-us': eu };
    await expect(runGithubWorkflow(broken, { environments })).rejects.toThrow(RecipeFailure);
    await expect(runGithubWorkflow(broken, { environments })).rejects.toThrow(/step 5 "Read-only run": exit 2[\s\S]*error: unknown option --reprot-dir \(did you mean --report-dir\?\)/);
  });

  it('a misspelt input of the action fails the recipe, naming it', async () => {
    const staging = await deployment({ webhooks: true, control: true, platform: true });
    const broken = recipe('github-release-gate.yml').replace('report-dir: reports/read-only', 'reprot-dir: reports/read-only');
    await expect(runGithubWorkflow(broken, { environments: { '*': SUITE_GITHUB, staging } })).rejects.toThrow(/"Preflight and read-only run": \.\/partner-api-conformance has no input reprot-dir/);
  });

  it('the recipes get the suite from a source that exists: no install from the npm registry, where the package is not published', async () => {
    for (const name of RUN) expect(recipe(name), name).not.toMatch(/partner-api-conformance@\d/);
    const registry = recipe('github-matrix.yml').replace(/npm install --no-save --no-audit --no-fund \S+/, 'npm install --no-save --no-audit --no-fund partner-api-conformance@0.1.0');
    await expect(runGithubWorkflow(registry, { environments: { '*': SUITE_GITHUB, 'production-eu': {}, 'production-us': {} } })).rejects.toThrow(/installs partner-api-conformance@0\.1\.0 from the registry, but partner-api-conformance is not published there/);
  });

  it('the action says what it decided whatever the outcome: an insufficient run (exit 1), an unwritable report directory (exit 2, verdict error), a switch that is not true or false', async () => {
    const staging = await deployment({ webhooks: false, control: false, platform: false });
    const gate = (withs: string) => `
jobs:
  gate:
    environment: staging
    steps:
      - uses: actions/checkout@v4
        with:
          repository: \${{ vars.PARTNER_API_SUITE_REPOSITORY }}
          ref: v0.1.0
          path: partner-api-conformance
      - id: run
        uses: ./partner-api-conformance
        continue-on-error: true
        with:
          target: \${{ vars.PARTNER_API_TARGET }}
          api-key: \${{ secrets.PARTNER_API_KEY }}
          suite: auth schema
${withs}
      - env:
          VERDICT: \${{ steps.run.outputs.verdict }}
          CODE: \${{ steps.run.outputs.exit-code }}
          JSON: \${{ steps.run.outputs.json }}
        run: echo "verdict=$VERDICT exit=$CODE json=$JSON"
`;
    const [insufficient] = await runGithubWorkflow(gate('          require-applicable: 80\n          report-dir: gate'), { environments: { '*': SUITE_GITHUB, staging } });
    expect(insufficient!.output).toContain('verdict=insufficient exit=1 json=gate/latest/report.json');
    expect(JSON.parse(readFileSync(join(insufficient!.workdir, 'gate/latest/report.json'), 'utf8')).summary.verdict).toBe('insufficient');
    const [unwritable] = await runGithubWorkflow(gate('          report-dir: /proc/reports'), { environments: { '*': SUITE_GITHUB, staging } });
    expect(unwritable!.output).toMatch(/error: --report-dir \/proc\/reports: cannot create \/proc\/reports/);
    expect(unwritable!.output).toContain('verdict=error exit=2');
    const [badSwitch] = await runGithubWorkflow(gate('          allow-writes: yes'), { environments: { '*': SUITE_GITHUB, staging } });
    expect(badSwitch!.output).toContain('error: input allow-writes must be true or false, got "yes"');
  });

  it('a misspelt variable fails the recipe: an unset target is refused, never read as the in-process simulator', async () => {
    const staging = await deployment({ webhooks: false, control: false, platform: false });
    const broken = recipe('gitlab-release-gate.gitlab-ci.yml').replace('--target "$PARTNER_API_TARGET" --property "$PARTNER_PROPERTY_ID" --label staging --report-dir reports/read-only', '--target "$PARTNER_API_TARGT" --property "$PARTNER_PROPERTY_ID" --label staging --report-dir reports/read-only');
    await expect(runGitlabPipeline(broken, { environments: { '*': SUITE_GITLAB, staging } })).rejects.toThrow(/conformance:read-only: exit 2[\s\S]*error: --target is empty/);
  });

  it('runs every recipe in docs/ci/', () => {
    expect(readdirSync(RECIPES).sort()).toEqual([...RUN].sort());
  });

  it('docs/ci.md shows only commands the recipes run (so the tests above run them)', () => {
    const page = readFileSync(new URL('./ci.md', import.meta.url), 'utf8');
    const blocks = [...page.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
    expect(blocks.length).toBeGreaterThan(0);
    const recipes = RUN.map(recipe).join('\n');
    for (const block of blocks) for (const line of block.split('\n')) expect(recipes, line).toContain(line.trim());
    // The install line the page gives is the recipes' one.
    expect(page).toContain(`\`${/npm install --no-save --no-audit --no-fund \S+/.exec(recipes)![0]}\``);
  });
});
