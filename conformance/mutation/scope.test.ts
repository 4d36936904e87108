/**
 * Issue 40: nothing is out of the mutation score by being out of a glob.
 * Every source file under simulator/, protocol/ and spec/ is in an area
 * (scored by the suite or by the simulator's own tests) or left out with a
 * one-line reason, and both Stryker configurations take their lists from
 * scope.mjs.
 */
import { describe, expect, it } from 'vitest';
import { censusFiles } from './census.ts';
import { AREAS, mutateFor, OUTSIDE, placeOf, region } from './scope.mjs';

describe('the mutation scope', () => {
  it('every source file is in an area or left out with its reason', () => {
    expect(censusFiles().filter((f) => placeOf(f) === undefined)).toEqual([]);
  });

  it('each left-out entry has a one-line reason and holds a file', () => {
    for (const o of OUTSIDE) {
      expect(o.reason.trim().length, o.files).toBeGreaterThan(10);
      expect(o.reason.includes('\n'), o.files).toBe(false);
    }
    const files = censusFiles();
    // Line 1: cli.ts's first line is outside its key sweep.
    const holds = (o: (typeof OUTSIDE)[number]) => files.some((f) => { const p = placeOf(f, 1); return p !== undefined && 'outside' in p && p.outside === o; });
    expect(OUTSIDE.filter((o) => o.files !== '**/*.test.ts' && !holds(o)).map((o) => o.files)).toEqual([]);
  });

  it('the store is scored by its own tests, the rest by the suite; the configurations read the same lists', async () => {
    // Plain JavaScript without declarations: Stryker loads them as they are.
    const suiteConfig = ((await import(new URL('../../stryker.config.mjs', import.meta.url).href)) as { default: { mutate: string[] } }).default;
    const ownConfig = ((await import(new URL('./stryker.own-tests.config.mjs', import.meta.url).href)) as { default: { mutate: string[] } }).default;
    expect(placeOf('simulator/store/journal.ts')).toEqual({ area: AREAS.find((a) => a.area === 'store') });
    expect((placeOf('simulator/staff/routes.ts') as { area: { killer: string } }).area.killer).toBe('suite');
    expect((placeOf('protocol/signature.ts') as { area: { killer: string } }).area.killer).toBe('suite');
    expect(suiteConfig.mutate).toEqual(mutateFor('suite'));
    expect(ownConfig.mutate).toEqual(mutateFor('own-tests'));
    expect(mutateFor('suite')).not.toContain('simulator/store/**/*.ts');
  });

  it('an area alone (a slice of the whole run, npm run mutation -- --area) is its own files with every exclusion; an unknown area is an error naming the areas', () => {
    const protocol = mutateFor('suite', 'protocol');
    expect(protocol.filter((g) => !g.startsWith('!'))).toEqual(['protocol/**/*.ts']);
    // Every exclusion of the whole run, and cli.ts whole: its key sweep is wiring's, not this slice's.
    expect(protocol.filter((g) => g.startsWith('!'))).toEqual([...mutateFor('suite').filter((g) => g.startsWith('!')), '!simulator/cli.ts'].sort((a, b) => protocol.indexOf(a) - protocol.indexOf(b)));
    // Every area's slices together are the whole run's list.
    const slices = AREAS.filter((a) => a.killer === 'suite').flatMap((a) => mutateFor('suite', a.area).filter((g) => !g.startsWith('!')));
    expect(slices).toEqual(mutateFor('suite').filter((g) => !g.startsWith('!')));
    expect(mutateFor('suite', 'wiring')).not.toContain('!simulator/cli.ts');
    expect(() => mutateFor('suite', 'store')).toThrow(/no area "store" killed by suite \(areas: domain rules, .*wiring\)/);
  });

  it("npm start's key sweep is a region of cli.ts found by its code; the rest of cli.ts is left out", () => {
    const sweep = region('simulator/cli.ts', '// Forget idempotency keys past their 24 hours', '}, 10 * 60_000).unref();');
    const [, from, to] = /:(\d+)-(\d+)$/.exec(sweep)!.map(Number);
    expect(mutateFor('suite')).toContain(sweep);
    expect(mutateFor('suite')).not.toContain('!simulator/cli.ts');
    expect((placeOf('simulator/cli.ts', from!) as { area: { area: string } }).area.area).toBe('wiring');
    expect((placeOf('simulator/cli.ts', to!) as { area: { area: string } }).area.area).toBe('wiring');
    expect('outside' in placeOf('simulator/cli.ts', from! - 2)!).toBe(true);
  });
});
