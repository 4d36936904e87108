/**
 * Issue 41 item 6: no documented command line puts a secret on the command
 * line (npm echoes it: `> node … --api-key dlk_…`), and a secret given as a
 * flag is warned about, once, naming the variable, never echoing the value.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { nodeArgs } from '../build/node-command.ts';
import { SECRET_FLAGS, warnSecretFlags } from '../cli/secret-flags.ts';
import { CREDENTIAL_VARIABLES } from '../conformance/credential-variables.ts';
import { runWatch } from '../watch/command.ts';
import { codeBlocks, shellCommands } from './doc-page.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PAGES = ['README.md', ...readdirSync(`${ROOT}docs`).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
/** A recording watch judges (the replay gap of issue 41 item 2). */
const RECORDING = fileURLToPath(new URL('../watch/fixtures/replay-gap.jsonl', import.meta.url));
const FLAGS = [...new Set(Object.values(SECRET_FLAGS).flatMap((m) => Object.keys(m)))];

/** Every command line of a page's sh blocks that passes a secret flag a value, with its line. */
export function secretFlagsOn(markdown: string): string[] {
  const found: string[] = [];
  for (const b of codeBlocks(markdown).filter((x) => x.lang === 'sh')) {
    for (const c of shellCommands(b.body, b.line + 1)) {
      for (const flag of FLAGS) if (new RegExp(`(^|\\s)--${flag}(=|\\s+\\S)`).test(c.text)) found.push(`line ${c.line}: --${flag} in ${c.text}`);
    }
  }
  return found;
}

describe('no documented command line passes a secret as a flag', () => {
  it('the check finds one (a flag with a value, quoted or not, or with =)', () => {
    expect(secretFlagsOn('```sh\nnpm run conformance -- --target X --api-key "$KEY"\n```\n')).toHaveLength(1);
    expect(secretFlagsOn('```sh\nnpm run receiver -- --secret=whsec_x\n```\n')).toHaveLength(1);
    expect(secretFlagsOn('```sh\nPARTNER_API_KEY="$KEY" npm run conformance -- --target X\n```\n')).toEqual([]);
  });

  it.each(PAGES)('%s', (page) => {
    expect(secretFlagsOn(readFileSync(`${ROOT}${page}`, 'utf8'))).toEqual([]);
  });
});

describe('a secret given as a flag is warned about', () => {
  it('conformance names the variables of conformance/credential-variables.ts', () => {
    const known = new Set<string>(Object.values(CREDENTIAL_VARIABLES));
    for (const variable of Object.values(SECRET_FLAGS.conformance)) expect(known.has(variable), variable).toBe(true);
  });

  it('once per flag given, naming the variable, never the value', () => {
    const out: string[] = [];
    expect(warnSecretFlags('conformance', { 'api-key': 'dlk_secret', target: 'http://x' }, (t) => out.push(t))).toEqual(['api-key']);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(/^warning: --api-key .* set PARTNER_API_KEY in the environment instead/);
    expect(out.join('')).not.toContain('dlk_secret');
    expect(warnSecretFlags('conformance', { target: 'http://x' }, (t) => out.push(t))).toEqual([]);
  });

  it.each([
    ['receiver', 'simulator/webhooks/receiver-cli.ts', ['--secret', 'whsec_leak123'], 'PARTNER_WEBHOOK_SECRET'],
    ['certify', 'certify/cli.ts', ['--staff-token', 'stf_leak123'], 'PARTNER_STAFF_TOKEN'],
    ['conformance', 'conformance/cli.ts', ['--api-key', 'dlk_leak123'], 'PARTNER_API_KEY'],
    // Repeatable (the current and the previous secret): still one warning for the flag.
    ['watch', 'watch/cli.ts', ['--webhook-secret', 'whsec_leak123', '--webhook-secret', 'whsec_leak456'], 'PARTNER_WEBHOOK_SECRET'],
  ])('%s: on stderr, once, before anything else', async (_name, script, args, variable) => {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [...nodeArgs(script), ...args, '--help'], { cwd: ROOT, encoding: 'utf8' });
    expect(stderr.match(/^warning: /gm)).toHaveLength(1);
    expect(stderr).toContain(`set ${variable} in the environment instead`);
    expect(stderr + stdout).not.toContain('leak123');
    expect(stderr + stdout).not.toContain('leak456');
  });

  it('watch: on a run too (a recording judged), once, naming PARTNER_WEBHOOK_SECRET, never the value; a misuse gets its error alone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'secret-flags-watch-'));
    try {
      const run = async (args: string[]) => {
        let out = '';
        let err = '';
        const code = await runWatch([...args, '--report-dir', join(dir, 'reports')], { out: (t) => void (out += t), err: (t) => void (err += t), env: {} });
        return { code, out, err };
      };
      const judged = await run(['--jsonl', RECORDING, '--webhook-secret', 'whsec_leak789']);
      expect(judged.err.match(/^warning: /gm), judged.err).toHaveLength(1);
      expect(judged.err).toMatch(/^warning: --webhook-secret .* set PARTNER_WEBHOOK_SECRET in the environment instead/m);
      expect(judged.out + judged.err).not.toContain('leak789');
      const misuse = await run(['--jsonl', RECORDING, '--port', '4040', '--webhook-secret', 'whsec_leak789']);
      expect(misuse.code).toBe(2);
      expect(misuse.err).toMatch(/^error: --port is for a live watch/);
      expect(misuse.err).not.toContain('warning:');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
