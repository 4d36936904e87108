/** The longest-first order of `npm test` names files that exist and that the run includes, each once. */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import config from '../vitest.config.ts';
import { LONGEST_FIRST, LongestFirstSequencer } from './longest-first.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

describe('the longest-first order', () => {
  it.each(LONGEST_FIRST)('%s exists and is one of the run\'s files', (file) => {
    expect(existsSync(`${ROOT}${file}`)).toBe(true);
    expect(file).toMatch(/\.test\.ts$/);
    const folders = /^\{([^}]+)\}\/\*\*\/\*\.test\.ts$/.exec(config.test!.include![0]!)![1]!.split(',');
    expect(folders).toContain(file.split('/')[0]);
  });

  it('names each file once', () => {
    expect(new Set(LONGEST_FIRST).size).toBe(LONGEST_FIRST.length);
  });

  it('is the sequencer the run uses', () => {
    expect(config.test!.sequence!.sequencer).toBe(LongestFirstSequencer);
  });

  it('starts the listed files first, in the listed order, and keeps the order of the others', async () => {
    const spec = (file: string) => ({ moduleId: `${ROOT}${file}`, project: { name: '', config: { root: ROOT, isolate: true, sequence: { groupOrder: 0 } } } });
    const files = ['a/one.test.ts', LONGEST_FIRST[2], 'b/two.test.ts', LONGEST_FIRST[0]].map(spec);
    const cache = { getFileTestResults: () => undefined, getFileStats: () => undefined };
    const sequencer = new LongestFirstSequencer({ cache, config: { root: ROOT } } as never);
    const sorted = await sequencer.sort(files as never);
    expect(sorted.map((s) => s.moduleId.slice(ROOT.length))).toEqual([LONGEST_FIRST[0], LONGEST_FIRST[2], 'a/one.test.ts', 'b/two.test.ts']);
  });
});
