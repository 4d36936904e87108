/**
 * Issue 38: no test's verdict depends on the machine's speed. A test waits for the events it needs; its only time
 * limit is the one cap of vitest.config.ts (far above the need, so a hung test still ends the run). A per-test
 * time-out below it is a budget a slow machine can run out of: this test names any that comes back.
 */
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import config from '../vitest.config.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function testFiles(): string[] {
  return execFileSync('git', ['ls-files', '*.test.ts'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
}

describe('test caps: one cap far above the need, no budget a slow machine runs out of', () => {
  it('the vitest config caps tests and hooks alike, at 30 minutes', () => {
    expect(config.test?.testTimeout).toBe(1_800_000);
    expect(config.test?.hookTimeout).toBe(1_800_000);
  });

  it('no test file gives a test, a hook or a child process a shorter time-out of its own', () => {
    const cap = config.test!.testTimeout!;
    const short: string[] = [];
    for (const file of testFiles()) {
      const text = readFileSync(`${ROOT}${file}`, 'utf8');
      const constants = namedMilliseconds(text);
      text.split('\n').forEach((line, i) => {
        // The closing line of it/test/describe/beforeAll with a time-out (a second or more: a shorter figure there closes a
        // timer, not a test), and a child process's `timeout:` option.
        for (const m of line.matchAll(/^\s*\}, ([0-9_]{4,})\);$|\btimeout: ([0-9_]{4,})\b/g)) {
          const ms = Number((m[1] ?? m[2])!.replaceAll('_', ''));
          if (ms < cap) short.push(`${file}:${i + 1}: ${line.trim()}`);
        }
        // The same closing line with a named figure (`}, PAGE_TIMEOUT_MS + 30_000);`): the names are the file's own constants.
        const named = /^\s*\}, ([A-Z][A-Z0-9_]*(?: \+ [A-Z0-9_]+)*)\);$/.exec(line);
        if (named) {
          const ms = named[1]!.split(' + ').reduce((sum, term) => sum + (/^[0-9_]+$/.test(term) ? Number(term.replaceAll('_', '')) : constants.get(term) ?? Number.NaN), 0);
          if (!(ms >= cap)) short.push(`${file}:${i + 1}: ${line.trim()}`);
        }
      });
    }
    expect(short).toEqual([]);
  });
});

/** `const NAME = 360_000;` and `const NAME = (A + 600) * 1000;` style figures of a file, in milliseconds where they resolve. */
function namedMilliseconds(text: string): Map<string, number> {
  const values = new Map<string, number>();
  for (const m of text.matchAll(/^const ([A-Z][A-Z0-9_]*) = ([^;]+);/gm)) {
    const expression = m[2]!.replace(/[A-Z][A-Z0-9_]*/g, (name) => String(values.get(name) ?? Number.NaN)).replaceAll('_', '');
    if (/^[0-9 ()+*.NaN-]+$/.test(expression)) values.set(m[1]!, Function(`return ${expression}`)() as number);
  }
  return values;
}
