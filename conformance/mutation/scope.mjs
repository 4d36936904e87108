// @ts-check
/**
 * What the mutation run scores, who may kill each part, and what it leaves
 * out with its one-line reason (issue 40). Both Stryker configurations read
 * their `mutate` lists from here (stryker.config.mjs: the conformance suite's
 * bite; stryker.own-tests.config.mjs: the simulator's own tests), and the
 * summary counts every area, and every file or region left out, from the same
 * lists, so nothing is out of the table by being out of a glob.
 *
 * Plain JavaScript: Stryker loads its configuration without tsx.
 */
import { readFileSync } from 'node:fs';

/**
 * @typedef {'suite' | 'own-tests'} Killer
 *   suite: only the conformance suite may kill (each check one vitest test, in-process);
 *   own-tests: the simulator's own tests (the store contract and the drills that run in-process), a second score reported apart.
 * @typedef {{ area: string, killer: Killer, files: string[], note?: string }} Area
 * @typedef {{ files: string, reason: string }} Outside
 */

/**
 * `dir/**` (every .ts file below, tests apart) or one file, or one file's region `file:FROM-TO` (lines, as Stryker reads them).
 * @type {Area[]}
 */
export const AREAS = [
  { area: 'domain rules', killer: 'suite', files: ['simulator/domain/**'] },
  { area: 'HTTP layer', killer: 'suite', files: ['simulator/http/**'] },
  { area: 'webhook delivery', killer: 'suite', files: ['simulator/webhooks/**'] },
  // §5.5/§5.7 pause, disable, rotation, coverage, staff booking transitions and their booking.changed: a partner sees each through the API.
  { area: 'staff and control planes', killer: 'suite', files: ['simulator/staff/**', 'simulator/control/**'] },
  // §5.4's v1= values and the platform calendar. Shared with the suite (it computes dates with calendar.ts):
  // a mutant both sides run alike can only be caught by a check that pins the document's own values.
  { area: 'protocol', killer: 'suite', files: ['protocol/**'], note: 'shared with the suite: a mutant both sides run alike survives unless a check pins the document\'s values' },
  // Every §8 limit the simulator enforces from spec/openapi.yaml passes through the loader (the YAML's own values: the contract mutator).
  // Shared with the suite's response checks, like protocol/.
  { area: 'contract loader', killer: 'suite', files: ['spec/contract.ts', 'spec/discriminator.ts', 'spec/field-errors.ts'], note: 'shared with the suite\'s response checks' },
  // The wiring: which store, clock, workers and routers a simulator gets; the background sync; npm start's idempotency key sweep (§8 24 hours).
  { area: 'wiring', killer: 'suite', files: ['simulator/simulator.ts', 'simulator/sync-worker.ts', region('simulator/cli.ts', '// Forget idempotency keys past their 24 hours', '}, 10 * 60_000).unref();')], note: 'the key sweep runs only under npm start: the in-process run does not reach it' },
  // The durability of every acknowledged write: a partner never reaches a store mutant in a fresh in-memory world per check.
  { area: 'store', killer: 'own-tests', files: ['simulator/store/**'] },
];

/** Left out of both runs, each with why. Counted in the summary (mutants Stryker would make there). @type {Outside[]} */
export const OUTSIDE = [
  { files: '**/*.test.ts', reason: 'unit tests are not behaviour' },
  { files: 'simulator/domain/faults.ts', reason: 'the fault catalogue (names and a Set): its mutants only rename a fault or turn faults on (conformance --mutants proves those caught)' },
  { files: 'simulator/faults.ts', reason: 'the fault middleware: runs only with --fault, off in the run (conformance --mutants proves each fault caught)' },
  { files: 'simulator/webhooks/receiver.ts', reason: 'the loopback receiver is the suite\'s own instrument (it judges deliveries): its mutants weaken the judge, never the simulator' },
  { files: 'simulator/webhooks/receiver-cli.ts', reason: 'the receiver\'s command line (npm run receiver): a tool around that instrument' },
  { files: 'simulator/call-journal.ts', reason: 'certify\'s instrument (the record of partner calls it grades usage from), not an answer a partner gets' },
  // The listening server's transport below the API (issue 17/29): no request the document describes reaches it (§7 covers requests that reach the API).
  { files: 'simulator/http/node-refusals.ts', reason: 'the envelope for what Node\'s HTTP parser refuses: not HTTP the API reads, no rule of the document' },
  { files: 'simulator/http/server-timeouts.ts', reason: 'socket time limits below the API: no rule of the document' },
  { files: 'simulator/http/server.ts', reason: 'the listening server\'s wiring of those two; the in-process target listens with Koa\'s own server' },
  { files: 'simulator/store/store.contract.ts', reason: 'the store contract is test code (the cases the own-tests score runs)' },
  { files: 'simulator/store/test-support.ts', reason: 'starts, calls and kills simulator processes for the store\'s process tests: test code, left out of the package too' },
  { files: 'simulator/store/pg-cluster.ts', reason: 'starts a throwaway PostgreSQL cluster for tests and npm run sandbox: tooling, not the store' },
  { files: 'simulator/demo-world.ts', reason: 'the seeded world\'s data (fixtures): no rule' },
  { files: 'simulator/testing.ts', reason: 'helpers of the project\'s unit tests' },
  { files: 'simulator/start-simulator.ts', reason: 'the library\'s startSimulator (listen and seed): the in-process target does the same from targets.ts' },
  { files: 'simulator/sandbox.ts', reason: 'npm run sandbox\'s processes and watchdog: its tests start processes, where Stryker\'s switched mutant does not reach' },
  { files: 'simulator/vault-key.ts', reason: 'the data directory\'s key file (refusals to start): its tests start npm start as a process, where Stryker\'s switched mutant does not reach' },
  { files: 'simulator/cli.ts', reason: 'npm start\'s flags, messages and start-up (all but the key sweep, scored under wiring): its tests start processes, where Stryker\'s switched mutant does not reach' },
  { files: 'spec/yaml-cache.ts', reason: 'a cache of the YAML parse keyed by the text\'s SHA-256: no rule' },
  { files: 'spec/document-tables.ts', reason: 'the document\'s tables transcribed for the spec\'s own tests; the simulator reads one constant (API_VERSION)' },
  { files: 'spec/clauses.ts', reason: 'the suite\'s clause list, not the simulator' },
  { files: 'spec/print-assumptions.ts', reason: 'npm run spec:assumptions: prints the x-assumptions' },
  // The suite's judges in protocol/: no simulator code imports them (conformance/, watch/ and the receiver above do).
  { files: 'protocol/conflict-body.ts', reason: 'the suite\'s judge of a 409 body (booking.conflict-body, watch): its mutants weaken the judge, never the simulator; watch\'s unit tests and the fault catalogue (conformance --mutants) hold it' },
  { files: 'protocol/delivery-problems.ts', reason: 'the suite\'s judge of a delivery (the loopback receiver, watch): its mutants weaken the judge, never the simulator; watch\'s and the receiver\'s unit tests and the fault catalogue (conformance --mutants) hold it' },
  { files: 'protocol/list-page.ts', reason: 'the suite\'s judge of a GET /bookings page (pagination checks, watch): its mutants weaken the judge, never the simulator; its own and watch\'s unit tests and the fault catalogue (conformance --mutants) hold it' },
  { files: 'protocol/resend-rule.ts', reason: 'which request a client sends again after a lost connection (RFC 9110 §9.2.2, §4.5\'s keyed create): the suite\'s and the sandbox proxy\'s clients, never an answer of the platform; conformance/resend.test.ts holds it' },
  { files: 'spec/assumptions.ts', reason: 'the list of x-assumptions npm run spec:assumptions prints (moved out of the contract loader): no simulator or suite code reads it' },
];

