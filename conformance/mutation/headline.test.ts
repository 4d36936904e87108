/**
 * The headline's page (issue 40 item 6): a whole run made of slices
 * (`npm run mutation -- --area`) says which slice last measured each area.
 */
import { describe, expect, it } from 'vitest';
import { headlineMarkdown, type AreaRow, type Headline } from './headline.ts';

const row = (area: string, killer: AreaRow['killer']): AreaRow => ({
  area, killer, mutants: 10, ignored: 0, files: 1, measuredFiles: 1, scored: 10, detected: 10, survived: 0, noCoverage: 0, equivalent: 0, notReached: 0, notRun: 0, score: 100,
});
const page = (suite: Headline['provenance']['suite']) => headlineMarkdown({
  areas: [row('domain rules', 'suite'), row('protocol', 'suite'), row('wiring', 'suite'), row('store', 'own-tests')],
  ignoredReasons: [], outside: [], contract: null, provenance: { suite, ownTests: null, contract: null },
}).join('\n');

describe('the headline', () => {
  it('a run in slices names, per area the suite kills, the slice that last measured it, and "not run" where none did', () => {
    const text = page({
      command: 'npm run mutation -- --area "protocol"', when: '2026-12-03', minutes: 12,
      areas: {
        'domain rules': { command: 'npm run mutation', when: '2026-11-27', minutes: 44.1 },
        protocol: { command: 'npm run mutation -- --area "protocol"', when: '2026-12-03', minutes: 12 },
      },
    });
    expect(text).toContain('The suite\'s areas, each as last measured: domain rules: `npm run mutation` on 2026-11-27 (44.1 minutes); protocol: `npm run mutation -- --area "protocol"` on 2026-12-03 (12 minutes); wiring: not run.');
    expect(text).not.toMatch(/store: not run/);
  });

  it('a whole run measured every area at once: no line per area', () => {
    expect(page({ command: 'npm run mutation', when: '2026-11-27', minutes: 44.1 })).not.toContain('each as last measured');
  });
});
