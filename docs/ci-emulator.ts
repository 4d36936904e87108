/**
 * For docs/ci-recipes.test.ts: runs the shell commands of a GitHub Actions
 * workflow or a GitLab CI file as the platform would (each job in a fresh
 * working directory, `bash -e`, the job's variables in the environment), so a
 * recipe in the docs is proven by running it, not by reading it.
 *
 * What is emulated rather than run, because it is the CI platform's and not
 * the recipe's: `${{ vars.* / secrets.* / matrix.* }}` and CI/CD variables
 * (the test supplies them), `$GITHUB_ENV`, artifacts passed between jobs
 * (upload-artifact / download-artifact; GitLab `artifacts:paths` to later
 * stages), and the `uses:` actions of others, which are checked instead (the
 * JUnit publisher must find valid JUnit files, setup-node must ask for a Node
 * the package supports). This repository's own action (action.yml, `uses:
 * ./partner-api-conformance` after checking the suite out there) is run:
 * its inputs checked against the ones it declares, its composite steps run
 * in bash with `inputs.*`, `github.action_path` and `steps.*.outputs`, its
 * outputs handed to the workflow through `$GITHUB_OUTPUT`.
 *
 * Getting the suite is emulated, since it means the network and a build:
 * the checkout of its repository (`actions/checkout` with `repository:`, or
 * GitLab's `git clone` line) gives a directory holding this clone's
 * package.json and action.yml, at the tag of package.json's version; the
 * build line (`npm ci` and `npm pack` there, or the action's `npm ci && npm
 * run build`) leaves what it would leave (the tarball named as npm names it,
 * or dist/cli/partner-api.js); and the install line must name that tarball
 * (the registry is refused: the package is not published) and makes
 * `node_modules/.bin/partner-api` a shim that runs this clone's
 * `cli/partner-api.ts` (built for the test run, build/test-build.ts), which is where `npm install` would put
 * the command. build/installed-package.test.ts packs, installs and runs the
 * real package.
 */
import { spawn } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { XMLValidator } from 'fast-xml-parser';
import { parse as parseYaml } from 'yaml';
import { nodeArgsFromAnywhere, nodeCommandLine } from '../build/node-command.ts';
import { keepWriteTrace } from '../build/write-trace.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

/** The line the recipes install the package with: the tarball the pipeline built (docs/ci.md says so). */
export const INSTALL_LINE = /^npm install --no-save --no-audit --no-fund (\S+)$/;
/** The line that builds that tarball in the suite's checkout: its dependencies, then npm pack (whose prepack builds dist/). */
export const BUILD_LINE = /^\(cd (\S+) && npm ci --no-audit --no-fund && npm pack\)$/;
/** GitLab: the suite's repository cloned at the tag of a version. */
export const CLONE_LINE = /^git clone --quiet --depth 1 --branch (\S+) "\$([A-Za-z_][A-Za-z0-9_]*)" (\S+)$/;
/** The action's own install step, run in its checkout (action.yml). */
const ACTION_BUILD = 'npm ci --no-audit --no-fund && npm run build';
const TAG = `v${PACKAGE.version}`;
const TARBALL = `${PACKAGE.name}-${PACKAGE.version}.tgz`;

/** A line that gets the suite (clone, build, install): emulated, never run. */
function isSuiteLine(line: string): boolean {
  return [INSTALL_LINE, BUILD_LINE, CLONE_LINE].some((r) => r.test(line.trim()));
}

export type Vars = Record<string, string>;

/** What a job ran, for the test to look at. */
export interface JobRun {
  job: string;
  /** The matrix values of this run, when the job has a matrix. */
  matrix: Vars;
  workdir: string;
  /** Every command's output, in order. */
  output: string;
  /** GitHub: the vars and secrets the job read (`${{ vars.X }}`, `${{ secrets.X }}`); GitLab: the variables its commands name. */
  read: Set<string>;
}

/** A recipe step that failed: which, the command, its exit code and output. */
export class RecipeFailure extends Error {}

