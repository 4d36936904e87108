/**
 * The data directory as `npm start -- --data DIR` sees it: one simulator per
 * directory (a second one exits 2 naming the first), a lock left by a killed
 * simulator is taken over, and a damaged file stops the start with exit 2
 * and a message, never a silent empty world.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { nodeArgs } from '../../build/node-command.ts';
import { bounded } from './test-support.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Hang guards, not speed targets: on a machine loaded many times over its cores a start alone can take 20 s. */
const TIMEOUT_MS = 300_000;

interface Run {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  exit: Promise<number | null>;
}

const children: ChildProcess[] = [];
const dirs: string[] = [];

function launch(dir: string, ...flags: string[]): Run {
  const child = spawn(process.execPath, [...nodeArgs('simulator/cli.ts'), '--port', '0', '--data', dir, ...flags], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  // 'close', not 'exit': on a loaded machine the exit can come before the last of stderr is read.
  const run: Run = { child, stdout: '', stderr: '', exit: new Promise((resolve) => child.once('close', (code) => resolve(code))) };
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (run.stdout += s));
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (run.stderr += s));
  return run;
}

/** Resolves with the base URL once the banner is out. */
async function serving(run: Run): Promise<string> {
  const ready = new Promise<string>((resolve, reject) => {
    const check = () => {
      const m = /base URL\s+(\S+)\n/.exec(run.stdout);
      if (m) resolve(m[1]!);
    };
    run.child.stdout!.on('data', check);
    void run.exit.then((code) => reject(new Error(`exited ${code} before serving: ${run.stderr}`)));
  });
  return bounded(ready, TIMEOUT_MS, () => `waiting for the banner: ${run.stdout} ${run.stderr}`);
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'data-dir-cli-'));
  dirs.push(dir);
  return dir;
}

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('npm start --data DIR: owner-only files on every start (issue 29 item 4)', () => {
  it('a 0755 directory with a 0644 vault.key from an older version: 0700 and 0600 after the start, said once on stderr', async () => {
    const dir = tempDir();
    chmodSync(dir, 0o755);
    const key = 'ab'.repeat(32);
    writeFileSync(join(dir, 'vault.key'), key + '\n');
    chmodSync(join(dir, 'vault.key'), 0o644);
    const first = launch(dir);
    await serving(first);
    expect((statSync(dir).mode & 0o777).toString(8)).toBe('700');
    for (const name of readdirSync(dir)) expect((statSync(join(dir, name)).mode & 0o777).toString(8), name).toBe('600');
    expect(readFileSync(join(dir, 'vault.key'), 'utf8'), 'the key itself is kept').toBe(key + '\n');
    const notes = first.stderr.split('\n').filter((l) => l.includes('owner-only'));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/^note: made .* owner-only .*: the directory 0755 → 0700, vault\.key 0644 → 0600$/);
    first.child.kill('SIGTERM');
    expect(await bounded(first.exit, TIMEOUT_MS, () => first.stderr)).toBe(0);
    // demo-credentials.json written 0644 by an older version: tightened at the next start, and only it is named.
    chmodSync(join(dir, 'demo-credentials.json'), 0o644);
    const second = launch(dir);
    await serving(second);
    expect((statSync(join(dir, 'demo-credentials.json')).mode & 0o777).toString(8)).toBe('600');
    expect(second.stderr).toMatch(/^note: made .* owner-only .*: demo-credentials\.json 0644 → 0600$/m);
    second.child.kill('SIGTERM');
    expect(await bounded(second.exit, TIMEOUT_MS, () => second.stderr)).toBe(0);
    // Nothing to change: nothing said.
    const third = launch(dir);
    await serving(third);
    expect(third.stderr).not.toContain('owner-only');
    third.child.kill('SIGTERM');
    expect(await bounded(third.exit, TIMEOUT_MS, () => third.stderr)).toBe(0);
  });
});

