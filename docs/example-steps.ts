/**
 * What docs/examples.test.ts does with each block of a page, decided from
 * the page alone: which command lines run in the foreground, which start in
 * the background (and what they print once ready), which run with --help
 * instead, which files a ```js or ```ts block becomes, and which blocks are
 * samples. The rules are stated in docs/examples.test.ts's header; this file
 * applies them. Pure: text in, steps out.
 */
import { shellCommands, type CodeBlock } from './doc-page.ts';

/** Fixed ports the pages use; each is replaced by a free port for the run (the same one throughout a page). */
export const PAGE_PORTS = [4010, 4011, 4020, 4030, 8787, 8788] as const;

/** A command that keeps running: how to know it is ready, and whether it ends by itself. */
interface LongRunning {
  match: RegExp;
  /** An extended regular expression its output matches once it is ready (a line of what it prints then, never of its usage). */
  ready: string;
  /** `server`: stopped at the end of the page; `run`: ends by itself, awaited before the next foreground command. */
  kind: 'server' | 'run';
  /** The port it takes when the command names none (replaced like the pages' ports). */
  defaultPort?: (typeof PAGE_PORTS)[number];
}

const LONG_RUNNING: LongRunning[] = [
  { match: /^(npm start\b|npm run partner-api -- sim\b|npx partner-api sim\b)/, ready: '^  base URL +http', kind: 'server', defaultPort: 4010 },
  { match: /^(npm run receiver\b|npm run partner-api -- receiver\b|npx partner-api receiver\b)/, ready: '^receiving on http', kind: 'server', defaultPort: 4020 },
  { match: /certify\/reference-partner-cli\.ts/, ready: '^webhook http', kind: 'run' },
  { match: /^(npm run certify\b|npm run partner-api -- certify\b|npx partner-api certify\b)/, ready: '^  credentials file +/', kind: 'run' },
  { match: /^(npm run watch\b|npm run partner-api -- watch\b|npx partner-api watch\b)/, ready: '^watch: proxy http', kind: 'server' },
];

export type Step =
  | { kind: 'foreground'; line: number; shown: string; command: string; expectedExit: number }
  | { kind: 'background'; line: number; shown: string; command: string; expectedExit: number; ready: string; ends: 'server' | 'run' };

export interface PagePlan {
  steps: Step[];
  /** Files the ```js/```ts blocks become, written in the page's directory before it runs. */
  files: { name: string; content: string; line: number }[];
  /** Blocks that equal a repository file (run by the test the marker names). */
  sameAs: { file: string; body: string; line: number; reason: string }[];
  /** What is not run as written, with the page's reason: `help` blocks and `not-run` blocks. */
  notAsWritten: { line: number; mode: 'help' | 'not-run'; reason: string }[];
  /** Sample blocks (text, json, yaml): shown, never run. */
  samples: number;
}

const SAMPLE_LANGS = new Set(['text', 'json', 'yaml']);

/** The page's plan; a block the rules cannot place throws, naming its line. */
export function planPage(blocks: CodeBlock[], ports: ReadonlyMap<number, number>): PagePlan {
  const plan: PagePlan = { steps: [], files: [], sameAs: [], notAsWritten: [], samples: 0 };
  for (const b of blocks) {
    const where = `line ${b.line}`;
    if (SAMPLE_LANGS.has(b.lang)) {
      if (b.mode !== 'run') throw new Error(`${where}: a ${b.lang} block is a sample; it takes no example marker`);
      plan.samples++;
      continue;
    }
    if (b.lang === 'python') {
      // Like a js block: written to the file its first line names, run by a later command (python3 NAME.py).
      if (b.mode !== 'run') throw new Error(`${where}: a python block is written to a file and run by a later command; ${b.mode} does not apply`);
      const name = /^# ([\w.-]+\.py)\b/.exec(b.body)?.[1];
      if (!name) throw new Error(`${where}: a python block starts with "# NAME.py", the file a later command runs`);
      plan.files.push({ name, content: `${b.body}\n`, line: b.line });
      continue;
    }
    if (b.lang === 'js' || b.lang === 'ts') {
      if (b.mode === 'file') {
        if (!b.file) throw new Error(`${where}: the file marker names no file`);
        plan.sameAs.push({ file: b.file, body: b.body, line: b.line, reason: b.reason });
        continue;
      }
      if (b.mode !== 'run') throw new Error(`${where}: a ${b.lang} block is written to a file and run by a later command; ${b.mode} does not apply`);
      const name = /^\/\/ ([\w.-]+\.(?:mjs|cjs|js|ts))\b/.exec(b.body)?.[1];
      if (!name) throw new Error(`${where}: a ${b.lang} block starts with "// NAME.${b.lang === 'js' ? 'mjs' : 'ts'}", the file a later command runs`);
      plan.files.push({ name, content: `${b.body}\n`, line: b.line });
      continue;
    }
    if (b.lang !== 'sh') throw new Error(`${where}: a block is sh (run), js, ts or python (a file a command runs), or text, json or yaml (a sample), not "${b.lang}"`);
    if (b.mode === 'file') throw new Error(`${where}: the file marker is for js and ts blocks`);
    if (b.mode === 'not-run') {
      plan.notAsWritten.push({ line: b.line, mode: 'not-run', reason: b.reason });
      continue;
    }
    if (b.mode === 'help') plan.notAsWritten.push({ line: b.line, mode: 'help', reason: b.reason });
    for (const c of shellCommands(b.body, b.line + 1)) {
      // curl exits 0 on a 4xx or 5xx: without --fail-with-body a wrong example would pass.
      if (/(^|[\s;|&(])curl\s/.test(c.text) && !/\s--fail(-with-body)?\b/.test(c.text)) throw new Error(`line ${c.line}: curl needs --fail-with-body, or its example cannot fail`);
      let command = withPorts(c.text, ports);
      if (b.mode === 'help') {
        const npmScript = /^npm (start|run \S+)\b/.test(command) && !/ -- /.test(command);
        plan.steps.push({ kind: 'foreground', line: c.line, shown: c.text, command: `${command}${npmScript ? ' -- --help' : ' --help'}`, expectedExit: 0 });
      } else if (b.mode === 'background') {
        const rule = LONG_RUNNING.find((r) => r.match.test(command));
        if (!rule) throw new Error(`line ${c.line}: no rule says when "${c.text}" is ready (docs/example-steps.ts LONG_RUNNING)`);
        if (rule.defaultPort && !/--port\b/.test(command)) command += ` --port ${ports.get(rule.defaultPort)}`;
        plan.steps.push({ kind: 'background', line: c.line, shown: c.text, command, expectedExit: c.expectedExit, ready: rule.ready, ends: rule.kind });
      } else {
        plan.steps.push({ kind: 'foreground', line: c.line, shown: c.text, command, expectedExit: c.expectedExit });
      }
    }
  }
  for (const f of plan.files) {
    if (!plan.steps.some((s) => s.command.includes(f.name))) throw new Error(`line ${f.line}: ${f.name} is written but no command of the page runs it`);
  }
  return plan;
}

/** The pages' fixed ports replaced by the run's (a port is a whole number, not part of a longer one). */
export function withPorts(text: string, ports: ReadonlyMap<number, number>): string {
  let out = text;
  for (const [fixed, free] of ports) out = out.replace(new RegExp(`(?<![\\d.])${fixed}(?!\\d)`, 'g'), String(free));
  return out;
}