/** The roots whose .ts files the summary accounts for: each is in an area or left out with a reason. */
export const ROOTS = ['simulator', 'protocol', 'spec'];

/**
 * `file:FROM-TO`: the lines from the one after `after` to the one holding `last` (Stryker's line-range syntax).
 * Lines move, code stays: the region is found by its code each time the configuration loads.
 * @param {string} file
 * @param {string} after
 * @param {string} last
 */
export function region(file, after, last) {
  const lines = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8').split('\n');
  const from = lines.findIndex((l) => l.includes(after));
  const to = lines.findIndex((l, i) => i > from && l.includes(last));
  if (from < 0 || to < 0) throw new Error(`conformance/mutation/scope.mjs: the region of ${file} after "${after}" to "${last}" is gone (the code changed: look again)`);
  return `${file}:${from + 2}-${to + 1}`;
}

/**
 * Stryker's `mutate` list for one killer: the areas' files as globs, then every left-out file as a `!` glob.
 * With `area`, that area's files alone (a slice of the killer's whole run: `npm run mutation -- --area`).
 * @param {Killer} killer
 * @param {string} [area]
 * @returns {string[]}
 */
export function mutateFor(killer, area) {
  const chosen = AREAS.filter((a) => a.killer === killer && (area === undefined || a.area === area));
  if (chosen.length === 0) throw new Error(`conformance/mutation/scope.mjs: no area ${JSON.stringify(area)} killed by ${killer} (areas: ${AREAS.filter((a) => a.killer === killer).map((a) => a.area).join(', ')})`);
  const globs = chosen.flatMap((a) => a.files.map((f) => (f.endsWith('/**') ? `${f}/*.ts` : f)));
  // A left-out file that is also a region's file (cli.ts) keeps its region: Stryker's `!file` would drop it whole.
  const regions = new Set(globs.filter((g) => /:\d+-\d+$/.test(g)).map((g) => g.replace(/:\d+-\d+$/, '')));
  const out = OUTSIDE.filter((o) => !regions.has(o.files)).map((o) => `!${o.files.endsWith('/**') ? `${o.files}/*.ts` : o.files}`);
  return [...globs, ...out];
}

/**
 * Which area a file (or a line of it) is in, else the left-out entry that holds it, else undefined (a file nobody placed).
 * @param {string} file a path from the repository root
 * @param {number} [line] 1-based
 * @returns {{ area: Area } | { outside: Outside } | undefined}
 */
export function placeOf(file, line) {
  const out = OUTSIDE.find((o) => matches(o.files, file));
  if (out && out.files === '**/*.test.ts') return { outside: out };
  for (const area of AREAS) {
    for (const f of area.files) {
      const m = /^(.*):(\d+)-(\d+)$/.exec(f);
      if (m) {
        if (m[1] === file && (line === undefined || (line >= Number(m[2]) && line <= Number(m[3])))) return { area };
      } else if (matches(f, file) && !out) return { area };
    }
  }
  return out ? { outside: out } : undefined;
}

/**
 * `dir/**` holds every .ts file below dir; `**\/*.test.ts` every test; otherwise the exact file.
 * @param {string} pattern
 * @param {string} file
 */
export function matches(pattern, file) {
  if (pattern === '**/*.test.ts') return file.endsWith('.test.ts');
  if (pattern.endsWith('/**')) return file.startsWith(pattern.slice(0, -2)) && file.endsWith('.ts');
  return pattern === file;
}