interface Emulation {
  /** The CI/CD variables of each environment (GitHub environments, GitLab environment-scoped variables); '*' for the repository's, which every job sees. */
  environments: Record<string, Vars>;
  /** Fills a job's fresh working directory (what `actions/checkout` or GitLab's clone would give). */
  checkout?: (dir: string) => void;
  /** GitHub: values put over the workflow's and job's `env:` (the test moves a documented port to a free one). */
  overrides?: Vars;
  /** Called with each emulated artifact upload (name, stored directory). */
  onArtifact?: (name: string, dir: string) => void;
}

// ------------------------------------------------------------------ shell

/** The environment every command starts from: the machine's PATH and HOME, nothing of this test process. */
function baseEnv(workdir: string): Vars {
  const path = (process.env.PATH ?? '').split(':').filter((p) => !p.includes(`node_modules${sep}.bin`)).join(':');
  return {
    PATH: path, HOME: process.env.HOME ?? tmpdir(), LANG: 'C.UTF-8', CI: 'true',
    // A command that is not the shim must fail here, never be fetched from the registry (`npx partner-api` would
    // otherwise download an unrelated package of that name).
    npm_config_offline: 'true', npm_config_update_notifier: 'false', npm_config_audit: 'false', npm_config_fund: 'false',
    TMPDIR: workdir,
    // The work-tree guard's trace (build/write-trace.ts): what a job's Node processes write into the clone is judged.
    ...keepWriteTrace(),
  };
}

interface Shell {
  run(script: string, env: Vars, label: string, cwd?: string): Promise<string>;
  /** Ends every process group the job's commands started (a simulator left in the background). */
  close(): void;
}

function shell(workdir: string): Shell {
  const groups: number[] = [];
  return {
    run(script, env, label, cwd = workdir) {
      return new Promise((resolve, reject) => {
        // GitHub's default shell is `bash -e {0}`; GitLab's bash runner sets -e and pipefail. A group of its own, so
        // what the command leaves in the background can be ended by its id when the job ends.
        const child = spawn('bash', ['--noprofile', '--norc', '-e', '-o', 'pipefail', '-c', script], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
        if (child.pid !== undefined) groups.push(child.pid);
        let out = '';
        child.stdout.on('data', (d) => { out += d; });
        child.stderr.on('data', (d) => { out += d; });
        child.on('error', reject);
        child.on('close', (code) => {
          if (code === 0) resolve(out);
          else reject(new RecipeFailure(`${label}: exit ${code}\n$ ${script}\n${out.slice(-4000)}`));
        });
      });
    },
    close() {
      for (const pgid of groups) {
        try {
          process.kill(-pgid, 'SIGTERM');
        } catch {
          // The group is gone already.
        }
      }
    },
  };
}

/** Files a glob names in `dir` (bash globstar; a directory stands for the files below it). */
async function glob(dir: string, pattern: string): Promise<string[]> {
  const sh = shell(dir);
  const out = await sh.run(`shopt -s globstar nullglob; for f in ${pattern}; do printf '%s\\0' "$f"; done`, baseEnv(dir), `glob ${pattern}`);
  return out.split('\0').filter(Boolean).flatMap((f) => filesUnder(join(dir, f))).map((f) => relative(dir, f));
}

function filesUnder(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true }).flatMap((e) => filesUnder(join(path, e.name)));
}

/** Emulates a checkout of the suite's repository at `ref` into `dir`: this clone's package.json and action.yml are what the tests need of it. */
function checkoutSuite(repository: string, ref: string, dir: string, workdir: string, label: string): string {
  if (repository === '') throw new RecipeFailure(`${label}: the suite's repository is empty (an unset variable?)`);
  if (ref !== TAG) throw new RecipeFailure(`${label}: the recipe checks out the suite at ${ref}, but this package is ${PACKAGE.name}@${PACKAGE.version} (tag ${TAG})`);
  const into = join(workdir, dir);
  mkdirSync(into, { recursive: true });
  for (const file of ['package.json', 'package-lock.json', 'action.yml']) cpSync(join(ROOT, file), join(into, file));
  return `(emulated) checkout of ${repository}@${ref} into ${dir}\n`;
}

/** True when `dir` (in the job's directory) holds a checkout of the suite. */
function holdsSuite(dir: string): boolean {
  const manifest = join(dir, 'package.json');
  return existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === PACKAGE.name;
}

