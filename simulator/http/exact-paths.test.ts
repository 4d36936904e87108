/**
 * Issue 29 item 7: the document's paths are exact ("All paths below are
 * relative to `{base_url}/api/integrations/v1`", Conventions; §4 names each
 * path). Another case or a trailing slash is another path, and answers what
 * any unknown path answers: 404 NOT_FOUND in the envelope, or, with the API
 * switched off (§5.6), the bare 404 of every path under the API root.
 */
import { describe, expect, it } from 'vitest';
import { loadContract } from '../../spec/contract.ts';
import { API_ROOT } from './app.ts';
import { makeHarness } from '../testing.ts';

describe('paths are exact: another case or a trailing slash answers as an unknown path', () => {
  // {id} and {ext} are a booking of this integration: the exact spelling finds it.
  const spellings: [string, string][] = [
    ['the API root in upper case', '/API/INTEGRATIONS/V1/ME'],
    ['the route in upper case', `${API_ROOT}/ME`],
    ['a trailing slash', `${API_ROOT}/me/`],
    ['a trailing slash after a parameter', `${API_ROOT}/bookings/{id}/`],
    ['a trailing slash on the list', `${API_ROOT}/bookings/`],
    ['mixed case in a multi-segment route', `${API_ROOT}/bookings/External/{ext}`],
  ];

  it.each(spellings)('%s (%s) → 404 NOT_FOUND, as an unknown path', async (_name, path) => {
    const h = makeHarness();
    const key = `Bearer ${h.fixtures.integrations[0]!.apiKey}`;
    const body = h.bookingBody();
    const created = await h.api('post', '/bookings').set('Idempotency-Key', 'exact-paths-key').send(body);
    expect(created.status, created.text).toBe(201);
    const id = String(created.body.data.id);
    expect((await h.api('get', `/bookings/${id}`)).status).toBe(200);
    expect((await h.api('get', `/bookings/external/${body.external_booking_id}`)).status).toBe(200);
    const unknown = await h.http.get(`${API_ROOT}/nope`).set('Authorization', key);
    const res = await h.http.get(path.replace('{id}', id).replace('{ext}', body.external_booking_id)).set('Authorization', key);
    expect(res.status, res.text).toBe(404);
    expect(res.body).toEqual(unknown.body);
    expect(res.body.code).toBe('NOT_FOUND');
  });

  it('a trailing slash on POST /bookings writes nothing', async () => {
    const h = makeHarness();
    const before = h.sim.store.size('bookings');
    const res = await h.http.post(`${API_ROOT}/bookings/`).set('Authorization', `Bearer ${h.fixtures.integrations[0]!.apiKey}`).set('Idempotency-Key', 'exact-paths-key').send(h.bookingBody());
    expect(res.status, res.text).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
    expect(h.sim.store.size('bookings')).toBe(before);
  });

  it('the exact spelling still answers', async () => {
    const h = makeHarness();
    expect((await h.api('get', '/me')).status).toBe(200);
  });

  it('§5.6 switched off: a trailing slash under the API root is the bare 404 of that root, another case is outside it (the envelope)', async () => {
    const h = makeHarness();
    await h.staff('put', '/api', { enabled: false });
    const slash = await h.http.get(`${API_ROOT}/me/`);
    expect(slash.status).toBe(404);
    expect(slash.text).toBe('');
    const upper = await h.http.get('/API/INTEGRATIONS/V1/ME');
    expect(upper.status).toBe(404);
    expect(upper.body.code).toBe('NOT_FOUND');
  });
});

describe('a method §4 does not give a path answers as an unknown path (spec x-assumptions unknown-routes)', () => {
  it.each([
    ['put', '/me'], ['patch', '/bookings'], ['delete', '/bookings/5001'], ['options', '/me'], ['post', '/me'], ['get', '/sync'],
  ] as const)('%s %s → 404 NOT_FOUND before authentication, nothing charged to the rate limit', async (method, path) => {
    const h = makeHarness();
    const key = `Bearer ${h.fixtures.integrations[0]!.apiKey}`;
    const unknown = await h.http.get(`${API_ROOT}/nope`);
    for (const auth of [null, key, 'Bearer garbage']) {
      const req = h.http[method](API_ROOT + path);
      const res = await (auth === null ? req : req.set('Authorization', auth));
      expect(res.status, `${auth}: ${res.text}`).toBe(404);
      expect(res.body).toEqual(unknown.body);
      expect(res.headers.allow).toBeUndefined();
      expect(res.headers['x-ratelimit-remaining']).toBeUndefined();
    }
  });

  it('HEAD on a GET path is that GET without its body', async () => {
    const h = makeHarness();
    expect((await h.http.head(`${API_ROOT}/me`)).status).toBe(401);
    const res = await h.http.head(`${API_ROOT}/me`).set('Authorization', `Bearer ${h.fixtures.integrations[0]!.apiKey}`);
    expect(res.status).toBe(200);
    expect(res.text ?? '').toBe('');
  });

  it('the contract states the decision', () => {
    const decided = (loadContract().document['x-assumptions'] as Record<string, { 'x-assumption': string }>)['unknown-routes']!['x-assumption'];
    expect(decided).toMatch(/404 NOT_FOUND/);
    expect(decided).toMatch(/Not 405/);
  });
});
