/**
 * Every process certify starts is stopped when it ends: the whole process
 * group of `--partner-command`, a child that ignores SIGTERM included.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { groupRunning, startPartnerProcess } from './partner-process.ts';

/** Running, not a zombie waiting to be reaped. */
function alive(pid: number): boolean {
  if (!existsSync(`/proc/${pid}/stat`)) return false;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return !['Z', 'X'].includes(stat.slice(stat.lastIndexOf(')') + 2)[0]!);
}

describe('partner process', () => {
  it('stop() ends the shell and every process it started, even one that ignores SIGTERM', async () => {
    const lines: string[] = [];
    // A grandchild that ignores SIGTERM, and the shell waiting on it.
    const p = startPartnerProcess('sh -c \'trap "" TERM; echo "child $$"; while :; do sleep 0.1; done\' & wait', { CERTIFY_CREDENTIALS: '/x' }, (l) => lines.push(l));
    for (const end = Date.now() + 300_000; !lines.some((l) => l.includes('child ')); await new Promise((ok) => setTimeout(ok, 20))) {
      if (Date.now() > end) throw new Error(`no output: ${lines.join('\n')}`);
    }
    const grandchild = Number(/child (\d+)/.exec(lines.join('\n'))![1]);
    expect(alive(grandchild)).toBe(true);
    await p.stop();
    expect(alive(p.pid)).toBe(false);
    expect(alive(grandchild)).toBe(false);
    expect(groupRunning(p.pid)).toBe(false);
    expect(lines.join('\n')).toMatch(/SIGKILL/);
  });

  it('a partner that stops on SIGTERM is stopped without SIGKILL', async () => {
    const lines: string[] = [];
    const p = startPartnerProcess('sleep 30 & wait', {}, (l) => lines.push(l));
    await new Promise((ok) => setTimeout(ok, 100));
    expect(groupRunning(p.pid)).toBe(true);
    await p.stop();
    expect(groupRunning(p.pid)).toBe(false);
    expect(lines.join('\n')).not.toMatch(/SIGKILL/);
  });

  it('the command sees the certification file in its environment', async () => {
    const lines: string[] = [];
    const p = startPartnerProcess('echo "file=$CERTIFY_CREDENTIALS"', { CERTIFY_CREDENTIALS: '/tmp/certify.json' }, (l) => lines.push(l));
    expect(await p.exited).toBe(0);
    await p.stop();
    expect(lines).toContain('  partner | file=/tmp/certify.json');
  });

  it('kill() is a crash: SIGKILL to the whole group at once, no SIGTERM handler runs', async () => {
    const lines: string[] = [];
    const p = startPartnerProcess('trap "echo got TERM" TERM; sh -c \'echo "child $$"; while :; do sleep 0.1; done\' & wait', {}, (l) => lines.push(l));
    for (const end = Date.now() + 300_000; !lines.some((l) => l.includes('child ')); await new Promise((ok) => setTimeout(ok, 20))) {
      if (Date.now() > end) throw new Error(`no output: ${lines.join('\n')}`);
    }
    const grandchild = Number(/child (\d+)/.exec(lines.join('\n'))![1]);
    await p.kill();
    expect(await p.exited).toBe('SIGKILL');
    expect(alive(grandchild)).toBe(false);
    expect(groupRunning(p.pid)).toBe(false);
    expect(lines.join('\n')).not.toMatch(/got TERM/);
    // Stopping what is already gone is a no-op.
    await p.stop();
  });
});
