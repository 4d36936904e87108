/**
 * Every module of the store loads. A module that throws while it loads (a constant table built wrong) fails the test
 * files that import it before they collect a test: vitest reports those files as errors with no test failed, which a
 * mutation run reads as a survivor (file-store.ts's table ranks built from undefined entries "survived" though the
 * store cannot load). Imported here inside a test, such a module fails a test.
 */
import { describe, expect, it } from 'vitest';

const MODULES = ['ack-mark', 'durable-fs', 'errors', 'file-store', 'journal', 'lazy-table', 'lock', 'manifest', 'memory-store', 'pg-schema', 'pg-store', 'snapshot', 'store'];

describe('the store\'s modules load', () => {
  for (const name of MODULES) {
    it(`${name}.ts loads and exports what it declares`, async () => {
      const module = (await import(`./${name}.ts`)) as Record<string, unknown>;
      expect(Object.keys(module).length).toBeGreaterThan(0);
    });
  }
});