/** Emulates a suite line: the clone, the build in the checkout, or the install of the tarball it built. */
function suiteLine(line: string, workdir: string, env: Vars, label: string): string {
  const text = line.trim();
  const clone = CLONE_LINE.exec(text);
  if (clone) return checkoutSuite(env[clone[2]!] ?? '', clone[1]!, clone[3]!, workdir, label);
  const build = BUILD_LINE.exec(text);
  if (build) {
    if (!holdsSuite(join(workdir, build[1]!))) throw new RecipeFailure(`${label}: ${build[1]} holds no checkout of ${PACKAGE.name} to build`);
    writeFileSync(join(workdir, build[1]!, TARBALL), 'emulated: npm pack of the checkout\n');
    return `(emulated) ${text}: ${build[1]}/${TARBALL}\n`;
  }
  const install = INSTALL_LINE.exec(text);
  if (!install) throw new RecipeFailure(`${label}: not a line that gets the suite: ${text}`);
  const spec = install[1]!;
  if (!spec.endsWith('.tgz')) throw new RecipeFailure(`${label}: the recipe installs ${spec} from the registry, but ${PACKAGE.name} is not published there (install the tarball the pipeline builds)`);
  if (spec.split('/').pop() !== TARBALL) throw new RecipeFailure(`${label}: the recipe installs ${spec}, but npm pack of this package writes ${TARBALL}`);
  if (!existsSync(join(workdir, spec))) throw new RecipeFailure(`${label}: ${spec} is not there: no earlier line built it`);
  putCommand(join(workdir, 'node_modules', '.bin', 'partner-api'));
  return `(emulated) ${text}\n`;
}

/** The `partner-api` command at `path`: a shell shim that runs this clone's CLI (the run's build of it, or the source through tsx). */
function putCommand(path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `#!/bin/sh\nexec ${nodeCommandLine('cli/partner-api.ts')} "$@"\n`);
  chmodSync(path, 0o755);
}

function checkJunit(dir: string, files: string[], what: string): void {
  if (files.length === 0) throw new RecipeFailure(`${what}: no JUnit file matches`);
  for (const f of files) {
    const xml = readFileSync(join(dir, f), 'utf8');
    if (XMLValidator.validate(xml) !== true || !xml.includes('<testsuites')) throw new RecipeFailure(`${what}: ${f} is not a JUnit report`);
  }
}

function copyInto(from: string, files: string[], to: string): void {
  for (const f of files) {
    mkdirSync(dirname(join(to, f)), { recursive: true });
    cpSync(join(from, f), join(to, f));
  }
}

/** Every directory the emulation made (working directories, artifact stores), for removeScratch(). */
const scratch: string[] = [];

function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratch.push(dir);
  return dir;
}

/** Removes the working directories and artifact stores of every job run so far. */
export function removeScratch(): void {
  for (const dir of scratch.splice(0)) {
    rmSync(dir, { recursive: true, force: true });
    rmSync(`${dir}.github-env`, { force: true });
  }
}

function freshDir(prefix: string, checkout?: (dir: string) => void): string {
  const dir = scratchDir(prefix);
  checkout?.(dir);
  return dir;
}

// ------------------------------------------------------------------ GitHub Actions

interface GithubStep { name?: string; id?: string; uses?: string; run?: string; with?: Record<string, unknown>; env?: Record<string, unknown>; if?: string; shell?: string; 'working-directory'?: string; 'continue-on-error'?: boolean }

/** A composite action's step failed: the outputs it had set by then, as GitHub still hands them on. */
class ActionFailure extends RecipeFailure {
  constructor(message: string, readonly outputs: Vars) {
    super(message);
  }
}

/** What `${{ … }}` can read: the matrix, vars and secrets (read records which), step outputs; in an action, its inputs and path. */
interface Context { matrix: Vars; vars: Vars; read: Set<string>; steps: Record<string, Vars>; inputs?: Vars; actionPath?: string }
interface GithubJob { needs?: string | string[]; if?: string; environment?: string | { name: string }; env?: Record<string, unknown>; strategy?: { matrix?: Record<string, unknown> }; steps: GithubStep[] }

