/** Not-applicable checks grouped by what to add (issue 41 item 3), computed from declared needs and wants, never from reason strings. */
import { describe, expect, it } from 'vitest';
import { catalogue } from './catalogue.ts';
import type { Addition, CheckResult } from './types.ts';
import { additionsFor, whatToAdd, type Declared, type RunHas } from './what-to-add.ts';

const readOnly: RunHas = { kind: 'live', capabilities: ['read'], properties: false, credentials: ['apiKey'] };
const withControl: RunHas = { ...readOnly, capabilities: ['read', 'control:clock.advance'], properties: true };

const cases: Array<[string, { check: Declared; has: RunHas; want: Addition[] }]> = [
  ['a write check on a read-only live run needs writes and a property', { check: { id: 'a', needs: ['write'] }, has: readOnly, want: ['write', 'property'] }],
  ['with a property named, writes alone', { check: { id: 'a', needs: ['write'] }, has: { ...readOnly, properties: true }, want: ['write'] }],
  ['several control actions without a plane are one addition: the plane', { check: { id: 'a', needs: ['read', 'control:rates.set', 'control:clock.advance'] }, has: readOnly, want: ['control'] }],
  ['with a plane, the actions it does not offer, each', { check: { id: 'a', needs: ['control:rates.set', 'control:clock.advance'] }, has: withControl, want: ['control:rates.set'] }],
  ['a want the run met adds nothing', { check: { id: 'a', needs: ['read'], wants: ['otherApiKey'] }, has: { ...readOnly, credentials: ['apiKey', 'otherApiKey'] }, want: [] }],
  ['an unmet want is added', { check: { id: 'a', needs: ['read'], wants: ['disabledApiKey'] }, has: readOnly, want: ['disabledApiKey'] }],
  ['in-process a want of write is met', { check: { id: 'a', needs: ['read'], wants: ['write'] }, has: { kind: 'in-process', capabilities: ['read', 'write'], properties: true, credentials: [] }, want: [] }],
];

describe('what to add for a not-applicable check', () => {
  it.each(cases)('%s', (_name, { check, has, want }) => {
    expect(additionsFor(check, has)).toEqual(want);
  });
});

describe('the not-applicable checks grouped by what to add', () => {
  const na = (id: string, reason: string): CheckResult => ({ id, title: id, suite: 's', clauses: [], level: 'normative', outcome: 'not_applicable', reason, exchanges: [], replay: '', ms: 0 });

  it('groups by the declared additions, whatever the reason strings say, largest first; nothing to add comes last', () => {
    const checks: Declared[] = [
      { id: 'w1', needs: ['write'] }, { id: 'w2', needs: ['write'] }, { id: 'e1', needs: ['read'], wants: ['write'] },
      { id: 'c1', needs: ['control:a'] }, { id: 'c2', needs: ['control:b', 'control:c'] }, { id: 'data', needs: ['read'] },
    ];
    const results = [na('w1', 'x'), na('w2', 'y'), na('e1', 'the event log is empty'), na('c1', 'p'), na('c2', 'q'), na('data', 'no free night')];
    const groups = whatToAdd(checks, results, readOnly);
    expect(groups.map((g) => [g.label, g.checks])).toEqual([
      ['--allow-writes --property ID', ['w1', 'w2', 'e1']],
      ['the control plane (--control-url, --control-token)', ['c1', 'c2']],
      ['nothing to add: the platform held no data they could judge (each reason is in the report)', ['data']],
    ]);
  });

  it('a read-only live run of the catalogue: every group names what to add, and the counts add up to the not-applicable checks', () => {
    const all = catalogue();
    const results = all.filter((c) => c.needs.some((n) => n !== 'read')).map((c) => na(c.id, 'r'));
    const groups = whatToAdd(all, results, readOnly);
    expect(groups.reduce((n, g) => n + g.checks.length, 0)).toBe(results.length);
    expect(groups.every((g) => g.add.length > 0)).toBe(true);
    // The control plane is named once per group, never once per action.
    expect(groups.filter((g) => /control action/.test(g.label))).toEqual([]);
  });
});
