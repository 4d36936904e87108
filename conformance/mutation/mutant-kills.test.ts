/**
 * The mutant half of the bite evidence: a killed mutant counts for the
 * clause its failure named only when the killing check names that clause.
 */
import { describe, expect, it } from 'vitest';
import { mergeKills, mutantKills } from './mutant-kills.ts';
import { clauseOf } from './summary.ts';

describe('mutant kills per clause', () => {
  it('counts a kill under the clause its failure named, when the killing check names it', () => {
    expect(clauseOf('UnexpectedStatus: received 200 for per_page=201 (query 4.4); documented 422 for per_page=201 (8.L1)')).toBe('8.L1');
    expect(clauseOf('TypeError: x is undefined')).toBeNull();
    const report = {
      files: { 'a.ts': { mutants: [
        { status: 'Killed', killedBy: ['t1'], statusReason: 'pagination.per-page-limits failed: UnexpectedStatus: received 200; documented 422 (8.L1)' },
        { status: 'Killed', killedBy: ['t1'], statusReason: 'failed: UnexpectedStatus: received 500; documented 201 (4.5.R8)' },
        { status: 'Survived' },
      ] } },
      testFiles: { 'c.test.ts': { tests: [{ id: 't1', name: 'pagination.per-page-limits' }] } },
    };
    expect(mutantKills(report)).toEqual({ '8.L1': 1 });
  });

  it('merges the kills of two partial runs clause by clause, keeping the larger count', () => {
    expect(mergeKills({ '4.5.R1': 2, '8.L1': 1 }, { '8.L1': 3, '2.1.R4': 1 })).toEqual({ '2.1.R4': 1, '4.5.R1': 2, '8.L1': 3 });
    expect(Object.keys(mergeKills({ '8.L10': 1 }, { '8.L2': 1 }))).toEqual(['8.L2', '8.L10']);
  });
});