/** Runs every job of a workflow (in `needs` order, each matrix value in turn) and returns what each ran. */
export async function runGithubWorkflow(text: string, o: Emulation): Promise<JobRun[]> {
  const wf = parseYaml(text) as { env?: Record<string, unknown>; jobs: Record<string, GithubJob> };
  const runs: JobRun[] = [];
  const artifacts = new Map<string, string>();
  const done = new Set<string>();
  const order: string[] = [];
  const visit = (id: string) => {
    if (done.has(id)) return;
    done.add(id);
    const needs = wf.jobs[id]!.needs;
    for (const n of typeof needs === 'string' ? [needs] : needs ?? []) visit(n);
    order.push(id);
  };
  Object.keys(wf.jobs).forEach(visit);
  for (const id of order) {
    const job = wf.jobs[id]!;
    if (job.if !== undefined && job.if !== 'always()') throw new RecipeFailure(`job ${id}: the emulation knows if: always() only, not ${job.if}`);
    for (const matrix of matrixValues(job.strategy?.matrix)) {
      const read = new Set<string>();
      const envName = job.environment === undefined ? undefined : expand(typeof job.environment === 'string' ? job.environment : job.environment.name, { matrix, vars: {}, read, steps: {} });
      // Repository variables ('*') serve every job; an environment's own are put over them.
      const scoped = envName === undefined ? {} : o.environments[envName];
      if (scoped === undefined) throw new RecipeFailure(`job ${id}: environment "${envName}" is not one the test provides`);
      const vars = { ...o.environments['*'], ...scoped };
      const ctx: Context = { matrix, vars, read, steps: {} };
      const workdir = freshDir(`gh-${id}-`, o.checkout);
      const githubEnv = `${workdir}.github-env`;
      writeFileSync(githubEnv, '');
      let env: Vars = { ...baseEnv(workdir), GITHUB_WORKSPACE: workdir, GITHUB_ENV: githubEnv, ...expandAll(wf.env, ctx), ...expandAll(job.env, ctx), ...o.overrides };
      const sh = shell(workdir);
      let output = '';
      try {
        for (const [i, step] of job.steps.entries()) {
          const label = `${id}${Object.keys(matrix).length ? ` (${Object.values(matrix).join(', ')})` : ''} step ${i + 1} "${step.name ?? step.uses ?? ''}"`;
          if (step.if !== undefined && step.if !== 'always()') throw new RecipeFailure(`${label}: the emulation knows if: always() only`);
          if (step.uses?.startsWith('./')) {
            try {
              const ran = await localAction(step, workdir, env, ctx, sh, label);
              output += ran.output;
              if (step.id !== undefined) ctx.steps[step.id] = ran.outputs;
            } catch (e) {
              // continue-on-error: the job goes on, with the failed step's outputs (GitHub sets them as far as they got).
              if (!(e instanceof RecipeFailure) || step['continue-on-error'] !== true) throw e;
              output += `(continue-on-error) ${e.message}\n`;
              if (step.id !== undefined && e instanceof ActionFailure) ctx.steps[step.id] = e.outputs;
            }
            continue;
          }
          if (step.uses !== undefined) {
            output += await githubAction(step, workdir, { ...ctx, env, artifacts, onArtifact: o.onArtifact }, label);
            continue;
          }
          const script = step.run ?? '';
          // Expressions in a script are an injection risk (GitHub's hardening guide): recipes pass values through env.
          if (script.includes('${{')) throw new RecipeFailure(`${label}: an expression inside run:; pass it through env:`);
          if (isSuiteLine(script)) {
            if (step['working-directory'] !== undefined) throw new RecipeFailure(`${label}: the line that gets the suite names its directory itself; no working-directory:`);
            output += suiteLine(script, workdir, env, label);
            continue;
          }
          const stepOutput = `${workdir}.github-output-${i}`;
          writeFileSync(stepOutput, '');
          const cwd = step['working-directory'] === undefined ? workdir : join(workdir, expand(step['working-directory'], ctx));
          output += await sh.run(script, { ...env, ...expandAll(step.env, ctx), GITHUB_OUTPUT: stepOutput }, label, cwd);
          if (step.id !== undefined) ctx.steps[step.id] = readKeyValues(stepOutput, label, '$GITHUB_OUTPUT');
          env = { ...env, ...readKeyValues(githubEnv, label, '$GITHUB_ENV') };
        }
      } finally {
        sh.close();
      }
      runs.push({ job: id, matrix, workdir, output, read });
    }
  }
  return runs;
}

