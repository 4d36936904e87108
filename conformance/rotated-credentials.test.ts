/** A run refused with the key an earlier run rotated out is told where the new one was kept (issue 41 item 9). */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { keepRotated, rotatedHint } from './rotated-credentials.ts';

const dirs: string[] = [];
const dir = () => {
  const d = mkdtempSync(join(tmpdir(), 'rotated-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('the rotated credentials a run kept', () => {
  it('are written mode 0600 and named when the platform refuses the old API key', () => {
    const reports = dir();
    const file = keepRotated(reports, { apiKey: 'dlk_new' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(rotatedHint(reports, 'apiKey')).toBe(`an earlier run rotated the integration's API key through the control plane and kept the new one in ${file} (apiKey); run with it`);
  });

  it.each([
    ['no credential was refused', { apiKey: 'k' }, undefined],
    ['the file keeps only a webhook secret', { webhookSecret: 's' }, 'apiKey'],
  ] as const)('say nothing when %s', (_name, kept, refused) => {
    const reports = dir();
    keepRotated(reports, kept);
    expect(rotatedHint(reports, refused)).toBeUndefined();
  });

  it('say nothing without the file, or when it is not JSON', () => {
    const reports = dir();
    expect(rotatedHint(reports, 'apiKey')).toBeUndefined();
    writeFileSync(join(reports, 'rotated-credentials.json'), 'not json');
    expect(rotatedHint(reports, 'apiKey')).toBeUndefined();
  });
});
