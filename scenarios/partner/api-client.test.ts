/** The partner's API client: a new key after 401 (§5.3), Retry-After on 429 (§7), GET /me at most once a minute (§5.7). */
import { describe, expect, it } from 'vitest';
import { NetworkError, PartnerApi } from './api-client.ts';
import { CredentialVault } from './config.ts';
import { envelope, failure, scriptedFetch, type Answer } from './fake-api.ts';

function client(answers: Answer[], vault = new CredentialVault('dlk_old', ['whsec_x'])) {
  const clock = { t: Date.parse('2026-09-15T06:30:00Z'), now() { return this.t; } };
  const slept: number[] = [];
  const { fetch, sent } = scriptedFetch(answers);
  const api = new PartnerApi({ baseUrl: 'http://api.test/api/integrations/v1', credentials: vault, clock, sleep: async (ms) => void slept.push(ms), fetch });
  return { api, sent, slept, clock, vault };
}

const me = { id: 1, slug: 'acme-channel', status: 'active', webhook: { url: null, last_sequence: 3, undelivered_events: 0, paused_reason: null }, horizon_days: 365, covered_properties: 4 };

describe('PartnerApi', () => {
  it('§5.3: after a 401 it reads the vault again and repeats the call once with the newer key', async () => {
    const c = client([{ status: 200, body: envelope([]) }, { status: 401, body: failure('UNAUTHENTICATED') }, { status: 200, body: envelope(me) }]);
    await c.api.request('GET', '/bookings');
    c.vault.setApiKey('dlk_new');
    const res = await c.api.request('GET', '/me');
    expect(res.status).toBe(200);
    expect(c.sent.map((r) => r.headers.Authorization)).toEqual(['Bearer dlk_old', 'Bearer dlk_old', 'Bearer dlk_new']);
  });

  it('§5.3: a 401 with no newer key in the vault is answered as it is, without a retry loop', async () => {
    const c = client([{ status: 401, body: failure('UNAUTHENTICATED') }]);
    expect((await c.api.request('GET', '/me')).status).toBe(401);
    expect(c.sent).toHaveLength(1);
  });

  it('§7: a 429 RATE_LIMITED is waited out for its Retry-After, then repeated', async () => {
    const c = client([{ status: 429, body: failure('RATE_LIMITED'), headers: { 'Retry-After': '17' } }, { status: 200, body: envelope(me) }]);
    expect((await c.api.request('GET', '/me')).status).toBe(200);
    expect(c.slept).toEqual([17_000]);
    expect(c.sent).toHaveLength(2);
  });

  it('§7: 429 SYNC_TOO_SOON (a 24-hour wait) is handed back, not slept through', async () => {
    const c = client([{ status: 429, body: failure('SYNC_TOO_SOON', { retry_after: 80_000 }), headers: { 'Retry-After': '80000' } }]);
    expect((await c.api.sync()).status).toBe(429);
    expect(c.slept).toEqual([]);
  });

  it('§4.7: a RATE_LIMITED whose Retry-After is hours away (the sync daily cap) is handed back, not slept through', async () => {
    const c = client([{ status: 429, body: failure('RATE_LIMITED'), headers: { 'Retry-After': '86000' } }]);
    expect((await c.api.sync()).status).toBe(429);
    expect(c.slept).toEqual([]);
  });

  it('gives up after five RATE_LIMITED answers in a row', async () => {
    const limited: Answer = { status: 429, body: failure('RATE_LIMITED'), headers: { 'Retry-After': '1' } };
    const c = client([limited, limited, limited, limited, limited, limited]);
    expect((await c.api.request('GET', '/me')).status).toBe(429);
    expect(c.slept).toHaveLength(5);
  });

  it('§5.7: GET /me is sent at most once a minute, by the partner\'s own clock', async () => {
    const c = client([{ status: 200, body: envelope(me) }, { status: 200, body: envelope({ ...me, covered_properties: 5 }) }]);
    expect((await c.api.me())?.covered_properties).toBe(4);
    c.clock.t += 59_999;
    expect((await c.api.me())?.covered_properties).toBe(4);
    expect(c.api.meRequests).toBe(1);
    c.clock.t += 1;
    expect((await c.api.me())?.covered_properties).toBe(5);
    expect(c.api.meRequests).toBe(2);
  });

  it('§5.7: a refused GET /me still counts for the minute', async () => {
    const c = client([{ status: 401, body: failure('UNAUTHENTICATED') }]);
    expect(await c.api.me()).toBeNull();
    expect(await c.api.me()).toBeNull();
    expect(c.api.meRequests).toBe(1);
  });

  it('no answer is a NetworkError (the request may have been processed)', async () => {
    const c = client(['network-error']);
    await expect(c.api.request('GET', '/me')).rejects.toBeInstanceOf(NetworkError);
  });

  it('RFC 9110 §9.2.2: a GET whose connection was reset before any answer is sent once more; a POST never is', async () => {
    const c = client(['reset-before-answer', { status: 200, body: envelope(me) }]);
    expect((await c.api.request('GET', '/me')).status).toBe(200);
    expect(c.sent.map((r) => r.method)).toEqual(['GET', 'GET']);
    const twice = client(['reset-before-answer', 'reset-before-answer']);
    await expect(twice.api.request('GET', '/me')).rejects.toBeInstanceOf(NetworkError);
    expect(twice.sent).toHaveLength(2);
    const post = client(['reset-before-answer']);
    await expect(post.api.request('POST', '/bookings', { body: '{}' })).rejects.toBeInstanceOf(NetworkError);
    expect(post.sent).toHaveLength(1);
  });

  it('§4.6: pages include superseded rows and read the top-level cursor', async () => {
    const cursor = { after_sequence: 4, next_after_sequence: 6, has_more: false, latest_sequence: 6, retention_days: 30 };
    const c = client([{ status: 200, body: envelope([], { cursor }) }]);
    expect((await c.api.events(4)).cursor).toEqual(cursor);
    expect(c.sent[0]!.path).toBe('/api/integrations/v1/events?after_sequence=4&limit=200&include_superseded=true');
  });
});
