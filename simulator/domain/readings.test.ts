/**
 * Each other reading of a tension (readings.ts) changes exactly what it says,
 * and the default reading stays the documented choice.
 */
import { describe, expect, it } from 'vitest';
import type { Transport } from '../webhooks/transport.ts';
import { makeHarness, newKey } from '../testing.ts';
import { readingSet } from './readings.ts';

const MINUTE = 60_000;

/** A transport that answers 200 and records what was posted (pings included). */
function recording(): { transport: Transport; posted: string[] } {
  const posted: string[] = [];
  const transport: Transport = {
    async post(_url, _headers, body) {
      posted.push(JSON.parse(body).type);
      return { status: 200 };
    },
  };
  return { transport, posted };
}

describe('readings of the document\'s tensions', () => {
  it('1.V1: GET /events?property_id= of another integration is 200 with no rows by default, 404 NOT_FOUND under events-foreign-property-404', async () => {
    for (const [readings, status] of [[[], 200], [['events-foreign-property-404'], 404]] as const) {
      const h = makeHarness({ readings: [...readings] });
      const foreign = h.fixtures.integrations[1]!.properties[0]!.doorloom_id;
      const res = await h.api('get', `/events?property_id=${foreign}`);
      expect(res.status, readings.join()).toBe(status);
      if (status === 200) expect(res.body.data).toEqual([]);
      else expect(res.body.code).toBe('NOT_FOUND');
      expect(h.violations).toEqual([]);
    }
  });

  it('3.1.T4: a manual pause is never probed by default; under probe-resumes-any-pause the next probe answered 2xx resumes it', async () => {
    for (const [readings, resumed] of [[[], false], [['probe-resumes-any-pause'], true]] as const) {
      const { transport, posted } = recording();
      const h = makeHarness({ readings: [...readings], transport });
      await h.staff('put', '/integrations/1/webhook', { url: 'http://partner.test/hook' });
      await h.staff('post', '/integrations/1/pause');
      expect((await h.api('post', '/bookings').set('Idempotency-Key', newKey()).send(h.bookingBody())).status).toBe(201);
      await h.sim.webhooks.advance(30 * MINUTE);
      const me = (await h.api('get', '/me')).body.data;
      expect({ status: me.status, probed: posted.includes('ping') }, readings.join()).toEqual({ status: resumed ? 'active' : 'paused', probed: resumed });
    }
  });

  it('3.1.T1: after a success long ago, five failures pause only six hours after the first of them by default, at once under six-hours-from-last-success', async () => {
    for (const [readings, pausedWithinAnHour] of [[[], false], [['six-hours-from-last-success'], true]] as const) {
      let status = 200;
      const transport: Transport = { post: async () => ({ status }) };
      const h = makeHarness({ readings: [...readings], transport });
      await h.staff('put', '/integrations/1/webhook', { url: 'http://partner.test/hook' });
      const create = async () => expect((await h.api('post', '/bookings').set('Idempotency-Key', newKey()).send(h.bookingBody())).status).toBe(201);
      await create();
      await h.sim.webhooks.advance(MINUTE);
      expect((await h.api('get', '/me')).body.data.webhook.last_success_at).not.toBeNull();
      // Seven quiet hours, then the endpoint fails: five failures come within about seven minutes (10 s, 30 s, 1, 5 min).
      await h.sim.webhooks.advance(7 * 60 * MINUTE);
      status = 500;
      await create();
      await h.sim.webhooks.advance(60 * MINUTE);
      const me = (await h.api('get', '/me')).body.data;
      expect({ failures: me.webhook.consecutive_failures >= 5, status: me.status }, readings.join()).toEqual({ failures: true, status: pausedWithinAnHour ? 'paused' : 'active' });
    }
  });

  it('8.L11: 422 refusals of POST /sync count toward nothing by default; under sync-422-counts-toward-cap they count toward the six a day, never toward the interval', async () => {
    for (const [readings, cappedAt] of [[[], 7], [['sync-422-counts-toward-cap'], 4]] as const) {
      const h = makeHarness({ readings: [...readings] });
      // Three refusals: an invalid body (refused by the HTTP layer), an unknown type, an uncovered property (the domain).
      expect((await h.api('post', '/sync').set('Content-Type', 'application/json').send('{"types":')).status).toBe(422);
      expect((await h.api('post', '/sync').send({ types: ['bookings'] })).status).toBe(422);
      expect((await h.api('post', '/sync').send({ property_ids: [999_999] })).status).toBe(422);
      const answers: string[] = [];
      for (let n = 1; n <= 7; n++) {
        const res = await h.api('post', '/sync').send({ types: ['rates'] });
        answers.push(res.status === 202 ? '202' : res.body.code);
      }
      const expected = Array.from({ length: 7 }, (_, i) => (i === 0 ? '202' : i + 1 >= cappedAt ? 'RATE_LIMITED' : 'SYNC_TOO_SOON'));
      expect(answers, readings.join()).toEqual(expected);
      expect(h.violations).toEqual([]);
    }
  });

  it('7.C1: a refused types[] item of GET /events is keyed types[].N by default, types.N under types-error-key-dotted, types under types-error-key-bare', async () => {
    for (const [readings, keys] of [[[], ['types[].1']], [['types-error-key-dotted'], ['types.1']], [['types-error-key-bare'], ['types']]] as const) {
      const h = makeHarness({ readings: [...readings] });
      const res = await h.api('get', '/events?types[]=rates.changed&types[]=nope&limit=5');
      expect({ status: res.status, code: res.body.code, keys: Object.keys(res.body.errors) }, readings.join()).toEqual({ status: 422, code: 'VALIDATION_FAILED', keys });
      expect(Object.values(res.body.errors).flat().every((m) => typeof m === 'string'), readings.join()).toBe(true);
      // Every other refusal keeps its key: only the spelling of a types[] item changes.
      expect(Object.keys((await h.api('get', '/events?limit=0')).body.errors), readings.join()).toEqual(['limit']);
      expect(h.violations).toEqual([]);
    }
  });

  it('4.8: an unknown property\'s snapshot without from is 422 VALIDATION_FAILED by default, 404 NOT_FOUND under snapshot-property-before-query; a known one\'s is 422 either way', async () => {
    for (const [readings, unknown] of [[[], '422 VALIDATION_FAILED'], [['snapshot-property-before-query'], '404 NOT_FOUND']] as const) {
      const h = makeHarness({ readings: [...readings] });
      const answer = async (property: number | string) => {
        const res = await h.api('get', `/properties/${property}/availability?to=2026-10-01`);
        return `${res.status} ${res.body.code}`;
      };
      expect(await answer(2_000_000_000), readings.join()).toBe(unknown);
      expect(await answer(h.fixtures.integrations[1]!.properties[0]!.doorloom_id), `${readings.join()} (another integration's property)`).toBe(unknown);
      expect(await answer(h.fixtures.integrations[0]!.properties[0]!.doorloom_id), readings.join()).toBe('422 VALIDATION_FAILED');
      expect(h.violations).toEqual([]);
    }
  });

  it('4, 5.1: a path §4 does not name is 404 NOT_FOUND without a key by default, 401 UNAUTHENTICATED under unknown-path-authenticates-first; 404 with a key either way', async () => {
    for (const [readings, keyless] of [[[], '404 NOT_FOUND'], [['unknown-path-authenticates-first'], '401 UNAUTHENTICATED']] as const) {
      const h = makeHarness({ readings: [...readings] });
      for (const path of ['/no-such-path', '/ME', '/me/']) {
        const without = await h.api('get', path, null);
        expect(`${without.status} ${without.body.code}`, `${readings.join()} ${path}`).toBe(keyless);
        expect(without.body.success, path).toBe(false);
        const invalid = await h.api('get', path, 'garbage');
        expect(`${invalid.status} ${invalid.body.code}`, `${readings.join()} ${path} with an invalid key`).toBe(keyless);
        const withKey = await h.api('get', path);
        expect(`${withKey.status} ${withKey.body.code}`, `${readings.join()} ${path} with a key`).toBe('404 NOT_FOUND');
      }
    }
  });

  it('refuses a name that is not a reading, listing the readings', () => {
    expect(() => readingSet(['nope'])).toThrow(/unknown reading "nope" \(readings: events-foreign-property-404, probe-resumes-any-pause, six-hours-from-last-success, sync-422-counts-toward-cap, types-error-key-dotted, types-error-key-bare, snapshot-property-before-query, unknown-path-authenticates-first\)/);
  });
});
