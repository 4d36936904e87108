/**
 * A found breach is never lost (issue 25 item 4; HOUSE-STYLE "a failure it saw
 * survives whatever goes wrong after"): whatever a property meets after its
 * first failing case (no free night left while shrinking, a case the target
 * cannot run, a control action refused), `forAll` reports the breach: the
 * shrunk case when shrinking finished, else the first failing case. And the
 * runner never turns a breach a check recorded into "not applicable".
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CheckFailure, defineCheck, makeContext, NotApplicable, type CheckContext } from './check.ts';
import { ControlError } from './control.ts';
import { runConformance } from './runner.ts';
import { PlatformTime } from './platform-time.ts';
import type { Target } from './targets.ts';

const SEED = 42;

function context(runs = 25): CheckContext {
  const target = {
    kind: 'in-process', baseUrl: 'http://127.0.0.1:9/api/integrations/v1', capabilities: ['read'], apiKey: 'k', webhookSecret: null,
    properties: [], otherApiKey: null, webhook: null, disabledApiKey: null, nonIntegrationToken: null, me: null, control: null,
    credentialRotated() {}, secrets: [], time: new PlatformTime(), simulator: null, async close() {},
  } as unknown as Target;
  return makeContext(target, { runId: 'run', runs, seed: SEED, live: false, checkId: 'unit' });
}

/** What `fn` threw (it must throw). */
async function thrown(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
}

const breach = (ctx: CheckContext, value: number) => ctx.fail('Accepted', `201 for ${value}`, '422', '8.L8');

describe('forAll keeps a breach it saw (seed printed in every failure)', () => {
  it('a case the target cannot run while shrinking (NotApplicable in the predicate) does not turn the breach into not applicable', async () => {
    const ctx = context();
    let failures = 0;
    const e = await thrown(() => ctx.forAll(fc.integer({ min: 0, max: 1000 }), async (v) => {
      if (v <= 10) return;
      // The first failure uses the one free night; every later case finds none.
      if (failures++ > 0) throw new NotApplicable('no 1 free night(s) left');
      breach(ctx, v);
    }));
    expect(e, `seed ${SEED}`).toBeInstanceOf(CheckFailure);
    expect((e as CheckFailure).failure).toMatchObject({ kind: 'Accepted', clause: '8.L8' });
    expect((e as CheckFailure).property?.seed).toBe(SEED);
    expect(ctx.breach).toBe(e);
  });

  it('an arbitrary that throws while shrinking (no free stay to draw) reports the first failing case, saying shrinking was cut short', async () => {
    const ctx = context();
    let drawn = 0;
    let firstValue: number | null = null;
    const stays = fc.integer({ min: 0, max: 1000 }).map((v) => {
      if (firstValue !== null && drawn++ > 0) throw new NotApplicable('no 3 free night(s) left in the windows read from the availability snapshot');
      return v;
    });
    const e = await thrown(() => ctx.forAll(stays, async (v) => {
      if (v > 10) {
        firstValue ??= v;
        breach(ctx, v);
      }
    }));
    expect(e, `seed ${SEED}`).toBeInstanceOf(CheckFailure);
    const f = e as CheckFailure;
    expect(f.failure.received).toBe(`201 for ${firstValue}`);
    expect(f.failure.note).toMatch(/shrinking was cut short \(no 3 free night\(s\) left.*\); this is the first failing case/);
    expect(f.property).toMatchObject({ seed: SEED, counterexample: String(firstValue) });
    expect(f.property?.path).toMatch(/^\d+$/);
  });

  it('a re-run of the shrunk case that cannot be made (a control action refused) keeps the shrunk breach and its calls', async () => {
    const ctx = context();
    let smallest = 0;
    const e = await thrown(() => ctx.forAll(fc.integer({ min: 0, max: 1000 }), async (v) => {
      // fast-check shrinks an integer above 10 to 11; the re-run of 11 alone meets a refused control action.
      if (v === 11 && smallest++ > 0) throw new ControlError('control rates.set answered 503');
      if (v > 10) breach(ctx, v);
    }));
    expect(smallest, 'the shrunk case was run again').toBe(2);
    expect(e, `seed ${SEED}`).toBeInstanceOf(CheckFailure);
    expect((e as CheckFailure).failure.received).toBe('201 for 11');
    expect((e as CheckFailure).property?.counterexample).toBe('11');
  });

  it('a NotApplicable before any breach is still the check\'s outcome', async () => {
    const ctx = context();
    const e = await thrown(() => ctx.forAll(fc.integer(), async () => {
      throw new NotApplicable('no property to write on');
    }));
    expect(e).toBeInstanceOf(NotApplicable);
    expect(ctx.breach).toBeNull();
  });
});

describe('the runner keeps a recorded breach', () => {
  const check = (run: (ctx: CheckContext) => Promise<void>) => defineCheck({ id: 'unit.breach-then-other', title: 't', suite: 'unit', clauses: ['8.L8'], level: 'normative', needs: ['read'], run });

  it('a check that saw a breach and then threw NotApplicable fails, naming the breach', async () => {
    const report = await runConformance({ target: 'in-process', seed: SEED, catalogue: [check(async (ctx) => {
      try {
        breach(ctx, 129);
      } catch {
        // A check that swallowed it by mistake, then ran out of something.
      }
      throw new NotApplicable('no free night left');
    })] });
    const [r] = report.results;
    expect(r?.outcome).toBe('failed');
    expect(r?.failure).toMatchObject({ kind: 'Accepted', clause: '8.L8' });
    expect(r?.failure?.note).toMatch(/after the breach the check stopped: no free night left/);
  });

  it('a check that swallowed a breach and returned fails', async () => {
    const report = await runConformance({ target: 'in-process', seed: SEED, catalogue: [check(async (ctx) => {
      try {
        breach(ctx, 129);
      } catch {
        // swallowed
      }
    })] });
    expect(report.results[0]?.outcome).toBe('failed');
  });
});
