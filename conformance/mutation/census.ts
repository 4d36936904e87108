/**
 * Every mutant Stryker would make in the simulator, protocol/ and spec/
 * (scope.mjs's ROOTS), counted without running anything: Stryker's own
 * instrumenter with the run's ignorer, file by file. The summary places each
 * by scope.mjs (an area, or left out with a reason), so a file outside the
 * globs is counted, not silent, and an area a run has not measured yet shows
 * how much it holds.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Instrumenter } from '@stryker-mutator/instrumenter';
import { strykerPlugins } from './ignorer.mjs';
import { ROOTS } from './scope.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CensusMutant {
  file: string;
  line: number;
  /** Left out by a `// Stryker disable` comment or the ignorer, with its reason. */
  ignored: string | null;
}

/** The .ts files under the roots (tests apart: their mutants are not counted, scope.mjs leaves them out whole). */
export function censusFiles(): string[] {
  return ROOTS.flatMap((root) => (readdirSync(`${ROOT}${root}`, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts'))
    .map((f) => `${root}/${f}`))
    .sort();
}

const quiet = new Proxy({}, { get: (_, name) => (String(name).startsWith('is') ? () => false : () => undefined) });

export async function census(files: string[] = censusFiles()): Promise<CensusMutant[]> {
  const instrumenter = new Instrumenter(quiet as never);
  const out: CensusMutant[] = [];
  for (const file of files) {
    const content = readFileSync(`${ROOT}${file}`, 'utf8');
    const { mutants } = await instrumenter.instrument([{ name: file, content, mutate: true }], { plugins: null, excludedMutations: [], ignorers: [strykerPlugins[0]!.value] });
    for (const m of mutants) out.push({ file, line: m.location.start.line + 1, ignored: m.status === 'Ignored' ? (m.statusReason ?? 'ignored') : null });
  }
  return out;
}
