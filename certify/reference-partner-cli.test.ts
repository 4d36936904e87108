/**
 * The reference partner's command line, as a partner meets it in a second
 * shell: misuse exits 2 with `error: …` naming the flag or the file, never a
 * stack trace.
 */
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { nodeArgs } from '../build/node-command.ts';

const ROOT = new URL('..', import.meta.url).pathname;

function run(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [...nodeArgs('certify/reference-partner-cli.ts'), ...args], { cwd: ROOT }, (error, out, err) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, out, err });
    });
  });
}

describe('reference-partner-cli', () => {
  it('--help prints every flag and exits 0', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    for (const flag of ['--credentials', '--port', '--state-port', '--state-dir', '--reconcile-seconds', '--replay-seconds', '--break']) expect(r.out).toContain(flag);
  });

  it.each([
    [['--bogus'], /^error: unknown option --bogus\n/],
    [[], /^error: --credentials FILE \(the certification file\) is required/],
    [['--credentials', '/nonexistent/certify.json'], /^error: --credentials cannot read "\/nonexistent\/certify.json": ENOENT/],
    [['--credentials', '/x', '--break', 'nope'], /^error: --breakage must be one of /],
    [['--credentials', '/x', '--reconcile-seconds', '0'], /^error: --reconcile-seconds must be a number of seconds/],
    [['--credentials', '/x', '--replay-seconds', 'often'], /^error: --replay-seconds must be a number of seconds, at least 1; got often/],
  ])('%j exits 2 naming the cause, no stack', async (args, message) => {
    const r = await run(args);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.err).not.toMatch(/\n\s+at /);
  });
});
