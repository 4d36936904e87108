import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { XMLParser } from 'fast-xml-parser';
import type { RunReport } from '../conformance/types.ts';
import { sampleReport } from './sample-report.ts';
import { asText, sanitizeReport } from './sanitize.ts';
import { writeReports } from './write.ts';

const dir = mkdtempSync(join(tmpdir(), 'sanitize-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A report whose first failing result carries `value` in every text slot a check fills from a target's answer. */
function reportWith(value: unknown): RunReport {
  const report = sampleReport();
  const failed = report.results.find((r) => r.failure)!;
  Object.assign(failed.failure!, { received: value, documented: value, kind: value });
  Object.assign(failed, { reason: value, error: value });
  if (failed.exchanges[0]) Object.assign(failed.exchanges[0], { responseBody: value, requestBody: value });
  return report;
}

function cyclic(): unknown {
  const o: Record<string, unknown> = { a: 1 };
  o.self = o;
  o.list = [o, { back: o }];
  return o;
}

const kinds: [string, () => unknown][] = [
  ['undefined', () => undefined], ['null', () => null], ['a number', () => 42], ['NaN', () => Number.NaN],
  ['a boolean', () => false], ['an object', () => ({ page: 1, nested: { x: [1, 'two'] } })], ['an array', () => [1, undefined, 'x']],
  ['a cyclic object', cyclic], ['a bigint', () => 10n], ['a function', () => () => 1], ['a symbol', () => Symbol('s')],
  ['markup', () => '<script>alert(1)</script>&"\''], ['control characters', () => '\u0000\u001b[31m\uFFFF\uD800'],
];

describe('sanitize.ts: the writers write all three reports whatever a target answered', () => {
  it.each(kinds)('writes report.json, junit.xml and index.html when a failure holds %s', (_, make) => {
    const written = writeReports(reportWith(make()), join(dir, String(Math.random()).slice(2)));
    const json = JSON.parse(readFileSync(written.files.json, 'utf8')) as RunReport;
    const failed = json.results.find((r) => r.failure)!;
    for (const text of [failed.failure!.received, failed.failure!.documented, failed.failure!.kind]) expect(typeof text).toBe('string');
    expect(() => new XMLParser().parse(readFileSync(written.files.junit, 'utf8'))).not.toThrow();
    expect(readFileSync(written.files.html, 'utf8')).toMatch(/^<!DOCTYPE html>/i);
  });

  it('writes the reports for any JSON value in a failure (property)', () => {
    fc.assert(fc.property(fc.jsonValue(), fc.anything(), (json, anything) => {
      for (const value of [json, anything]) {
        const clean = sanitizeReport(reportWith(value));
        expect(() => JSON.stringify(clean)).not.toThrow();
        expect(typeof clean.results.find((r) => r.failure)!.failure!.received).toBe('string');
      }
    }), { numRuns: 200 });
  });

  it('shows a missing value as "(nothing)" and an object as its JSON', () => {
    expect(asText(undefined)).toBe('(nothing)');
    expect(asText({ page: 1 })).toBe('{"page":1}');
    expect(asText(cyclic())).toBe('{"a":1,"self":"[cyclic]","list":["[cyclic]",{"back":"[cyclic]"}]}');
  });
});