function matrixValues(matrix: Record<string, unknown> | undefined): Vars[] {
  if (!matrix) return [{}];
  const axes = Object.entries(matrix).filter(([k]) => k !== 'include' && k !== 'exclude');
  if (matrix.include !== undefined || matrix.exclude !== undefined) throw new RecipeFailure('the emulation knows matrix axes only (no include/exclude)');
  return axes.reduce<Vars[]>((combos, [k, values]) => combos.flatMap((c) => (values as unknown[]).map((v) => ({ ...c, [k]: String(v) }))), [{}]);
}

/**
 * `${{ matrix.X }}`, `${{ vars.X }}`, `${{ secrets.X }}`, `${{ steps.ID.outputs.X }}`; in an action also `${{ inputs.X }}` and
 * `${{ github.action_path }}`: anything else is refused. An unset var, secret or step output is '' (as on GitHub).
 */
function expand(value: string, ctx: Context): string {
  return value.replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_all, expr: string) => {
    const step = /^steps\.([A-Za-z_][A-Za-z0-9_-]*)\.outputs\.([A-Za-z_][A-Za-z0-9_-]*)$/.exec(expr);
    if (step) return ctx.steps[step[1]!]?.[step[2]!] ?? '';
    if (ctx.inputs !== undefined) {
      const input = /^inputs\.([A-Za-z_][A-Za-z0-9_-]*)$/.exec(expr);
      if (input) {
        if (!(input[1]! in ctx.inputs)) throw new RecipeFailure(`the action reads inputs.${input[1]}, which it does not declare`);
        return ctx.inputs[input[1]!]!;
      }
      if (expr === 'github.action_path') return ctx.actionPath!;
    }
    const m = /^(matrix|vars|secrets)\.([A-Za-z_][A-Za-z0-9_-]*)$/.exec(expr);
    if (!m) throw new RecipeFailure(`the emulation does not know the expression \${{ ${expr} }}`);
    if (m[1] === 'matrix') {
      if (!(m[2]! in ctx.matrix)) throw new RecipeFailure(`no matrix value ${m[2]}`);
      return ctx.matrix[m[2]!]!;
    }
    ctx.read.add(m[2]!);
    return ctx.vars[m[2]!] ?? '';
  });
}

function expandAll(env: Record<string, unknown> | undefined, ctx: Context): Vars {
  return Object.fromEntries(Object.entries(env ?? {}).map(([k, v]) => [k, expand(String(v), ctx)]));
}

/** `$GITHUB_ENV` or `$GITHUB_OUTPUT`: NAME=value lines. */
function readKeyValues(file: string, label: string, what: string): Vars {
  const out: Vars = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line === '') continue;
    const eq = line.indexOf('=');
    if (eq <= 0 || line.includes('<<')) throw new RecipeFailure(`${label}: the emulation reads NAME=value lines of ${what} only, got "${line}"`);
    out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}

