/**
 * A test worker keeps the modules it loaded from one file to the next (vitest.config.ts, isolate: false). A file that
 * mocks a module passes alone and fails after a file that loaded the module unmocked: green here, red in CI on the
 * order of that run's files. This test names any file that mocks a module; a fault goes in through the code's own knobs
 * or through node's builtin exports (simulator/store/disk-faults.test.ts).
 */
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import config from '../vitest.config.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

describe('shared modules: workers keep what they loaded, so no test mocks a module', () => {
  it('the config shares modules between files, and no test file calls vi.mock or vi.doMock', () => {
    expect(config.test?.isolate).toBe(false);
    const files = execFileSync('git', ['ls-files', '*.test.ts'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
    const mocking = files.filter((file) => /\bvi\s*\.\s*(?:do)?[mM]ock\s*\(/.test(readFileSync(`${ROOT}${file}`, 'utf8')));
    expect(mocking).toEqual([]);
  });
});
