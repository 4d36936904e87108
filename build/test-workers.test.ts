import { describe, expect, it } from 'vitest';
import { testWorkers } from './test-workers.ts';

describe('test-workers: files at a time follow the cores the run may use', () => {
  it('two and a half files a core, at least one', () => {
    expect(testWorkers(1, undefined)).toBe(3);
    expect(testWorkers(2, undefined)).toBe(5);
    expect(testWorkers(4, undefined)).toBe(10);
    expect(testWorkers(0, undefined)).toBe(1);
  });

  it('PARTNER_API_TEST_WORKERS overrides the count; anything but a positive whole number is refused by name', () => {
    expect(testWorkers(2, '1')).toBe(1);
    expect(testWorkers(2, '')).toBe(5);
    expect(() => testWorkers(2, '0')).toThrow(/PARTNER_API_TEST_WORKERS must be a positive whole number, got "0"/);
    expect(() => testWorkers(2, 'many')).toThrow(/PARTNER_API_TEST_WORKERS/);
  });
});
