/**
 * A create a check needs made: a full world or a throttled key leaves
 * nothing judged, any other refusal of a valid create is the breach (§4.5:
 * success is 201), never "not applicable" (issue 25: a documented wrong
 * answer is a failure).
 */
import { describe, expect, it } from 'vitest';
import { CheckFailure, makeContext, NotApplicable } from '../check.ts';
import { PlatformTime } from '../platform-time.ts';
import type { Target } from '../targets.ts';
import { expectCreated } from './support.ts';

const ctx = makeContext({ kind: 'in-process', capabilities: ['read', 'write'], properties: [], secrets: [], time: new PlatformTime() } as unknown as Target, { runId: 'run', runs: 1, seed: 1, live: false, checkId: 'unit' });
const answer = (status: number, code?: string) => ({ status, headers: {}, text: '', body: code ? { code } : {} });

function outcome(status: number, code?: string): unknown {
  try {
    expectCreated(ctx, answer(status, code), 'the create');
    return 'made';
  } catch (e) {
    return e;
  }
}

describe('expectCreated: a create the check needs', () => {
  it('201 goes on', () => {
    expect(outcome(201)).toBe('made');
  });

  it('409 UNAVAILABLE (the nights were filled since they were read) and 429 RATE_LIMITED leave nothing judged', () => {
    expect(outcome(409, 'UNAVAILABLE')).toBeInstanceOf(NotApplicable);
    expect(outcome(429, 'RATE_LIMITED')).toBeInstanceOf(NotApplicable);
  });

  it('any other answer to a valid create is the breach, under 4.5.R8 (a 409 or 429 without its code too)', () => {
    for (const [status, code] of [[422, 'VALIDATION_FAILED'], [500, 'INTERNAL'], [200, undefined], [409, 'CONFLICT'], [429, undefined]] as const) {
      const e = outcome(status, code);
      expect(e, `${status} ${code}`).toBeInstanceOf(CheckFailure);
      expect((e as CheckFailure).failure).toMatchObject({ kind: 'ValidCreateRefused', clause: '4.5.R8', received: `${status}${code ? ` ${code}` : ''} for the create` });
    }
  });
});
