/** The call journal: what certification sees of a partner's API usage. */
import { describe, expect, it } from 'vitest';
import { makeHarness, newKey } from './testing.ts';

describe('call journal', () => {
  it('records each call with its key, fingerprint, status, cursor and watermark, and attributes a rotated-out key', async () => {
    const h = makeHarness();
    const key = newKey();
    const body = h.bookingBody();
    await h.api('post', '/bookings').set('Idempotency-Key', key).send(body);
    await h.api('post', '/bookings').set('Idempotency-Key', key).send({ ...body, notes: 'changed' });
    await h.api('get', '/events?after_sequence=0&limit=1');
    await h.api('get', `/properties/${h.fixtures.integrations[0]!.properties[0]!.doorloom_id}/availability?from=2026-10-01&to=2026-10-02`);
    const old = h.fixtures.integrations[0]!.apiKey;
    await h.staff('post', '/integrations/1/rotate-api-key');
    await h.api('get', '/me', old);
    await h.api('get', '/me', 'dlk_unknown');
    const entries = h.sim.journal.of(1);
    expect(entries.map((e) => [e.operation, e.status, e.code])).toEqual([
      ['createBooking', 201, null],
      ['createBooking', 422, 'IDEMPOTENCY_KEY_REUSED'],
      ['listEvents', 200, null],
      ['getAvailabilitySnapshot', 200, null],
      ['getMe', 401, 'UNAUTHENTICATED'],
    ]);
    expect(entries[0]!.idempotency_key).toBe(key);
    expect(entries[0]!.body_fingerprint).not.toBe(entries[1]!.body_fingerprint);
    expect(entries[2]!.cursor).toMatchObject({ after_sequence: 0, next_after_sequence: 1, has_more: true, first: 1, last: 1 });
    expect(entries[3]!.watermark).toBe(2);
    expect(entries[4]!.credential).toBe('retired');
  });

  it('tells a subscriber of each call as it is recorded, before the answer leaves, until it unsubscribes; a subscriber that throws changes no answer', async () => {
    const h = makeHarness();
    const seen: Array<[string, number, boolean]> = [];
    let answered = false;
    const unsubscribe = h.sim.journal.subscribe((e) => void seen.push([e.operation, e.n, answered]));
    const stop = h.sim.journal.subscribe(() => {
      throw new Error('a test hook went wrong');
    });
    const me = await h.api('get', '/me');
    answered = true;
    expect(me.status).toBe(200);
    unsubscribe();
    stop();
    await h.api('get', '/me');
    expect(seen).toEqual([['getMe', h.sim.journal.of(1)[0]!.n, false]]);
  });
});