describe('npm start --data DIR: one simulator per directory', () => {
  it('a second simulator on the same directory exits 2 naming the first, which keeps serving', async () => {
    const dir = tempDir();
    const first = launch(dir);
    const baseUrl = await serving(first);
    const second = launch(dir);
    expect(await bounded(second.exit, TIMEOUT_MS, () => second.stderr)).toBe(2);
    expect(second.stderr).toContain(`is in use by another simulator (pid ${first.child.pid} on `);
    expect(second.stderr).toContain('stop it first or use another --data DIR');
    expect(second.stdout).not.toContain('base URL');
    const fixtures = JSON.parse(readFileSync(join(dir, 'demo-credentials.json'), 'utf8')) as { integrations: { apiKey: string }[] };
    const me = await fetch(`${baseUrl}/me`, { headers: { Authorization: `Bearer ${fixtures.integrations[0]!.apiKey}` } });
    expect(me.status).toBe(200);
  });

  it('a simulator killed with SIGKILL leaves a lock the next start takes over, with its world', async () => {
    const dir = tempDir();
    const first = launch(dir);
    await serving(first);
    first.child.kill('SIGKILL');
    await first.exit;
    const second = launch(dir);
    await serving(second);
    expect(second.stdout).toContain('(state restored)');
    expect(second.stderr).toContain(`took over the lock of ${dir} from pid ${first.child.pid}, which is gone`);
    second.child.kill('SIGTERM');
    expect(await bounded(second.exit, TIMEOUT_MS, () => second.stderr)).toBe(0);
    expect(readdirSync(dir), 'a clean stop removes the lock').not.toContain('LOCK');
  });

  it('a damaged state.json stops the start with exit 2 and the file named; nothing is overwritten', async () => {
    const dir = tempDir();
    const first = launch(dir);
    await serving(first);
    first.child.kill('SIGTERM');
    expect(await first.exit).toBe(0);
    writeFileSync(join(dir, 'state.json'), '{"version":2,"tables":{"brands":{"1":{"id":1,"na');
    const before = readdirSync(dir).sort().map((n) => [n, readFileSync(join(dir, n), 'utf8')]);
    const second = launch(dir);
    expect(await bounded(second.exit, TIMEOUT_MS, () => second.stderr)).toBe(2);
    expect(second.stderr).toContain(`${join(dir, 'state.json')} is damaged and cannot be loaded`);
    expect(second.stderr).toContain('will not start empty');
    expect(second.stdout).not.toContain('base URL');
    expect(readdirSync(dir).sort().map((n) => [n, readFileSync(join(dir, n), 'utf8')])).toEqual(before);
  });
});

/**
 * A night `n` days after today: the demo world's texture (a block at today + 60) moves with the calendar, so a fixed
 * date was free one month and blocked the next (a create refused UNAVAILABLE on 2026-12-02).
 */
function daysAhead(n: number): string {
  return new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
}

