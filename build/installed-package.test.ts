/**
 * The package installs and runs as a user gets it: `npm pack` (which builds
 * dist/), the tarball installed with `--omit=dev` into an empty project in a
 * temporary directory, then, all from that project and each to its real end:
 * every subcommand's --help, `sim` on a `--data` directory with a live
 * `conformance` run against it (the fixtures' key, every check, the three
 * reports), a `certify --duration 60` of the installed reference partner that
 * writes a signed certificate `certify --verify` accepts, the GitHub
 * Action's run step (action.yml) on the built dist/, `spec lint`, a
 * scenario, and the library example of docs/library.md. A file missing from
 * the tarball, a path that holds in a clone only (dist/package.json) or a
 * runtime import left in devDependencies fails here.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { identityOf } from '../certify/certifier-identity.ts';
import { freePort } from '../certify/test-support.ts';
import { packAndInstall, run } from './pack-and-install.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'installed-package-'));
let project: string;
let bin: string;
let installed: string;
const children: ChildProcess[] = [];

/** docs/library.md's example, exactly as shown: the ```js block that starts with `// example.mjs`. */
function libraryExample(): string {
  const page = readFileSync(join(ROOT, 'docs', 'library.md'), 'utf8');
  const blocks = [...page.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((b) => b.startsWith('// example.mjs'));
  if (blocks.length !== 1) throw new Error(`docs/library.md must show exactly one \`\`\`js block starting with "// example.mjs", found ${blocks.length}`);
  return blocks[0]!;
}

beforeAll(async () => {
  ({ project, bin, packageDir: installed } = await packAndInstall(work));
});

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

describe('the installed package (npm pack, npm install --omit=dev)', () => {
  it('holds built JavaScript, types and the bundled documents, and no sources or tests', () => {
    const files = readdirSync(installed, { recursive: true, encoding: 'utf8' });
    for (const f of ['dist/cli/partner-api.js', 'dist/conformance/config.schema.json', 'dist/library/index.js', 'dist/library/index.d.ts', 'dist/library/vitest.js', 'dist/spec/openapi.yaml', 'dist/spec/staff-openapi.yaml', 'dist/spec/control-openapi.yaml', 'dist/spec/clauses.yaml']) {
      expect(files, f).toContain(f);
    }
    expect(files.filter((f) => /\.test\.|(?<!\.d)\.ts$/.test(f))).toEqual([]);
  });

  it('installs no build or test tool: the runtime needs none', () => {
    for (const dev of ['typescript', 'tsx', 'vitest', 'esbuild', '@stoplight/spectral-cli', 'supertest']) expect(existsSync(join(project, 'node_modules', dev)), dev).toBe(false);
  });

  it.each(['sim', 'conformance', 'certify', 'scenario', 'receiver', 'watch', 'spec'])('partner-api %s --help exits 0 with the usage', async (command) => {
    const { code, out, err } = await run(bin, [command, '--help'], project);
    expect(err).toBe('');
    expect(out).toMatch(/^Usage:/);
    expect(code).toBe(0);
  });

  it('partner-api with an unknown flag exits 2 naming it', async () => {
    const { code, err } = await run(bin, ['sim', '--bogus'], project);
    expect(err).toMatch(/^error: .*--bogus/);
    expect(code).toBe(2);
  });

  it('partner-api conformance checks --config against the schema the package ships, and the report directory, before anything runs', async () => {
    writeFileSync(join(project, 'staging.yaml'), `# yaml-language-server: $schema=./node_modules/partner-api-conformance/dist/conformance/config.schema.json\ntarget: http://127.0.0.1:1/api/integrations/v1\napiKey: k\nallowWrite: true\n`);
    const typo = await run(bin, ['conformance', '--config', 'staging.yaml'], project);
    expect(typo.err.split('\n')[0]).toBe('error: --config staging.yaml: unknown key "allowWrite" (did you mean allowWrites?)');
    expect(typo.code).toBe(2);
    const proc = await run(bin, ['conformance', '--report-dir', '/proc/reports'], project);
    expect(proc.err.split('\n')[0]).toMatch(/^error: --report-dir \/proc\/reports: cannot create \/proc\/reports /);
    expect(proc.code).toBe(2);
    expect(JSON.parse(readFileSync(join(installed, 'dist', 'conformance', 'config.schema.json'), 'utf8')).properties.allowWrites.type).toBe('boolean');
  });

  it('partner-api spec lint finds and validates the bundled documents from any directory', async () => {
    const { code, out } = await run(bin, ['spec', 'lint'], project);
    expect(out.match(/^valid {4}.*node_modules\/partner-api-conformance\/dist\/spec\/.*\.yaml$/gm)).toHaveLength(3);
    expect(code).toBe(0);
  });

  it('partner-api sim --data DIR serves; conformance against it (live, the fixtures\' key, every check) writes the three reports and passes; so does the action\'s run step, with its outputs', async () => {
    const fixturesFile = join(work, 'fixtures.json');
    const sim = spawn(bin, ['sim', '--data', join(work, 'sim-data'), '--port', '0', '--fixtures-out', fixturesFile], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(sim);
    let out = '';
    sim.stdout!.setEncoding('utf8').on('data', (s: string) => (out += s));
    sim.stderr!.setEncoding('utf8').on('data', (s: string) => (out += s));
    const started = await new Promise<boolean>((done) => {
      const timer = setTimeout(() => done(false), 300_000); // a hang guard far above the need (issue 38)
      const look = () => {
        if (/base URL/.test(out) && existsSync(fixturesFile)) {
          clearTimeout(timer);
          done(true);
        }
      };
      sim.stdout!.on('data', look);
      sim.once('exit', () => {
        clearTimeout(timer);
        done(false);
      });
    });
    expect(started, `sim did not start:\n${out}`).toBe(true);
    // The data directory is the store: the simulator's journal and snapshot are there, not in memory.
    expect(readdirSync(join(work, 'sim-data'))).toEqual(expect.arrayContaining(['manifest.json', 'vault.key']));
    const fixtures = JSON.parse(readFileSync(fixturesFile, 'utf8')) as { baseUrl: string; integrations: { apiKey: string }[] };
    const reportDir = join(work, 'reports');
    const conformance = await run(bin, ['conformance', '--target', fixtures.baseUrl, '--api-key', fixtures.integrations[0]!.apiKey, '--runs', '5', '--report-dir', reportDir], project);
    expect(conformance.out, conformance.err).toMatch(/[1-9]\d* passed, 0 failed, 0 errored/);
    expect(conformance.code, conformance.out + conformance.err).toBe(0);
    // The three reports, in the run's own directory (the paths the run prints) and in latest/.
    const printed = /^reports: (\S+)\n\s+(\S+)\n\s+(\S+)$/m.exec(conformance.out)?.slice(1) ?? [];
    expect(printed.map((f) => f.split('/').pop()).sort()).toEqual(['index.html', 'junit.xml', 'report.json']);
    for (const file of printed) expect(existsSync(file), file).toBe(true);
    for (const file of ['report.json', 'junit.xml', 'index.html']) expect(existsSync(join(reportDir, 'latest', file)), file).toBe(true);
    const report = JSON.parse(readFileSync(join(reportDir, 'latest', 'report.json'), 'utf8')) as { summary: { applicable: number; total: number; verdict: string } };
    expect(report.summary.verdict).toBe('passed');
    expect(report.summary.applicable).toBeGreaterThan(0);
    expect(readFileSync(join(reportDir, 'latest', 'junit.xml'), 'utf8')).toMatch(new RegExp(`<testsuites[^>]* tests="${report.summary.total}"`));
    expect(readFileSync(join(reportDir, 'latest', 'index.html'), 'utf8')).toMatch(/^<!doctype html>/);

    // The GitHub Action's run step (action.yml), as GitHub runs it: bash, its env from the inputs, GITHUB_ACTION_PATH a
    // checkout holding the built dist/ (here the installed package's, the same files npm run build writes).
    const action = parseYaml(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as { inputs: Record<string, { default?: string }>; runs: { steps: { id?: string; env?: Record<string, string>; run: string }[] } };
    const step = action.runs.steps.find((s) => s.id === 'conformance')!;
    const inputs: Record<string, string> = { ...Object.fromEntries(Object.entries(action.inputs).map(([k, v]) => [k, v.default ?? ''])), target: fixtures.baseUrl, 'api-key': fixtures.integrations[0]!.apiKey, suite: 'auth, schema', 'require-applicable': '1', label: 'installed', 'report-dir': 'action-reports' };
    const env = Object.fromEntries(Object.entries(step.env!).map(([k, v]) => [k, v.replace(/^\$\{\{ inputs\.([\w-]+) \}\}$/, (_all, name: string) => inputs[name]!)]));
    const outputs = join(work, 'action-output');
    writeFileSync(outputs, '');
    // Not spawnSync: the simulator's output must keep draining while the step runs.
    const gate = await new Promise<{ status: number | null; stdout: string; stderr: string }>((done) => {
      execFile('bash', ['--noprofile', '--norc', '-e', '-o', 'pipefail', '-c', step.run], { cwd: project, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env, GITHUB_ACTION_PATH: installed, GITHUB_OUTPUT: outputs } }, (error, stdout, stderr) => done({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }));
    });
    expect(gate.status, gate.stdout + gate.stderr).toBe(0);
    expect(gate.stdout).toMatch(/verdict: PASSED/);
    expect(readFileSync(outputs, 'utf8')).toBe(['verdict=passed', 'exit-code=0', 'report-dir=action-reports/latest', 'html=action-reports/latest/index.html', 'junit=action-reports/latest/junit.xml', 'json=action-reports/latest/report.json', ''].join('\n'));
    expect(JSON.parse(readFileSync(join(project, 'action-reports', 'latest', 'report.json'), 'utf8')).target.label).toBe('installed');

    const stopped = new Promise<number | null>((done) => sim.once('exit', (code) => done(code)));
    sim.kill('SIGTERM');
    expect(await stopped).toBe(0);
  });

  it('partner-api certify of the installed reference partner writes a signed certificate that certify --verify accepts; its certifier digest is that of the installed .js', async () => {
    const keys = generateKeyPairSync('ed25519');
    const signKey = join(work, 'sign.pem');
    const publicKey = join(work, 'sign.pub.pem');
    writeFileSync(signKey, keys.privateKey.export({ type: 'pkcs8', format: 'pem' }));
    writeFileSync(publicKey, keys.publicKey.export({ type: 'spki', format: 'pem' }));
    // The simulator's port named too: with --port 0 the OS may hand certify's simulator the very port just found free
    // for the partner (seen: the partner then failed with EADDRINUSE and the run was not certified).
    const [port, statePort, simPort] = [await freePort(), await freePort(), await freePort()];
    // The reference partner as an installed user starts it: the package's built deployment glue, run by node.
    const partner = `exec "${process.execPath}" node_modules/partner-api-conformance/dist/certify/reference-partner-cli.js --credentials "$CERTIFY_CREDENTIALS" --port ${port} --state-port ${statePort} --state-dir partner-state --reconcile-seconds 5`;
    const certify = await run(bin, [
      'certify', '--webhook-url', `http://127.0.0.1:${port}/webhook`, '--state-url', `http://127.0.0.1:${statePort}/state`,
      '--port', String(simPort), '--duration', '1800', '--ready-timeout', '600', '--sign-key', signKey, '--report-dir', 'certify-reports',
      '--partner-name', 'Reference partner', '--partner-version', '1.0.0', '--partner-command', partner,
    ], project);
    expect(certify.err, certify.out).not.toMatch(/ENOENT|\n\s+at /);
    expect(certify.out).toMatch(/^verdict: certified/m);
    expect(certify.code, certify.out + certify.err).toBe(0);
    const certificatePath = join(project, 'certify-reports', 'certify', 'latest', 'certificate.json');
    const certificate = JSON.parse(readFileSync(certificatePath, 'utf8')) as { body: { verdict: string; certify: { version: string; sourceDigest: string } } };
    expect(certificate.body.certify).toEqual(identityOf(pathToFileURL(join(installed, 'dist', 'certify', 'cli.js'))));
    expect(certificate.body.certify.version).toBe((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version);
    const gaps = certificate.body.verdict === 'certified-with-gaps' ? ['--allow-gaps'] : [];
    const verify = await run(bin, ['certify', '--verify', certificatePath, '--public-key', publicKey, ...gaps], project);
    expect(verify.out, verify.err).toMatch(/^OK /);
    expect(verify.code).toBe(0);
  });

  it('partner-api scenario happy-path passes and writes its timeline under the working directory', async () => {
    const { code, out } = await run(bin, ['scenario', 'happy-path'], project);
    expect(out).toMatch(/^PASS +1 happy-path .* reports\/scenarios\/happy-path\.md$/m);
    expect(code).toBe(0);
    expect(existsSync(join(project, 'reports', 'scenarios', 'happy-path.html'))).toBe(true);
  });

  it('writes nothing inside the installed package: the YAML parse cache goes to the project\'s node_modules/.cache', () => {
    expect(readdirSync(join(project, 'node_modules', '.cache', 'partner-api-conformance')).some((f) => f.startsWith('openapi.yaml.'))).toBe(true);
    expect(existsSync(join(installed, 'dist', 'node_modules'))).toBe(false);
    expect(existsSync(join(installed, 'reports'))).toBe(false);
  });

  it('docs/library.md\'s library example runs from the project and passes', async () => {
    writeFileSync(join(project, 'example.mjs'), libraryExample());
    const { code, out, err } = await run(process.execPath, ['example.mjs'], project);
    expect(out + err).toMatch(/^passed: [1-9]\d* passed, 0 failed$/m);
    expect(code).toBe(0);
  });
});
