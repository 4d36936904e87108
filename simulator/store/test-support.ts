/**
 * Test support of the store's tests: temporary directories removed after a
 * test file, the files a process holds open; and for the shared sandbox
 * (issue 39), simulator processes (`npm start -- --database URL`, from the
 * test build) started, called and killed by tests. Not part of the package
 * (tsconfig.build.json excludes test-support.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeArgs } from '../../build/node-command.ts';
import type { Fixtures } from '../demo-world.ts';
import { afterAll, afterEach } from 'vitest';
import { FileStore, type FileStoreOptions } from './file-store.ts';

/**
 * A maker of temporary directories (`<tmpdir>/<prefix>XXXXXX`) for the test
 * file that calls it at its top level: each is removed after the file's tests.
 */
export function tempDirs(prefix: string): () => string {
  const made: string[] = [];
  afterAll(() => {
    for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}

/**
 * FileStore.open for the test file that calls it at its top level: every store it opened is closed after each test,
 * newest first, whatever the test's outcome (`opened` lists those still open).
 */
export function openedFileStores(): { open: (dir: string, options?: FileStoreOptions) => Promise<FileStore>; opened: readonly FileStore[] } {
  const opened: FileStore[] = [];
  afterEach(async () => {
    for (const s of opened.splice(0).reverse()) await s.close().catch(() => undefined);
  });
  return {
    opened,
    async open(dir, options) {
      const store = await FileStore.open(dir, options);
      opened.push(store);
      return store;
    },
  };
}

/**
 * The files this process holds open under `dir` (Linux: /proc/self/fd), by
 * their present name: a store that let go of a file leaves none. Only what is
 * under `dir`, so files other tests of the process hold meanwhile do not count.
 */
export function openFilesUnder(dir: string): string[] {
  const real = realpathSync(dir);
  const names: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target === real || target.startsWith(`${real}/`)) names.push(target);
    } catch {
      // closed between the listing and the read (the listing's own descriptor, or another test's file)
    }
  }
  return names;
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** A hang guard, not a speed target (issue 38): a slow machine makes a start slower, never a test red. */
export const PROCESS_CAP_MS = 300_000;

export interface SimulatorProcess {
  name: string;
  child: ChildProcess;
  stdout: string;
  stderr: string;
  /** Resolves with the exit code (null after a signal). */
  exit: Promise<number | null>;
  origin: string;
  /** The partner API's base URL. */
  api: string;
  fixtures: Fixtures;
}

/** Rejects after `ms` naming what was awaited: a cap that runs out fails loudly with the context, it never passes. */
export function bounded<T>(promise: Promise<T>, ms: number, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`gave up after ${ms} ms ${what()}`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Starts a simulator on `url` (`--port 0`, fixtures written under `dir`) and
 * resolves once its banner is out. `started` collects the child so an
 * afterAll can kill whatever is left.
 */
export async function startOnDatabase(url: string, name: string, dir: string, started: ChildProcess[], extra: string[] = []): Promise<SimulatorProcess> {
  const fixturesFile = join(dir, `${name}.json`);
  const child = spawn(process.execPath, [...nodeArgs('simulator/cli.ts'), '--database', url, '--port', '0', '--fixtures-out', fixturesFile, ...extra],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  const run = { name, child, stdout: '', stderr: '', exit: new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code))) };
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (run.stdout += s));
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (run.stderr += s));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', () => {
      if (/base URL\s+\S+/.test(run.stdout) && run.stdout.endsWith('\n')) resolve();
    });
    void run.exit.then((code) => reject(new Error(`${name} exited with ${code} before serving\nstdout: ${run.stdout}\nstderr: ${run.stderr}`)));
  });
  await bounded(ready, PROCESS_CAP_MS, () => `waiting for ${name} to serve\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  const fixtures = JSON.parse(readFileSync(fixturesFile, 'utf8')) as Fixtures;
  return Object.assign(run, { origin: new URL(fixtures.baseUrl).origin, api: fixtures.baseUrl, fixtures });
}

export interface Answer {
  status: number;
  text: string;
  body: any;
}

/** One HTTP call with a bearer token; a JSON body when given. */
export async function call(base: string, method: string, path: string, token: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(base + path, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : undefined };
}

/** Every event of the integration from sequence 0, read page by page (superseded ones included). */
export async function allSequences(api: string, key: string): Promise<number[]> {
  const seen: number[] = [];
  for (let after = 0; ;) {
    const page = await call(api, 'GET', `/events?after_sequence=${after}&limit=200&include_superseded=true`, key);
    if (page.status !== 200) throw new Error(`GET /events answered ${page.status}: ${page.text}`);
    const sequences = (page.body.data as { sequence: number }[]).map((e) => e.sequence);
    if (sequences.length === 0) return seen;
    seen.push(...sequences);
    after = sequences.at(-1)!;
  }
}