describe('npm start --data DIR: acknowledged bookings lost after a kill (issue 29)', () => {
  it('SIGKILL, then the newest journal cut to 75%: exit 2 naming the file and the missing records; --recover starts with what is intact and never reuses a booking id', async () => {
    const dir = tempDir();
    const first = launch(dir);
    const baseUrl = await serving(first);
    const fixtures = JSON.parse(readFileSync(join(dir, 'demo-credentials.json'), 'utf8')) as { integrations: { apiKey: string }[] };
    const auth = { Authorization: `Bearer ${fixtures.integrations[0]!.apiKey}`, 'Content-Type': 'application/json' };
    const ids: number[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${baseUrl}/bookings`, {
        method: 'POST', headers: { ...auth, 'Idempotency-Key': `cli-recover-${i}-key` },
        body: JSON.stringify({ external_booking_id: `CLI-REC-${i}`, property: { doorloom_id: 101 }, units: [{ adults: 1 }], check_in: daysAhead(100 + 2 * i), check_out: daysAhead(101 + 2 * i), guest: { name: 'A', mobile: '9' }, pricing: { total: 100 } }),
      });
      expect(res.status, await res.clone().text()).toBe(201);
      ids.push(((await res.json()) as { data: { id: number } }).data.id);
    }
    first.child.kill('SIGKILL');
    await first.exit;
    const journal = join(dir, readdirSync(dir).filter((n) => /^journal\.\d+\.log$/.test(n)).sort().at(-1)!);
    truncateSync(journal, Math.floor(statSync(journal).size * 0.75));

    const refused = launch(dir);
    expect(await bounded(refused.exit, TIMEOUT_MS, () => refused.stderr)).toBe(2);
    expect(refused.stderr).toMatch(/^error: /);
    expect(refused.stderr).toContain(`${journal} ends at transaction`);
    expect(refused.stderr).toMatch(/\d+ acknowledged records? (is|are) missing/);
    expect(refused.stdout).not.toContain('base URL');

    const recovered = launch(dir, '--recover');
    const url = await serving(recovered);
    expect(recovered.stderr).toMatch(/warning: --recover: started .* acknowledged record\(s\) up to transaction \d+ are lost\. The damaged journal is kept as .*\.damaged-/);
    expect(readdirSync(dir).some((n) => /\.damaged-/.test(n))).toBe(true);
    const res = await fetch(`${url}/bookings`, {
      method: 'POST', headers: { ...auth, 'Idempotency-Key': 'cli-recover-after' },
      body: JSON.stringify({ external_booking_id: 'CLI-REC-AFTER', property: { doorloom_id: 101 }, units: [{ adults: 1 }], check_in: daysAhead(130), check_out: daysAhead(131), guest: { name: 'A', mobile: '9' }, pricing: { total: 100 } }),
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const id = ((await res.json()) as { data: { id: number } }).data.id;
    expect(id).toBeGreaterThan(Math.max(...ids));
    recovered.child.kill('SIGTERM');
    expect(await bounded(recovered.exit, TIMEOUT_MS, () => recovered.stderr)).toBe(0);
    // Afterwards it starts without --recover.
    const again = launch(dir);
    await serving(again);
    again.child.kill('SIGTERM');
    expect(await bounded(again.exit, TIMEOUT_MS, () => again.stderr)).toBe(0);
  });
});

describe('npm start --data DIR: every start-up failure is `error: …` and exit 2, naming the file (issue 17)', () => {
  /** A directory a simulator started in, created a world (sealed webhook secrets) and stopped cleanly. */
  async function stopped(): Promise<string> {
    const dir = tempDir();
    const first = launch(dir);
    await serving(first);
    first.child.kill('SIGTERM');
    expect(await bounded(first.exit, TIMEOUT_MS, () => first.stderr)).toBe(0);
    return dir;
  }

  async function refused(dir: string, message: RegExp): Promise<void> {
    const before = readdirSync(dir).sort().map((n) => [n, readFileSync(join(dir, n), 'utf8')]);
    const run = launch(dir);
    expect(await bounded(run.exit, TIMEOUT_MS, () => run.stderr)).toBe(2);
    expect(run.stderr).toMatch(/^error: /);
    expect(run.stderr).toMatch(message);
    expect(run.stderr, 'no stack trace').not.toMatch(/\n\s+at /);
    expect(run.stdout).not.toContain('base URL');
    expect(readdirSync(dir).sort().map((n) => [n, readFileSync(join(dir, n), 'utf8')]), 'nothing is re-keyed or overwritten').toEqual(before);
  }

  it('vault.key deleted while sealed secrets exist: refuses to start, naming the file and what to do', async () => {
    const dir = await stopped();
    rmSync(join(dir, 'vault.key'));
    await refused(dir, /vault\.key is missing, but the data directory holds \d+ webhook secret\(s\) sealed with it\. Restore it from a backup/);
  });

  it.each([
    ['truncated', (key: string) => key.slice(0, 20)],
    ['replaced by another key', () => 'ab'.repeat(32)],
    ['not hex', () => 'z'.repeat(64)],
  ])('vault.key %s: refuses to start, naming the file', async (_name, damage) => {
    const dir = await stopped();
    writeFileSync(join(dir, 'vault.key'), damage(readFileSync(join(dir, 'vault.key'), 'utf8').trim()) + '\n');
    await refused(dir, /vault\.key (is damaged|does not open the webhook secrets)/);
  });

  it('demo-credentials.json that is not JSON: refuses to start, naming the file', async () => {
    const dir = await stopped();
    writeFileSync(join(dir, 'demo-credentials.json'), '{"staffToken": "stf_');
    await refused(dir, /demo-credentials\.json is damaged/);
  });

  it('an emptied newest journal: refuses to start, naming the file', async () => {
    const dir = await stopped();
    const journal = readdirSync(dir).filter((n) => /^journal\.\d+\.log$/.test(n)).sort().at(-1)!;
    writeFileSync(join(dir, journal), '');
    await refused(dir, new RegExp(`${journal.replace(/\./g, '\\.')} has lost its header line`));
  });

  it('--data naming a regular file: refuses to start with the cause, not a stack trace', async () => {
    const file = join(tempDir(), 'not-a-directory');
    writeFileSync(file, 'x');
    const run = launch(file);
    expect(await bounded(run.exit, TIMEOUT_MS, () => run.stderr)).toBe(2);
    // Refused before the store opens: the message names the flag, the path and the cause.
    expect(run.stderr).toMatch(/^error: --data cannot create ".*not-a-directory": .*(EEXIST|ENOTDIR)/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it.runIf(existsSync('/proc/self'))('--data under /proc: refuses to start with the cause instead of hanging', async () => {
    const run = launch('/proc/no-such-dir/data');
    expect(await bounded(run.exit, TIMEOUT_MS, () => run.stderr)).toBe(2);
    expect(run.stderr).toMatch(/^error: --data cannot create "\/proc\/no-such-dir\/data": .*ENOENT/);
  });

  // Root ignores directory permissions: this one runs where the tests do not run as root.
  it.runIf(process.getuid?.() !== 0)('a read-only data directory: refuses to start with the cause, not a stack trace', async () => {
    const dir = await stopped();
    const { chmodSync } = await import('node:fs');
    chmodSync(dir, 0o500);
    try {
      const run = launch(dir);
      expect(await bounded(run.exit, TIMEOUT_MS, () => run.stderr)).toBe(2);
      expect(run.stderr).toMatch(/^error: .*(EACCES|permission denied)/i);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    } finally {
      chmodSync(dir, 0o700);
    }
  });
});
