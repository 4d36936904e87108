/**
 * The response guard (simulator/http/app.ts `guarded`) behind every
 * `expectConformingResponses` call: it must report an answer that breaks
 * spec/openapi.yaml, or those ~65 assertions prove nothing.
 */
import { describe, expect, it } from 'vitest';
import { expectConformingResponses, makeHarness, newKey } from '../testing.ts';

describe('response guard', () => {
  it('reports an answer the contract refuses, naming the operation, the status and the breach', async () => {
    // A release whose events carry version 2026-08: the envelope schema holds version const "2026-09" (§9).
    const h = makeHarness({ faults: ['event-version-wrong'] });
    expect((await h.api('post', '/bookings').set('Idempotency-Key', newKey()).send(h.bookingBody())).status).toBe(201);
    expect((await h.api('get', '/events')).status).toBe(200);
    expect(h.violations.length).toBeGreaterThan(0);
    expect(h.violations[0]).toMatchObject({ operation: 'listEvents', method: 'GET', status: 200 });
    expect(h.violations[0]!.problems.join(' ')).toMatch(/version/);
    expect(() => expectConformingResponses(h)).toThrow(/responses that break spec\/openapi.yaml/);
  });

  it('stays quiet for the same calls on a conforming simulator', async () => {
    const h = makeHarness();
    expect((await h.api('post', '/bookings').set('Idempotency-Key', newKey()).send(h.bookingBody())).status).toBe(201);
    expect((await h.api('get', '/events')).status).toBe(200);
    expectConformingResponses(h);
  });

  it('is off where a benchmark asks for what npm start serves', async () => {
    const h = makeHarness({ faults: ['event-version-wrong'], checkResponses: false });
    await h.api('post', '/bookings').set('Idempotency-Key', newKey()).send(h.bookingBody());
    await h.api('get', '/events');
    expect(h.violations).toEqual([]);
  });
});
