/**
 * `partner-api`, the package's one command, run from source: every
 * subcommand answers --help, and misuse exits 2 with `error: …` naming the
 * flag (or the command) before anything runs.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function partnerApi(...args: string[]): { code: number | null; out: string; err: string } {
  const res = spawnSync(process.execPath, ['--import', 'tsx', 'cli/partner-api.ts', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'] });
  return { code: res.status, out: res.stdout, err: res.stderr };
}

const SUBCOMMANDS = ['sim', 'conformance', 'certify', 'scenario', 'receiver', 'watch', 'spec'];

describe('partner-api <command> --help prints the command\'s usage and exits 0', () => {
  it.each(SUBCOMMANDS)('%s --help', (command) => {
    const { code, out, err } = partnerApi(command, '--help');
    expect(err).toBe('');
    expect(out).toMatch(/^Usage:/);
    expect(code).toBe(0);
  });

  it('partner-api --help names every subcommand', () => {
    const { code, out } = partnerApi('--help');
    expect(code).toBe(0);
    for (const command of SUBCOMMANDS) expect(out).toMatch(new RegExp(`^  ${command} `, 'm'));
  });
});

/** [what, args, what the error must name] */
const MISUSE: [string, string[], string][] = [
  ['no command', [], 'name a command'],
  ['an unknown command', ['simulate'], '"simulate"'],
  ['an option before the command', ['--port', '1'], '"--port"'],
  ['sim: an unknown flag', ['sim', '--bogus'], '--bogus'],
  ['sim: a port that is not a number', ['sim', '--port', 'abc'], '--port'],
  ['sim: a data directory that cannot be made', ['sim', '--data', '/dev/null/world', '--port', '0'], '--data'],
  ['sim: a fault without --enable-faults', ['sim', '--memory', '--fault', 'unauthenticated-403'], '--fault'],
  ['sim: a reading that is not one', ['sim', '--memory', '--reading', 'nope'], '--reading'],
  ['conformance: a config file that is not there', ['conformance', '--config', '/nonexistent/staging.yaml'], '--config'],
  ['conformance: an unknown flag', ['conformance', '--bogus'], '--bogus'],
  ['conformance: runs that are not a number', ['conformance', '--runs', 'abc'], '--runs'],
  ['certify: an unknown flag', ['certify', '--bogus'], '--bogus'],
  ['certify: a port that is not a number', ['certify', '--webhook-url', 'http://127.0.0.1:1/', '--port', 'abc'], '--port'],
  ['certify: neither a webhook URL nor a certificate', ['certify'], '--webhook-url'],
  ['scenario: an unknown flag', ['scenario', '--bogus'], '--bogus'],
  ['scenario: an unknown breakage', ['scenario', 'happy-path', '--break', 'nope'], '--break'],
  ['receiver: an unknown flag', ['receiver', '--secret', 'whsec_x', '--bogus'], '--bogus'],
  ['receiver: a port that is not a number', ['receiver', '--secret', 'whsec_x', '--port', 'abc'], '--port'],
  ['receiver: no secret', ['receiver'], '--secret'],
  ['receiver: an unknown mode', ['receiver', '--secret', 'whsec_x', '--mode', 'sulk'], '--mode'],
  ['watch: an unknown flag', ['watch', '--bogus'], '--bogus'],
  ['watch: a port that is not a number', ['watch', '--upstream', 'http://127.0.0.1:1/api/integrations/v1', '--port', 'abc'], '--port'],
  ['watch: neither a live upstream nor a recording', ['watch'], '--upstream'],
  ['watch: a side that is not one', ['watch', '--jsonl', 'x.jsonl', '--side', 'both'], '--side'],
  ['spec: an unknown flag', ['spec', 'print', '--bogus'], '--bogus'],
  ['spec: an unknown document', ['spec', 'print', 'billing'], '"billing"'],
  ['spec: an unknown action', ['spec', 'publish'], '"publish"'],
  ['spec: --json without print', ['spec', 'path', '--json'], '--json'],
];

describe('misuse exits 2 with error: … naming the flag, and the usage', () => {
  it.each(MISUSE)('%s', (_what, args, named) => {
    const { code, out, err } = partnerApi(...args);
    expect(err).toMatch(/^error: /);
    expect(err.split('\n')[0]).toContain(named);
    expect(err).toContain('Usage:');
    expect(err).not.toMatch(/\n\s+at /); // no stack trace
    expect(out).toBe('');
    expect(code).toBe(2);
  });
});

describe('partner-api spec: the bundled documents, found beside the code, not in the working directory', () => {
  it.each([
    ['openapi', 'spec/openapi.yaml'],
    ['staff', 'spec/staff-openapi.yaml'],
    ['control', 'spec/control-openapi.yaml'],
  ])('spec path %s is %s', (name, file) => {
    const { code, out } = partnerApi('spec', 'path', name);
    expect(code).toBe(0);
    expect(out.trim()).toBe(fileURLToPath(new URL(`../${file}`, import.meta.url)));
  });

  it('scenario --list prints a header row, then one row per scenario with its number, name, live column and story', () => {
    const { code, out } = partnerApi('scenario', '--list');
    expect(code).toBe(0);
    const [header, ...rows] = out.trimEnd().split('\n');
    expect(header).toMatch(/^ # scenario +live +story$/);
    expect(rows.length).toBeGreaterThanOrEqual(8);
    for (const row of rows) expect(row).toMatch(/^ ?\d+ [a-z-]+ +(yes|no) +\S/);
  });

  it('spec print (default openapi) prints the document as it is; --json as JSON', () => {
    const yaml = partnerApi('spec', 'print');
    expect(yaml.code).toBe(0);
    expect(yaml.out).toMatch(/^openapi: 3\.1/);
    const json = partnerApi('spec', 'print', 'control', '--json');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out).openapi).toMatch(/^3\.1/);
  });

  it('spec lint validates the three bundled documents and exits 0', () => {
    const { code, out } = partnerApi('spec', 'lint');
    expect(out.match(/^valid {4}/gm)).toHaveLength(3);
    expect(code).toBe(0);
  });

  it('spec lint exits 1 naming a file that is not an OpenAPI document', () => {
    const { code, out } = partnerApi('spec', 'lint', 'openapi', 'package.json');
    expect(out).toMatch(/^valid .*openapi\.yaml$/m);
    expect(out).toMatch(/^INVALID {2}package\.json$/m);
    expect(code).toBe(1);
  });
});
