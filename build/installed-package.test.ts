/**
 * The package installs and runs as a user gets it: `npm pack` (which builds
 * dist/), the tarball installed with `--omit=dev` into an empty project in a
 * temporary directory, then every subcommand's --help, `sim --memory --port
 * 0`, a read-only live `conformance` run against it with the fixtures' key,
 * `spec lint`, and the README's library example, all from that project. A
 * file missing from the tarball or a runtime import left in devDependencies
 * fails here.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'installed-package-'));
const project = join(work, 'project');
const bin = join(project, 'node_modules', '.bin', 'partner-api');
const installed = join(project, 'node_modules', 'partner-api-conformance');
const children: ChildProcess[] = [];

function run(command: string, args: string[], cwd: string, timeoutMs = 120_000): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((done) => {
    execFile(command, args, { cwd, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, out, err) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, out, err });
    });
  });
}

/** The README's example, exactly as shown: the ```js block that starts with `// example.mjs`. */
function readmeExample(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((b) => b.startsWith('// example.mjs'));
  if (blocks.length !== 1) throw new Error(`README.md must show exactly one \`\`\`js block starting with "// example.mjs", found ${blocks.length}`);
  return blocks[0]!;
}

beforeAll(async () => {
  const packed = await run('npm', ['pack', '--pack-destination', work, '--json', '--no-audit', '--no-fund'], ROOT, 240_000);
  if (packed.code !== 0) throw new Error(`npm pack failed (exit ${packed.code}):\n${packed.err}`);
  // --json: the prepack build may print first; the report is the last JSON array.
  const tarball = (JSON.parse(packed.out.slice(packed.out.lastIndexOf('\n[') + 1)) as { filename: string }[])[0]!.filename;
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'installs-partner-api', version: '1.0.0', private: true, type: 'module' }, null, 2));
  const install = await run('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline', join(work, tarball)], project, 240_000);
  if (install.code !== 0) throw new Error(`npm install of the tarball failed (exit ${install.code}):\n${install.err}`);
}, 300_000);

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

describe('the installed package (npm pack, npm install --omit=dev)', () => {
  it('holds built JavaScript, types and the bundled documents, and no sources or tests', () => {
    const files = readdirSync(installed, { recursive: true, encoding: 'utf8' });
    for (const f of ['dist/cli/partner-api.js', 'dist/library/index.js', 'dist/library/index.d.ts', 'dist/library/vitest.js', 'dist/spec/openapi.yaml', 'dist/spec/staff-openapi.yaml', 'dist/spec/control-openapi.yaml', 'dist/spec/clauses.yaml']) {
      expect(files, f).toContain(f);
    }
    expect(files.filter((f) => /\.test\.|(?<!\.d)\.ts$/.test(f))).toEqual([]);
  });

  it('installs no build or test tool: the runtime needs none', () => {
    for (const dev of ['typescript', 'tsx', 'vitest', 'esbuild', '@stoplight/spectral-cli', 'supertest']) expect(existsSync(join(project, 'node_modules', dev)), dev).toBe(false);
  });

  it.each(['sim', 'conformance', 'certify', 'scenario', 'receiver', 'spec'])('partner-api %s --help exits 0 with the usage', async (command) => {
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

  it('partner-api spec lint finds and validates the bundled documents from any directory', async () => {
    const { code, out } = await run(bin, ['spec', 'lint'], project);
    expect(out.match(/^valid {4}.*node_modules\/partner-api-conformance\/dist\/spec\/.*\.yaml$/gm)).toHaveLength(3);
    expect(code).toBe(0);
  });

  it('partner-api sim --memory --port 0 serves; conformance against it (read-only, the fixtures\' key) passes', async () => {
    const fixturesFile = join(work, 'fixtures.json');
    const sim = spawn(bin, ['sim', '--memory', '--port', '0', '--fixtures-out', fixturesFile], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(sim);
    let out = '';
    sim.stdout!.setEncoding('utf8').on('data', (s: string) => (out += s));
    sim.stderr!.setEncoding('utf8').on('data', (s: string) => (out += s));
    const started = await new Promise<boolean>((done) => {
      const timer = setTimeout(() => done(false), 30_000);
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
    const fixtures = JSON.parse(readFileSync(fixturesFile, 'utf8')) as { baseUrl: string; integrations: { apiKey: string }[] };
    const reportDir = join(work, 'reports');
    const conformance = await run(bin, ['conformance', '--target', fixtures.baseUrl, '--api-key', fixtures.integrations[0]!.apiKey, '--suite', 'auth', '--suite', 'schema', '--runs', '5', '--report-dir', reportDir], project);
    expect(conformance.out, conformance.err).toMatch(/[1-9]\d* passed, 0 failed, 0 errored/);
    expect(conformance.code, conformance.out + conformance.err).toBe(0);
    const report = JSON.parse(readFileSync(join(reportDir, 'latest', 'report.json'), 'utf8')) as { summary: { applicable: number; verdict: string } };
    expect(report.summary.verdict).toBe('passed');
    expect(report.summary.applicable).toBeGreaterThan(0);
    const stopped = new Promise<number | null>((done) => sim.once('exit', (code) => done(code)));
    sim.kill('SIGTERM');
    expect(await stopped).toBe(0);
  });

  it('the README\'s library example runs from the project and passes', async () => {
    writeFileSync(join(project, 'example.mjs'), readmeExample());
    const { code, out, err } = await run(process.execPath, ['example.mjs'], project);
    expect(out + err).toMatch(/^passed: [1-9]\d* passed, 0 failed$/m);
    expect(code).toBe(0);
  });
});
