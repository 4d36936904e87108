/**
 * The package installs and runs as a user gets it: `npm pack` (which builds
 * dist/), the tarball installed with `--omit=dev` into an empty project in a
 * temporary directory, then every subcommand's --help, `sim --memory --port
 * 0`, a read-only live `conformance` run against it with the fixtures' key,
 * `spec lint`, a scenario, and the library example of docs/library.md, all from that
 * project. A file missing from the tarball or a runtime import left in
 * devDependencies fails here.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
