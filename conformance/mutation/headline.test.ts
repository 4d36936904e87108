/**
 * The headline's page (issue 40 item 6): a whole run made of slices
 * (`npm run mutation -- --area`) says which slice last measured each area.
 */
import { describe, expect, it } from 'vitest';
import { headlineMarkdown, withCommittedOwnTests, type AreaRow, type Headline } from './headline.ts';

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

  it('made with no report of the own tests, it keeps what the committed run measured of the store, over today\'s census, and names that run', () => {
    const fresh: Headline = { areas: [row('domain rules', 'suite'), { ...row('store', 'own-tests'), mutants: 2293, files: 13, measuredFiles: 0, scored: 0, detected: 0, score: null, notRun: 2293 }], ignoredReasons: [], outside: [], contract: null, provenance: { suite: { command: 'npm run mutation', when: '2026-12-03' }, ownTests: null, contract: null } };
    const measured = { command: 'npm run mutation -- --own-tests --mutate simulator/store/manifest.ts', when: '2026-12-02', minutes: 28 };
    const last: Headline = { ...fresh, areas: [row('domain rules', 'suite'), { ...row('store', 'own-tests'), mutants: 2234, files: 13, measuredFiles: 1, scored: 43, detected: 22, survived: 14, noCoverage: 7, score: 51.16, notRun: 2191 }], provenance: { suite: null, ownTests: measured, contract: null } };
    const kept = withCommittedOwnTests(fresh, last);
    expect(kept.areas[1]).toMatchObject({ area: 'store', mutants: 2293, measuredFiles: 1, scored: 43, detected: 22, survived: 14, noCoverage: 7, score: 51.16, notRun: 2250 });
    expect(kept.areas[0]).toBe(fresh.areas[0]);
    expect(kept.provenance).toEqual({ suite: fresh.provenance.suite, ownTests: measured, contract: null });
    // A committed summary that never measured the store leaves the row as it is.
    expect(withCommittedOwnTests(fresh, { ...last, provenance: { ...last.provenance, ownTests: null } })).toBe(fresh);
  });
});
