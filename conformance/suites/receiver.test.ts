/**
 * The runner's waits for deliveries (issue 30): a wait that ran out means
 * "not observed yet", never "observed". A check that needs a delivery before
 * it goes on is not applicable when it does not come; no check goes on as if
 * a wait had succeeded.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CheckFailure, NotApplicable, type CheckContext } from '../check.ts';
import type { Receiver } from '../../simulator/webhooks/receiver.ts';
import { NotObserved } from '../not-observed.ts';
import { DRAIN_PLATFORM_SECONDS, drained, ensureDelivered, notDelivered, watchForAbsence } from './receiver.ts';

/** A platform whose integration is at `last` and whose rows are `rows`, with a clock the control plane moves (and counts), or none. */
function platform(last: number, rows: any[], clock = true) {
  const moved: number[] = [];
  const ctx = {
    target: { kind: clock ? 'in-process' : 'live' },
    control: { offers: (a: string) => clock && a === 'clock.advance', advanceClock: async (s: number) => void moved.push(s) },
    api: {
      get: async (path: string, options?: { query?: Record<string, number> }) => {
        if (path === '/me') return { status: 200, body: { data: { status: 'active', webhook: { last_sequence: last } } } };
        const after = options?.query?.after_sequence ?? 0;
        return { status: 200, body: { data: rows.filter((r) => r.sequence > after).slice(0, options?.query?.limit ?? 100) } };
      },
    },
    fail(kind: string, received: string, documented: string, clause: string): never {
      throw new CheckFailure({ kind, received, documented, clause });
    },
  } as unknown as CheckContext;
  return { ctx, moved };
}

const silent = { received: [], problems: [] } as unknown as Receiver;

describe('waiting for deliveries', () => {
  it('ensureDelivered: a delivery that never comes makes the check not applicable, naming why it was needed and what was queued ahead', async () => {
    const { ctx, moved } = platform(7, [{ sequence: 5, status: 'failed', delivered_at: null }, { sequence: 6, status: 'pending', delivered_at: null }, { sequence: 7, status: 'pending', delivered_at: null }]);
    const outcome = await ensureDelivered(ctx, silent, 'the first change must be delivered before it is covered', 7).catch((e) => e);
    expect(outcome).toBeInstanceOf(NotApplicable);
    expect(outcome.message).toContain('the first change must be delivered before it is covered');
    expect(outcome.message).toContain('2 older undelivered events queued ahead');
    // The whole drain was walked: two hours of platform time, in steps of at most a minute.
    expect(moved.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(DRAIN_PLATFORM_SECONDS);
    expect(Math.max(...moved)).toBeLessThanOrEqual(60);
  });

  it('drained: true once the platform recorded the event delivered (to this receiver or an earlier one), never on the receiver alone', async () => {
    const accepted = { received: [{ sequence: 7, answered: 200, problems: [] }], problems: [] } as unknown as Receiver;
    expect(await drained(platform(7, [{ sequence: 7, status: 'delivered', delivered_at: 'x' }]).ctx, accepted, 7)).toBe(true);
    expect(await drained(platform(7, [{ sequence: 7, status: 'delivered', delivered_at: 'x' }]).ctx, silent, 7)).toBe(true);
    expect(await drained(platform(7, [{ sequence: 7, status: 'pending', delivered_at: null }]).ctx, silent, 7)).toBe(false);
  });

  it('drained: a receiver problem on the way fails the check with its breach', async () => {
    const bad = { sequence: 7, answered: 400, type: 'rates.changed', problems: [{ kind: 'bad-signature', detail: 'no v1 value verifies' }] };
    const receiver = { received: [bad], problems: [bad] } as unknown as Receiver;
    const outcome = await drained(platform(7, [{ sequence: 7, status: 'failed', delivered_at: null }]).ctx, receiver, 7).catch((e) => e);
    expect(outcome).toBeInstanceOf(CheckFailure);
    expect(outcome.failure.clause).toBe('5.R4');
  });

  it('notDelivered: a breach only when nothing older is queued ahead of the check\'s events', async () => {
    const breach = { kind: 'NotDelivered', received: 'event 7 not delivered', documented: 'delivered', clause: '6.R2' };
    expect(await notDelivered(platform(7, [{ sequence: 6, status: 'failed' }]).ctx, [7], breach).catch((e) => e)).toBeInstanceOf(NotApplicable);
    const failed = await notDelivered(platform(7, [{ sequence: 6, status: 'delivered' }]).ctx, [7], breach).catch((e) => e);
    expect(failed).toBeInstanceOf(CheckFailure);
    expect(failed.failure).toMatchObject({ kind: 'NotDelivered', clause: '6.R2' });
  });

  it('notDelivered: after a drain of real time (no clock the control plane steps) nothing is missing, only not observed (issue 38)', async () => {
    const breach = { kind: 'NotDelivered', received: 'event 7 not delivered', documented: 'delivered', clause: '6.R2' };
    const outcome = await notDelivered(platform(7, [{ sequence: 6, status: 'delivered' }], false).ctx, [7], breach).catch((e) => e);
    expect(outcome).toBeInstanceOf(NotObserved);
    expect(outcome.message).toMatch(/^not observed: the delivery of events 7 \(delivered\), after 120 s of real time/);
  });

  it('watchForAbsence: a stepped span proves nothing came; a quiet span of real time is not observed; a breach seen is seen either way (§3.1 T2, issue 38)', async () => {
    const stepped = platform(7, []);
    expect(await watchForAbsence(stepped.ctx, () => false, 10, 'nothing is delivered while paused')).toEqual({ happened: false, unproven: null });
    // Every second of the span was stepped, so every attempt due in it was made.
    expect(stepped.moved.reduce((a, b) => a + b, 0)).toBe(10);
    const real = await watchForAbsence(platform(7, [], false).ctx, () => false, 1, 'nothing is delivered while paused');
    expect(real.happened).toBe(false);
    expect(real.unproven).toBeInstanceOf(NotObserved);
    expect(real.unproven!.message).toMatch(/^not observed: that nothing is delivered while paused, after 1 s of real time/);
    expect(await watchForAbsence(platform(7, [], false).ctx, () => true, 1, 'nothing is delivered while paused')).toEqual({ happened: true, unproven: null });
  });

  it('no check ignores the outcome of a wait: every waitFor, waitForDrain, drained, watchForAbsence and observed result is used', () => {
    const dir = new URL('./', import.meta.url);
    const ignored: string[] = [];
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && f !== 'receiver.ts')) {
      readFileSync(new URL(file, dir), 'utf8').split('\n').forEach((line, i) => {
        if (/^\s*await (\w+\.)?(waitFor|waitForDrain|drained|watchForAbsence|observed)\(/.test(line)) ignored.push(`${file}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(ignored).toEqual([]);
  });
});
