/**
 * Contract mutants recorded equivalent (contract-equivalents.yaml) count so
 * only while a run finds them surviving: a killed one stays killed, an
 * unreached one stays not reached (never equivalent), and an entry naming no
 * mutant of the document is an error. Equivalents are out of the score.
 */
import { describe, expect, it } from 'vitest';
import { contractDocument } from '../../spec/contract.ts';
import { judgeContract, parseContractEquivalents, readContractEquivalents } from './contract-equivalents.ts';
import { contractMutants } from './contract-mutants.ts';
import { contractScores, type ContractResult } from './contract-mutation.ts';

const result = (id: string, status: ContractResult['status'], keyword: ContractResult['keyword'] = 'maxLength'): ContractResult => ({ id, keyword, operations: ['op'], status, checksRun: [], cached: false, ...(status === 'Killed' ? { killedBy: 'a.check' } : {}) });

describe('contract mutants recorded equivalent', () => {
  it.each([
    ['an entry without a reason', [{ id: 'x' }], /needs reason/],
    ['a reason of two lines', [{ id: 'x', reason: '§1 a\nb' }], /one line/],
    ['a reason citing no clause', [{ id: 'x', reason: 'nothing sees it' }], /cites the § clause/],
    ['the same mutant twice', [{ id: 'x', reason: '§1' }, { id: 'x', reason: '§2' }], /recorded twice/],
  ] as const)('refuses %s', (_name, list, error) => {
    expect(() => parseContractEquivalents(list, 'here')).toThrow(error);
  });

  it('a survivor an entry names is equivalent; killed and not reached stay what they are, and are errors of the entry', () => {
    const entries = parseContractEquivalents([{ id: 'a', reason: '§4.3 otherwise 404' }, { id: 'b', reason: '§4.3' }, { id: 'c', reason: '§4.3' }, { id: 'gone', reason: '§4.3' }], 'here');
    const { results, errors } = judgeContract([result('a', 'Survived'), result('b', 'Killed'), result('c', 'NoCoverage'), result('d', 'Survived')], entries, ['a', 'b', 'c', 'd']);
    expect(results.map((r) => r.status)).toEqual(['Equivalent', 'Killed', 'NoCoverage', 'Survived']);
    expect(results[0]!.equivalentReason).toBe('§4.3 otherwise 404');
    expect(errors).toEqual([
      'gone: names no mutant of spec/openapi.yaml (the document changed: look again)',
      'b: recorded equivalent, but a.check killed it: remove the entry',
      'c: recorded equivalent, but no check sends its operation: not reached is not equivalent (reach it)',
    ]);
  });

  it('the score is killed over killed, survived and not reached; limits and defaults have a row of their own', () => {
    const rows = contractScores([
      { keyword: 'maxLength', status: 'Killed' }, { keyword: 'maxLength', status: 'Equivalent' }, { keyword: 'default', status: 'Killed' },
      { keyword: 'enum', status: 'Survived' }, { keyword: 'required', status: 'NoCoverage' },
    ]);
    expect(rows.find((r) => r.keyword === 'maxLength')).toMatchObject({ mutants: 2, killed: 1, equivalent: 1, score: 100 });
    expect(rows.find((r) => r.keyword === 'limits and defaults')).toMatchObject({ mutants: 3, killed: 2, equivalent: 1, score: 100 });
    expect(rows.at(-1)).toMatchObject({ keyword: 'all', mutants: 5, killed: 2, survived: 1, noCoverage: 1, equivalent: 1, score: 50 });
  });

  it('conformance/mutation/contract-equivalents.yaml names mutants of spec/openapi.yaml, each once, each with a § reason', () => {
    const ids = new Set(contractMutants(contractDocument()).map((m) => m.id));
    const entries = readContractEquivalents();
    expect(entries.filter((e) => !ids.has(e.id)).map((e) => e.id)).toEqual([]);
  });
});
