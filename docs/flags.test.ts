/**
 * Every flag of every command is on its page: each CLI's real option table
 * (its `parseArgs` options, caught by docs/parse-args-probe.mjs as the CLI
 * starts) against the table under `<!-- flags: COMMAND -->` on the command's
 * page. A flag the CLI has and the page lacks fails, named; so does a flag
 * the page documents that the CLI does not have. The `partner-api` command
 * itself has no option table: its flags are read from its --help. Also: every
 * route of spec/staff-openapi.yaml is in the staff table of docs/simulator.md.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { flagTable, routeTable } from './doc-page.ts';
import { nodeArgs } from '../build/node-command.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PROBE = fileURLToPath(new URL('parse-args-probe.mjs', import.meta.url));

/** Each command, the module that parses its flags, and its page. */
const COMMANDS = [
  { name: 'sim', argv: ['cli/partner-api.ts', 'sim'], page: 'docs/simulator.md' },
  { name: 'conformance', argv: ['cli/partner-api.ts', 'conformance'], page: 'docs/conformance.md' },
  { name: 'certify', argv: ['cli/partner-api.ts', 'certify'], page: 'docs/certification.md' },
  { name: 'scenario', argv: ['cli/partner-api.ts', 'scenario'], page: 'docs/scenarios.md' },
  { name: 'receiver', argv: ['cli/partner-api.ts', 'receiver'], page: 'docs/receiver.md' },
  { name: 'watch', argv: ['cli/partner-api.ts', 'watch'], page: 'docs/watch.md' },
  { name: 'spec', argv: ['cli/partner-api.ts', 'spec'], page: 'docs/contract.md' },
  { name: 'reference-partner', argv: ['certify/reference-partner-cli.ts'], page: 'docs/certification.md' },
  { name: 'bench', argv: ['bench/run.ts'], page: 'docs/benchmarks.md' },
  { name: 'sandbox', argv: ['simulator/sandbox.ts'], page: 'docs/shared-sandbox.md' },
] as const;

async function node(args: string[]): Promise<string> {
  return (await promisify(execFile)(process.execPath, args, { cwd: ROOT, encoding: 'utf8' })).stdout;
}

/** The flags the command's parseArgs call is given. */
async function cliFlags(argv: readonly string[]): Promise<Set<string>> {
  const [script, ...rest] = argv;
  const out = await node(['--import', PROBE, ...nodeArgs(script!), ...rest]);
  const line = /^parse-args-probe (.*)$/m.exec(out);
  if (!line) throw new Error(`${argv.join(' ')} printed no option table:\n${out}`);
  return new Set(JSON.parse(line[1]!) as string[]);
}

function page(file: string): string {
  return readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');
}

describe('every flag of every command is on its page', () => {
  it.concurrent.each(COMMANDS)('$name: each flag of the CLI is in the flags table of $page, and the table names no other', async ({ name, argv, page: file }) => {
    const cli = await cliFlags(argv);
    expect(cli.size, `${name}: the probe caught no flag`).toBeGreaterThan(0);
    const documented = flagTable(page(file), name);
    const missing = [...cli].filter((f) => !documented.has(f));
    expect(missing, `${file} lacks these flags of ${name}`).toEqual([]);
    const unknown = [...documented].filter((f) => !cli.has(f));
    expect(unknown, `${file} documents flags ${name} does not have`).toEqual([]);
  });

  it('partner-api: each flag its --help shows is in the README', async () => {
    const help = await node([...nodeArgs('cli/partner-api.ts'), '--help']);
    const flags = new Set([...help.matchAll(/(?<![\w-])(--[a-z][a-z0-9-]*)/g)].map((m) => m[1]!));
    expect(flags.size).toBeGreaterThan(0);
    const documented = flagTable(page('README.md'), 'partner-api');
    expect([...flags].filter((f) => !documented.has(f)), 'README.md lacks these flags of partner-api').toEqual([]);
    expect([...documented].filter((f) => !flags.has(f)), 'README.md documents flags partner-api does not have').toEqual([]);
  });

  it('the probe sees flags, not a guess: a CLI\'s option table as its source declares it', async () => {
    // The receiver's table, as written in simulator/webhooks/receiver-cli.ts.
    expect([...(await cliFlags(['cli/partner-api.ts', 'receiver']))].sort()).toEqual(['--help', '--mode', '--port', '--secret', '--slug']);
  });
});

describe('the staff plane on its page', () => {
  it('every route of spec/staff-openapi.yaml is in the staff table of docs/simulator.md, and no other', () => {
    const spec = parse(readFileSync(new URL('../spec/staff-openapi.yaml', import.meta.url), 'utf8')) as { paths: Record<string, Record<string, unknown>> };
    const specRoutes = new Set<string>();
    for (const [path, item] of Object.entries(spec.paths)) {
      for (const method of Object.keys(item)) if (['get', 'post', 'put', 'patch', 'delete'].includes(method)) specRoutes.add(`${method.toUpperCase()} ${path}`);
    }
    const documented = routeTable(page('docs/simulator.md'), 'staff');
    expect([...specRoutes].filter((r) => !documented.has(r)), 'docs/simulator.md lacks these staff routes').toEqual([]);
    expect([...documented].filter((r) => !specRoutes.has(r)), 'docs/simulator.md names staff routes the staff plane does not have').toEqual([]);
  });
});
