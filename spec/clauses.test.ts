import { readFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import { parse } from 'yaml';
import { clauseIds, loadClauses, type Clause } from './clauses.ts';

// The catalogue is the denominator of the conformance report: a rule missing
// here is a rule nobody notices is unchecked. These tests guard its shape and
// its coverage of the document's enumerable parts (part 7 codes, §4.5 rules,
// part 8 rows).

const clauses = loadClauses();

// <section>.<letter><n>[a-z]: sections are dotted numbers, letters per the header of clauses.yaml.
const ID_PATTERN = /^(\d+(?:\.\d+)*)\.([RTLECVQ])(\d+)([a-z])?$/;

// Letter and kind must agree, so a report grouping by kind matches grouping by id.
const KIND_OF_LETTER: Record<string, Clause['kind']> = {
  R: 'rule',
  V: 'rule',
  Q: 'rule',
  T: 'transition',
  L: 'limit',
  E: 'error',
  C: 'convention',
};

function byPrefix(prefix: string): Clause[] {
  return clauses.filter((c) => c.id.startsWith(prefix));
}

describe('clause catalogue format', () => {
  it('is for API version 2026-09', () => {
    // Read raw rather than through the loader: the loader exposes clauses only.
    const doc = parse(readFileSync(new URL('./clauses.yaml', import.meta.url), 'utf8')) as { version?: unknown };
    expect(doc.version).toBe('2026-09');
  });

  it('has unique ids', () => {
    const seen = new Map<string, number>();
    for (const c of clauses) seen.set(c.id, (seen.get(c.id) ?? 0) + 1);
    const dupes = [...seen].filter(([, n]) => n > 1).map(([id]) => id);
    expect(dupes).toEqual([]);
    expect(clauseIds().size).toBe(clauses.length);
  });

  it('gives every id the scheme <section>.<letter><n> starting with its own section', () => {
    const bad = clauses.filter((c) => {
      const m = ID_PATTERN.exec(c.id);
      return !m || m[1] !== c.section;
    });
    expect(bad.map((c) => `${c.id} (section ${c.section})`)).toEqual([]);
  });

  it('gives every clause the kind its id letter implies', () => {
    const bad = clauses.filter((c) => KIND_OF_LETTER[ID_PATTERN.exec(c.id)?.[2] ?? ''] !== c.kind);
    expect(bad.map((c) => `${c.id} is ${c.kind}`)).toEqual([]);
  });

  it('keeps every title and summary to one non-empty line', () => {
    const bad = clauses.filter((c) => /[\r\n]/.test(c.title + c.summary) || !c.title.trim() || !c.summary.trim());
    expect(bad.map((c) => c.id)).toEqual([]);
  });

  it('lists no "not shown" gap as a clause', () => {
    // Gaps are assumptions recorded elsewhere, not rules a check can prove.
    const bad = clauses.filter((c) => /not shown/i.test(c.summary));
    expect(bad.map((c) => c.id)).toEqual([]);
  });

  it('numbers fine points only under an existing base clause', () => {
    // 4.5.R1a refines 4.5.R1, so 4.5.R1 must exist.
    const ids = clauseIds();
    const orphans = clauses.filter((c) => /[a-z]$/.test(c.id) && !ids.has(c.id.slice(0, -1)));
    expect(orphans.map((c) => c.id)).toEqual([]);
  });
});

describe('clause catalogue coverage of the document', () => {
  it.each(['1', '3.1', '3.2', '3.3', '4.1', '4.2', '4.3', '4.4', '4.5', '4.6', '4.7', '4.8', '5', '6', '7', '8', '9'])(
    'has at least one clause for section %s',
    (section) => {
      expect(clauses.some((c) => c.section === section)).toBe(true);
    },
  );

  it('has the visibility rule of part 1 (other integration is 404, never 403)', () => {
    // §1: the one rule every endpoint shares; checks cite it by this id.
    const v1 = clauses.find((c) => c.id === '1.V1');
    expect(v1?.summary).toMatch(/404 NOT_FOUND/);
    expect(v1?.summary).toMatch(/never 403/);
  });

  it.each([
    'UNAUTHENTICATED',
    'NOT_INTEGRATION_TOKEN',
    'INTEGRATION_DISABLED',
    'NOT_FOUND',
    'UNAVAILABLE',
    'IN_PROGRESS',
    'VALIDATION_FAILED',
    'IDEMPOTENCY_KEY_REQUIRED',
    'IDEMPOTENCY_KEY_REUSED',
    'PROPERTY_NOT_MAPPED',
    'PROPERTY_ARCHIVED',
    'UNIT_NOT_MAPPED',
    'UNIT_INACTIVE',
    'SYNC_TOO_SOON',
    'RATE_LIMITED',
  ])('names error code %s in a part 7 error-row clause', (code) => {
    // §7: whole-word match, so NOT_FOUND is not satisfied by some longer code.
    const word = new RegExp(`(?<![A-Z_])${code}(?![A-Z_])`);
    expect(byPrefix('7.E').some((c) => c.kind === 'error' && word.test(c.summary))).toBe(true);
  });

  it('has one error clause per row of the part 7 table, including the bare 404', () => {
    // §7 table has 16 rows; the bare 404 row has no code, so count rows, not codes.
    const rows = byPrefix('7.E').filter((c) => /^7\.E\d+$/.test(c.id));
    expect(rows).toHaveLength(16);
    expect(rows.some((c) => /bare/.test(c.summary) && /404/.test(c.summary))).toBe(true);
  });

  it('has the error envelope and endpoint mapping conventions of part 7', () => {
    expect(clauseIds().has('7.C1')).toBe(true);
    expect(clauseIds().has('7.C2')).toBe(true);
  });

  it.each([1, 2, 3, 4, 5, 6, 7, 8, 9])('has clause 4.5.R%i for the matching numbered rule of §4.5', (n) => {
    const c = clauses.find((x) => x.id === `4.5.R${n}`);
    expect(c?.section).toBe('4.5');
    expect(c?.kind).toBe('rule');
  });

  it('has no 4.5.R clause beyond the nine numbered rules', () => {
    // §4.5 numbers exactly nine rules; finer points take a letter suffix instead.
    const extra = byPrefix('4.5.R').filter((c) => !/^4\.5\.R[1-9][a-z]?$/.test(c.id));
    expect(extra.map((c) => c.id)).toEqual([]);
  });

  it('has the idempotency fine points of §4.5 rule 1', () => {
    const r1 = byPrefix('4.5.R1').map((c) => c.summary).join(' | ');
    expect(r1).toMatch(/byte for byte/);
    expect(r1).toMatch(/key-sorted JSON/);
    expect(r1).toMatch(/24 hours/);
    expect(r1).toMatch(/409 UNAVAILABLE replays/);
    expect(r1).toMatch(/IDEMPOTENCY_KEY_REUSED/);
  });

  // §8: the "Limit" column verbatim. Each row must be a clause titled with it;
  // all are real limits except the polling row, which the document calls guidance.
  const PART_8_ROWS = [
    'List page size',
    'Replay page size',
    'Event retention',
    'Idempotency key length',
    'Idempotency key memory',
    'Units per booking',
    'Adults / children per unit',
    'String lengths',
    'Check-in earliest date',
    'Full sync interval',
    'Full sync daily cap',
    'Properties per sync',
    'Snapshot window',
    'Snapshot horizon',
    'Event horizon',
    'Health check polling',
    'Auto-pause',
    'Previous webhook secret validity',
  ];
  const GUIDANCE_ROWS = new Set(['Health check polling']);

  it.each(PART_8_ROWS)('has a part 8 clause for the limit row "%s"', (row) => {
    const c = clauses.find((x) => x.section === '8' && x.title === row);
    expect(c, `no section 8 clause titled "${row}"`).toBeDefined();
    const letter = GUIDANCE_ROWS.has(row) ? 'C' : 'L';
    expect(c?.id).toMatch(new RegExp(`^8\\.${letter}\\d+$`));
  });

  it('has no part 8 clause that is not a row of the table', () => {
    const rows = new Set(PART_8_ROWS);
    expect(clauses.filter((c) => c.section === '8' && !rows.has(c.title)).map((c) => c.id)).toEqual([]);
  });

  it.each([
    ['3.1.T1', /five consecutive/],
    ['3.1.T2', /manual/],
    ['3.1.T3', /410/],
    ['3.1.T4', /probe/],
    ['3.1.T5', /INTEGRATION_DISABLED/],
    ['3.2.T1', /confirmed/],
    ['3.2.T2', /pending/],
    ['3.3.T1', /superseded/],
  ])('has the state transition %s of part 3', (id, text) => {
    const c = clauses.find((x) => x.id === id);
    expect(c?.kind).toBe('transition');
    expect(c?.summary).toMatch(text);
  });
});