async function githubAction(step: GithubStep, workdir: string, ctx: Context & { env: Vars; artifacts: Map<string, string>; onArtifact?: (name: string, dir: string) => void }, label: string): Promise<string> {
  const action = step.uses!.split('@')[0];
  const w = expandAll(step.with, ctx);
  switch (action) {
    case 'actions/checkout':
      // Another repository (the suite's, at a tag) into a path; else the job's own repository, the working directory.
      if (w.repository !== undefined) {
        if (w.path === undefined || w.ref === undefined) throw new RecipeFailure(`${label}: a checkout of the suite names its ref (a tag) and its path`);
        return checkoutSuite(w.repository, w.ref, w.path, workdir, label);
      }
      return `(checkout: the job's working directory)\n`;
    case 'actions/setup-node': {
      const major = Number(/^(\d+)/.exec(w['node-version'] ?? '')?.[1]);
      if (!(major >= 20)) throw new RecipeFailure(`${label}: node-version ${w['node-version']} is below the package's engines (>=20.19)`);
      return `(setup-node ${w['node-version']}: this machine's ${process.version})\n`;
    }
    case 'actions/upload-artifact': {
      const lines = (w.path ?? '').split('\n').map((l) => l.trim()).filter(Boolean);
      const include = lines.filter((l) => !l.startsWith('!'));
      const files = new Set<string>();
      for (const p of include) for (const f of await glob(workdir, p)) files.add(f);
      for (const p of lines.filter((l) => l.startsWith('!'))) for (const f of await glob(workdir, p.slice(1))) files.delete(f);
      if (files.size === 0) throw new RecipeFailure(`${label}: no files match ${include.join(', ')}`);
      // As upload-artifact does: paths inside the artifact are relative to the files' least common ancestor.
      const list = [...files];
      let base = dirname(list[0]!);
      while (!list.every((f) => f.startsWith(base === '.' ? '' : `${base}/`))) base = dirname(base);
      const store = scratchDir('gh-artifact-');
      for (const f of list) {
        const rel = base === '.' ? f : relative(base, f);
        mkdirSync(dirname(join(store, rel)), { recursive: true });
        cpSync(join(workdir, f), join(store, rel));
      }
      const name = w.name ?? 'artifact';
      ctx.artifacts.set(name, store);
      ctx.onArtifact?.(name, store);
      return `(upload-artifact ${name}: ${list.length} file(s))\n`;
    }
    case 'actions/download-artifact': {
      const pattern = new RegExp(`^${(w.pattern ?? w.name ?? '*').replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
      const names = [...ctx.artifacts.keys()].filter((n) => pattern.test(n));
      if (names.length === 0) throw new RecipeFailure(`${label}: no artifact matches ${w.pattern ?? w.name}`);
      // Several artifacts: each in <path>/<name>/ (merge-multiple unset); one named artifact: in <path>.
      const single = w.name !== undefined;
      for (const n of names) cpSync(ctx.artifacts.get(n)!, join(workdir, w.path ?? '.', single ? '' : n), { recursive: true });
      return `(download-artifact ${names.join(', ')})\n`;
    }
    case 'mikepenz/action-junit-report': {
      const files = (await Promise.all((w.report_paths ?? '').split(/[\n,]/).map((p) => p.trim()).filter(Boolean).map((p) => glob(workdir, p)))).flat();
      checkJunit(workdir, files, label);
      return `(JUnit published: ${files.join(', ')})\n`;
    }
    default:
      throw new RecipeFailure(`${label}: the emulation does not know the action ${step.uses}`);
  }
}

interface ActionFile {
  inputs?: Record<string, { required?: boolean; default?: string }>;
  outputs?: Record<string, { value: string }>;
  runs: { using: string; steps: GithubStep[] };
}

/**
 * Runs a composite action from its checkout in the job's directory (`uses: ./DIR`): inputs checked against its
 * declared ones (an unknown or missing required one fails, as a typo should), each step in bash with the
 * action's expressions; its own install step is emulated (see the header). Returns its outputs.
 */
async function localAction(step: GithubStep, workdir: string, env: Vars, outer: Context, sh: Shell, label: string): Promise<{ output: string; outputs: Vars }> {
  const actionPath = join(workdir, step.uses!);
  if (!existsSync(join(actionPath, 'action.yml'))) throw new RecipeFailure(`${label}: ${step.uses} holds no action.yml (check the action out there first)`);
  const action = parseYaml(readFileSync(join(actionPath, 'action.yml'), 'utf8')) as ActionFile;
  if (action.runs.using !== 'composite') throw new RecipeFailure(`${label}: the emulation runs composite actions only`);
  const given = expandAll(step.with, outer);
  const declared = action.inputs ?? {};
  const unknown = Object.keys(given).filter((k) => !(k in declared));
  if (unknown.length > 0) throw new RecipeFailure(`${label}: ${step.uses} has no input ${unknown.join(', ')} (its inputs: ${Object.keys(declared).join(', ')})`);
  const inputs: Vars = {};
  for (const [name, d] of Object.entries(declared)) {
    const value = given[name] ?? d.default ?? '';
    if (d.required && value === '') throw new RecipeFailure(`${label}: ${step.uses} needs the input ${name}`);
    inputs[name] = String(value);
  }
  const ctx: Context = { matrix: outer.matrix, vars: {}, read: new Set(), steps: {}, inputs, actionPath };
  let output = '';
  for (const [i, s] of action.runs.steps.entries()) {
    const stepLabel = `${label} > action step ${i + 1} "${s.name ?? ''}"`;
    if (s.uses !== undefined || s.run === undefined) throw new RecipeFailure(`${stepLabel}: the emulation runs run: steps of an action only`);
    if (s.shell !== 'bash') throw new RecipeFailure(`${stepLabel}: a composite step must name its shell (bash)`);
    if (s.run.includes('${{')) throw new RecipeFailure(`${stepLabel}: an expression inside run:; pass it through env:`);
    const cwd = s['working-directory'] === undefined ? workdir : expand(s['working-directory'], ctx);
    if (s.run.trim() === ACTION_BUILD) {
      if (cwd !== actionPath || !holdsSuite(actionPath)) throw new RecipeFailure(`${stepLabel}: the action builds in its own checkout`);
      // What npm run build leaves there for the next step: dist/cli/partner-api.js, here a module that runs this clone's CLI.
      mkdirSync(join(actionPath, 'dist', 'cli'), { recursive: true });
      writeFileSync(join(actionPath, 'dist', 'cli', 'partner-api.js'), `import { spawnSync } from 'node:child_process';\nconst r = spawnSync(${JSON.stringify(process.execPath)}, [...${JSON.stringify(nodeArgsFromAnywhere('cli/partner-api.ts'))}, ...process.argv.slice(2)], { stdio: 'inherit' });\nprocess.exit(r.status ?? 1);\n`);
      output += `(emulated) ${s.run.trim()} in the action's checkout\n`;
      continue;
    }
    const stepOutput = `${workdir}.action-output-${i}`;
    writeFileSync(stepOutput, '');
    try {
      output += await sh.run(s.run, { ...env, ...expandAll(s.env, ctx), GITHUB_ACTION_PATH: actionPath, GITHUB_OUTPUT: stepOutput }, stepLabel, cwd);
    } catch (e) {
      if (!(e instanceof RecipeFailure)) throw e;
      if (s.id !== undefined) ctx.steps[s.id] = readKeyValues(stepOutput, stepLabel, '$GITHUB_OUTPUT');
      throw new ActionFailure(e.message, actionOutputs());
    }
    if (s.id !== undefined) ctx.steps[s.id] = readKeyValues(stepOutput, stepLabel, '$GITHUB_OUTPUT');
  }
  return { output, outputs: actionOutputs() };

  function actionOutputs(): Vars {
    return Object.fromEntries(Object.entries(action.outputs ?? {}).map(([name, o]) => [name, expand(o.value, ctx)]));
  }
}

// ------------------------------------------------------------------ GitLab CI

interface GitlabJob {
  stage?: string; environment?: string | { name: string }; needs?: Array<string | { job: string }>;
  variables?: Record<string, unknown>; before_script?: string[]; script: string[];
  parallel?: { matrix: Array<Record<string, unknown>> };
  artifacts?: { paths?: string[]; exclude?: string[]; reports?: { junit?: string | string[] } };
}
const GITLAB_RESERVED = new Set(['stages', 'variables', 'default', 'workflow', 'include', 'image', 'services', 'before_script', 'after_script', 'cache']);

/** Runs every job of a GitLab CI file, stage by stage, artifacts passed on as GitLab does. */
export async function runGitlabPipeline(text: string, o: Emulation): Promise<JobRun[]> {
  const doc = parseYaml(text) as Record<string, unknown> & { stages?: string[]; variables?: Record<string, unknown>; default?: { before_script?: string[] }; before_script?: string[] };
  const jobs = Object.entries(doc).filter(([k]) => !GITLAB_RESERVED.has(k) && !k.startsWith('.')) as Array<[string, GitlabJob]>;
  const stages = doc.stages ?? ['build', 'test', 'deploy'];
  const artifacts = new Map<string, { dir: string; files: string[] }>();
  const runs: JobRun[] = [];
  for (const stage of stages) {
    for (const [id, job] of jobs.filter(([, j]) => (j.stage ?? 'test') === stage)) {
      for (const matrix of gitlabMatrix(job.parallel?.matrix)) {
        const named = job.environment === undefined ? undefined : typeof job.environment === 'string' ? job.environment : job.environment.name;
        // An environment name may use the job's variables (a matrix value: `environment: $DEPLOYMENT`).
        const known: Vars = { ...stringVars(doc.variables), ...stringVars(job.variables), ...matrix };
        const envName = named?.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (_all, n: string) => known[n] ?? '');
        // Variables without an environment scope are '*': every job sees them, a job's environment puts its own over them.
        const scoped = envName === undefined ? {} : o.environments[envName];
        if (scoped === undefined) throw new RecipeFailure(`job ${id}: environment "${envName}" is not one the test provides`);
        const project = { ...o.environments['*'], ...scoped };
        const workdir = freshDir(`gl-${id.replace(/\W+/g, '-')}-`, o.checkout);
        // Artifacts of the jobs named in needs:, else of every job of an earlier stage.
        const from = job.needs ? job.needs.map((n) => (typeof n === 'string' ? n : n.job)) : [...artifacts.keys()].filter((k) => stages.indexOf(jobStage(jobs, k)) < stages.indexOf(stage));
        for (const k of from) for (const key of [...artifacts.keys()].filter((x) => x === k || x.startsWith(`${k} [`))) copyInto(artifacts.get(key)!.dir, artifacts.get(key)!.files, workdir);
        // As on GitLab, the project's CI/CD variables take precedence over the file's variables:.
        const env: Vars = { ...baseEnv(workdir), CI_PROJECT_DIR: workdir, ...stringVars(doc.variables), ...stringVars(job.variables), ...project, ...matrix };
        const lines = [...(job.before_script ?? doc.default?.before_script ?? doc.before_script ?? []), ...job.script];
        // The lines that get the suite come first, and are emulated in their order; any later one is a recipe error.
        const firstOther = lines.findIndex((l) => !isSuiteLine(l));
        const suite = firstOther === -1 ? lines : lines.slice(0, firstOther);
        const script = firstOther === -1 ? [] : lines.slice(firstOther);
        const late = script.find(isSuiteLine);
        const label = `${id}${Object.keys(matrix).length ? ` [${Object.values(matrix).join(', ')}]` : ''}`;
        // The variables the commands name ($NAME, ${NAME…}); what a command reads from the environment itself is not seen here.
        const read = new Set(lines.flatMap((l) => [...l.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!)));
        const sh = shell(workdir);
        let output = '';
        try {
          if (late !== undefined) throw new RecipeFailure(`${label}: the suite is got before anything else, not here: ${late}`);
          for (const l of suite) output += suiteLine(l, workdir, env, label);
          output += await sh.run(script.join('\n'), env, label);
        } finally {
          sh.close();
        }
        const files = new Set<string>();
        for (const p of job.artifacts?.paths ?? []) for (const f of await glob(workdir, p)) files.add(f);
        for (const p of job.artifacts?.exclude ?? []) for (const f of await glob(workdir, p)) files.delete(f);
        if ((job.artifacts?.paths ?? []).length > 0 && files.size === 0) throw new RecipeFailure(`${label}: artifacts:paths match nothing`);
        artifacts.set(label, { dir: workdir, files: [...files] });
        o.onArtifact?.(label, copyArtifact(workdir, [...files]));
        const junit = job.artifacts?.reports?.junit;
        if (junit !== undefined) checkJunit(workdir, (await Promise.all((Array.isArray(junit) ? junit : [junit]).map((p) => glob(workdir, p)))).flat(), `${label} artifacts:reports:junit`);
        runs.push({ job: id, matrix, workdir, output, read });
      }
    }
  }
  return runs;
}

function copyArtifact(from: string, files: string[]): string {
  const dir = scratchDir('gl-artifact-');
  copyInto(from, files, dir);
  return dir;
}

function jobStage(jobs: Array<[string, GitlabJob]>, label: string): string {
  const id = label.replace(/ \[.*$/, '');
  return jobs.find(([k]) => k === id)?.[1].stage ?? 'test';
}

function stringVars(v: Record<string, unknown> | undefined): Vars {
  return Object.fromEntries(Object.entries(v ?? {}).map(([k, x]) => [k, String(x)]));
}

function gitlabMatrix(matrix: Array<Record<string, unknown>> | undefined): Vars[] {
  if (!matrix) return [{}];
  return matrix.flatMap((entry) => Object.entries(entry).reduce<Vars[]>((combos, [k, values]) => combos.flatMap((c) => (Array.isArray(values) ? values : [values]).map((v) => ({ ...c, [k]: String(v) }))), [{}]));
}

/** True when `dir` holds `file` (for the tests' assertions on artifacts). */
export function holds(dir: string, file: string): boolean {
  return existsSync(join(dir, file));
}
