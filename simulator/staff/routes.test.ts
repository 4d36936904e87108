/**
 * The staff control plane through HTTP (supertest, no port): each test is
 * named after the rule it proves, and where a staff action should change
 * what a partner sees, the partner API is asked too.
 */
import { describe, expect, it, vi } from 'vitest';
import type supertest from 'supertest';
import { nightKey } from '../domain/inventory.ts';
import { MAX_BODY_BYTES } from '../http/body.ts';
import { claimHeld, expectConformingResponses, makeHarness, newKey, TEST_NOW, type Harness } from '../testing.ts';
import { STAFF_ROOT } from './routes.ts';

type Method = 'get' | 'post' | 'put';

/** A raw staff request (the harness's `staff()` throws on non-2xx; these tests look at refusals too). */
function staff(h: Harness, method: Method, path: string, body?: unknown, authorization: string | null = `Bearer ${h.fixtures.staffToken}`): supertest.Test {
  let req = h.http[method](STAFF_ROOT + path);
  if (authorization !== null) req = req.set('Authorization', authorization);
  return body === undefined ? req : req.send(body as object);
}

function expectError(res: supertest.Response, status: number, code: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.type).toBe('application/json');
  expect(res.body).toEqual({ success: false, code, message: expect.any(String), errors: expect.any(Object) });
}

/** 422 VALIDATION_FAILED whose `errors` names `field` with at least one message. */
function expectFieldRefused(res: supertest.Response, field: string): void {
  expectError(res, 422, 'VALIDATION_FAILED');
  expect(Object.keys(res.body.errors), res.text).toContain(field);
  expect(res.body.errors[field]).toEqual([expect.any(String)]);
}

function create(h: Harness, overrides: Record<string, unknown> = {}, key: number | string = 0): supertest.Test {
  return h.api('post', '/bookings', key).set('Idempotency-Key', newKey()).send(h.bookingBody(overrides));
}

/** The demo property of integrations[0] with exactly one unit (HILLTOP). */
function oneUnitProperty(h: Harness) {
  return h.fixtures.integrations[0]!.properties.find((p) => !p.archived && p.units.length === 1)!;
}

async function bookOneUnit(h: Harness, check_in: string, check_out: string): Promise<supertest.Response> {
  return create(h, { property: { doorloom_id: oneUnitProperty(h).doorloom_id }, check_in, check_out });
}

describe('staff token guard', () => {
  it.each([
    ['no Authorization header', () => null],
    ['an integration API key', (h: Harness) => `Bearer ${h.fixtures.integrations[0]!.apiKey}`],
    ['a wrong staff token', () => 'Bearer stf_not_the_staff_token'],
    ['the staff token under another scheme', (h: Harness) => `Basic ${h.fixtures.staffToken}`],
    ['the staff token with trailing text', (h: Harness) => `Bearer ${h.fixtures.staffToken} x`],
  ])('refuses %s with the 401 UNAUTHENTICATED envelope', async (_name, auth) => {
    const h = makeHarness();
    const res = await staff(h, 'get', '/world', undefined, auth(h));
    expectError(res, 401, 'UNAUTHENTICATED');
    expect(res.body.errors).toEqual({});
  });

  it('accepts the staff token', async () => {
    const h = makeHarness();
    const res = await staff(h, 'get', '/world');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, message: expect.any(String), data: { brands: expect.any(Array) } });
  });

  it('refuses an unauthenticated write before doing anything', async () => {
    const h = makeHarness();
    const before = (await h.staff('get', '/world')).brands.length;
    expectError(await staff(h, 'post', '/brands', { name: 'Sneaky' }, null), 401, 'UNAUTHENTICATED');
    expect((await h.staff('get', '/world')).brands).toHaveLength(before);
  });
});

describe('building the world', () => {
  it('creates a brand with an owned and a cohosted property and their units', async () => {
    const h = makeHarness();
    const brand = await h.staff('post', '/brands', { name: 'Test Brand' });
    expect(brand).toEqual({ id: expect.any(Number), name: 'Test Brand' });
    const owned = await h.staff('post', '/properties', { brand_id: brand.id, name: 'Owned Villa', external_id: 'OWNED', city: 'Pune' });
    const cohosted = await h.staff('post', '/properties', { brand_id: brand.id, name: 'Shared Flat', ownership: 'cohosted' });
    expect(owned).toMatchObject({ brand_id: brand.id, external_id: 'OWNED', city: 'Pune', ownership: 'owned', archived: false, master_property_id: owned.id });
    expect(cohosted).toMatchObject({ ownership: 'cohosted', external_id: `PROP-${cohosted.id}`, city: 'Goa' });
    const room = await h.staff('post', `/properties/${owned.id}/units`, { name: 'Room 1', external_unit_id: 'OWNED-1', max_adults: 2 });
    expect(room).toEqual({ id: expect.any(Number), property_id: owned.id, external_unit_id: 'OWNED-1', name: 'Room 1', active: true, max_adults: 2, max_children: 2 });
    await h.staff('post', `/properties/${owned.id}/units`, { name: 'Room 2' });

    expect(await h.staff('get', `/properties/${owned.id}`)).toEqual(owned);
    const world = await h.staff('get', '/world');
    expect(world.brands).toContainEqual(brand);
    const listed = world.properties.find((p: { id: number }) => p.id === owned.id);
    expect(listed.units.map((u: { name: string; external_unit_id: string | null }) => [u.name, u.external_unit_id])).toEqual([['Room 1', 'OWNED-1'], ['Room 2', null]]);
  });

  it('refuses a second unit with the same external_unit_id on a property (422 on external_unit_id), allows it on another', async () => {
    const h = makeHarness();
    const [a, b] = h.fixtures.integrations[0]!.properties;
    const taken = a!.units[0]!.external_unit_id;
    expectFieldRefused(await staff(h, 'post', `/properties/${a!.doorloom_id}/units`, { name: 'Clone', external_unit_id: taken }), 'external_unit_id');
    expect((await h.staff('get', '/world')).properties.find((p: { id: number }) => p.id === a!.doorloom_id).units).toHaveLength(a!.units.length);
    const elsewhere = await staff(h, 'post', `/properties/${b!.doorloom_id}/units`, { name: 'Clone', external_unit_id: taken });
    expect(elsewhere.status, elsewhere.text).toBe(201);
  });

  it.each([
    ['brands: name missing', 'post', '/brands', {}, 'name'],
    ['brands: name empty', 'post', '/brands', { name: '' }, 'name'],
    ['brands: name over 255', 'post', '/brands', { name: 'x'.repeat(256) }, 'name'],
    ['properties: unknown brand', 'post', '/properties', { brand_id: 999, name: 'X' }, 'brand_id'],
    ['properties: brand_id as a string', 'post', '/properties', { brand_id: '1', name: 'X' }, 'brand_id'],
    ['properties: unknown ownership', 'post', '/properties', { brand_id: 1, name: 'X', ownership: 'leased' }, 'ownership'],
    ['properties: external_id over 128', 'post', '/properties', { brand_id: 1, name: 'X', external_id: 'x'.repeat(129) }, 'external_id'],
    ['units: max_adults 0', 'post', '/properties/101/units', { name: 'X', max_adults: 0 }, 'max_adults'],
    ['units: max_children 51', 'post', '/properties/101/units', { name: 'X', max_children: 51 }, 'max_children'],
  ] as const)('refuses %s naming the field', async (_name, method, path, body, field) => {
    const h = makeHarness();
    expectFieldRefused(await staff(h, method, path, body), field);
  });

  it('answers 404 NOT_FOUND for units of an unknown or malformed property id', async () => {
    const h = makeHarness();
    expectError(await staff(h, 'post', '/properties/999999/units', { name: 'X' }), 404, 'NOT_FOUND');
    expectError(await staff(h, 'post', '/properties/abc/units', { name: 'X' }), 404, 'NOT_FOUND');
    expectError(await staff(h, 'get', '/properties/1234567890123456'), 404, 'NOT_FOUND');
  });
});

describe('integrations and credentials', () => {
  it('shows api_key and webhook_secret once at creation (201), never again, and the new key works on GET /me', async () => {
    const h = makeHarness();
    const created = await staff(h, 'post', '/integrations', { brand_id: 1, name: 'New Channel', webhook_url: 'https://partner.example/hooks' });
    expect(created.status, created.text).toBe(201);
    const { api_key: apiKey, webhook_secret: secret, ...rest } = created.body.data;
    expect(apiKey).toMatch(/^dlk_[0-9a-f]{48}$/);
    expect(secret).toMatch(/^whsec_[0-9a-f]{48}$/);
    expect(rest).toMatchObject({ slug: `new-channel-${rest.id}`, status: 'active', covered_properties: 0, coverage: [], webhook: { configured: true, url: 'https://partner.example/hooks' } });
    expect(rest.webhook.event_types).toHaveLength(6);

    const again = await staff(h, 'get', `/integrations/${rest.id}`);
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(rest);
    for (const text of [again.text, (await staff(h, 'get', '/world')).text]) {
      expect(text).not.toContain(apiKey);
      expect(text).not.toContain(secret);
    }

    const me = await h.api('get', '/me', apiKey);
    expect(me.status, me.text).toBe(200);
    expect(me.body.data).toMatchObject({ id: rest.id, slug: rest.slug, status: 'active', covered_properties: 0 });
    expectConformingResponses(h);
  });

  it.each([
    ['an unknown brand', { brand_id: 999, name: 'X' }, 'brand_id'],
    ['a taken slug', { brand_id: 1, name: 'X', slug: 'acme-channel' }, 'slug'],
    ['a slug over 64 characters', { brand_id: 1, name: 'X', slug: 's'.repeat(65) }, 'slug'],
    ['a webhook_url that is not http(s)', { brand_id: 1, name: 'X', webhook_url: 'ftp://partner.example/x' }, 'webhook_url'],
    ['a url (alias) that is not http(s)', { brand_id: 1, name: 'X', url: 'partner.example' }, 'url'],
    ['an unknown event type', { brand_id: 1, name: 'X', event_types: ['booking.created'] }, 'event_types'],
    ['horizon_days over 730', { brand_id: 1, name: 'X', horizon_days: 731 }, 'horizon_days'],
  ])('refuses to create an integration with %s, naming the field', async (_name, body, field) => {
    const h = makeHarness();
    const before = (await h.staff('get', '/world')).integrations.length;
    expectFieldRefused(await staff(h, 'post', '/integrations', body), field);
    expect((await h.staff('get', '/world')).integrations).toHaveLength(before);
  });

  it('rotate-api-key: the new key works at once and the previous key is 401', async () => {
    const h = makeHarness();
    const [acme] = h.fixtures.integrations;
    const rotated = await h.staff('post', `/integrations/${acme!.id}/rotate-api-key`);
    expect(rotated).toEqual({ api_key: expect.stringMatching(/^dlk_[0-9a-f]{48}$/) });
    expect(rotated.api_key).not.toBe(acme!.apiKey);
    expectError(await h.api('get', '/me', acme!.apiKey), 401, 'UNAUTHENTICATED');
    expect((await h.api('get', '/me', rotated.api_key)).status).toBe(200);
    expect(JSON.stringify(await h.staff('get', `/integrations/${acme!.id}`))).not.toContain(rotated.api_key);
    expectConformingResponses(h);
  });

  it('rotate-webhook-secret shows a new whsec_ secret once and leaves the API key alone', async () => {
    const h = makeHarness();
    const [acme] = h.fixtures.integrations;
    const rotated = await h.staff('post', `/integrations/${acme!.id}/rotate-webhook-secret`);
    expect(rotated).toEqual({ webhook_secret: expect.stringMatching(/^whsec_[0-9a-f]{48}$/) });
    expect(rotated.webhook_secret).not.toBe(acme!.webhookSecret);
    expect(JSON.stringify(await h.staff('get', `/integrations/${acme!.id}`))).not.toContain(rotated.webhook_secret);
    expect((await h.api('get', '/me')).status).toBe(200);
    expectConformingResponses(h);
  });

  it('pause sets status paused with paused_reason manual; resume clears it; the API keeps working throughout', async () => {
    const h = makeHarness();
    const id = h.fixtures.integrations[0]!.id;
    const paused = await h.staff('post', `/integrations/${id}/pause`);
    expect(paused).toMatchObject({ status: 'paused', webhook: { paused_reason: 'manual' } });
    expect(Date.parse(paused.webhook.paused_at)).toBe(TEST_NOW);
    const me = await h.api('get', '/me');
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({ status: 'paused', webhook: { paused_reason: 'manual', paused_at: paused.webhook.paused_at } });
    expect((await create(h)).status).toBe(201);

    const resumed = await h.staff('post', `/integrations/${id}/resume`);
    expect(resumed).toMatchObject({ status: 'active', webhook: { paused_at: null, paused_reason: null, consecutive_failures: 0 } });
    expect((await h.api('get', '/me')).body.data.status).toBe('active');
    expectConformingResponses(h);
  });

  it('disable makes every partner call 403 INTEGRATION_DISABLED; enable restores access', async () => {
    const h = makeHarness();
    const id = h.fixtures.integrations[0]!.id;
    expect(await h.staff('post', `/integrations/${id}/disable`)).toMatchObject({ status: 'disabled' });
    expectError(await h.api('get', '/me'), 403, 'INTEGRATION_DISABLED');
    expectError(await create(h), 403, 'INTEGRATION_DISABLED');
    expect(await h.staff('post', `/integrations/${id}/enable`)).toMatchObject({ status: 'active' });
    const me = await h.api('get', '/me');
    expect(me.status).toBe(200);
    expect(me.body.data.status).toBe('active');
    expectConformingResponses(h);
  });

  it('sets the webhook URL and event types, and null removes the URL', async () => {
    const h = makeHarness();
    const id = h.fixtures.integrations[0]!.id;
    const set = await h.staff('put', `/integrations/${id}/webhook`, { url: 'http://127.0.0.1:9/hook', event_types: ['booking.changed', 'booking.changed'] });
    expect(set.webhook).toMatchObject({ configured: true, url: 'http://127.0.0.1:9/hook', event_types: ['booking.changed'] });
    const cleared = await h.staff('put', `/integrations/${id}/webhook`, { url: null });
    expect(cleared.webhook).toMatchObject({ configured: false, url: null, event_types: ['booking.changed'] });
    expectFieldRefused(await staff(h, 'put', `/integrations/${id}/webhook`, { url: 'not a url' }), 'url');
  });

  it('sets the rate limit, and the partner API reports and enforces it', async () => {
    const h = makeHarness();
    const id = h.fixtures.integrations[0]!.id;
    expect(await h.staff('put', `/integrations/${id}/rate-limit`, { limit: 2, window_seconds: 60 })).toMatchObject({ rate_limit: { limit: 2, window_seconds: 60 } });
    const first = await h.api('get', '/me');
    expect(first.headers['x-ratelimit-limit']).toBe('2');
    await h.api('get', '/me');
    expectError(await h.api('get', '/me'), 429, 'RATE_LIMITED');
    expectFieldRefused(await staff(h, 'put', `/integrations/${id}/rate-limit`, { limit: 0, window_seconds: 60 }), 'limit');
    expectFieldRefused(await staff(h, 'put', `/integrations/${id}/rate-limit`, { limit: 5, window_seconds: 86_401 }), 'window_seconds');
    expectConformingResponses(h);
  });

  it('answers 404 NOT_FOUND for an unknown integration', async () => {
    const h = makeHarness();
    expectError(await staff(h, 'get', '/integrations/999'), 404, 'NOT_FOUND');
    expectError(await staff(h, 'post', '/integrations/999/pause'), 404, 'NOT_FOUND');
    expectError(await staff(h, 'put', '/integrations/999/coverage', { property_ids: [] }), 404, 'NOT_FOUND');
  });
});

describe('coverage', () => {
  it.each([
    ['a cohosted property of the brand', 1, (world: any) => world.properties.find((p: any) => p.external_id === 'PALMS').id],
    ["another brand's property", 0, (_world: any, h: Harness) => h.fixtures.integrations[1]!.properties[0]!.doorloom_id],
    ['an unknown property', 1, () => 999_999],
  ])('refuses %s with 422 naming property_ids.N, and changes nothing', async (_name, index, pick) => {
    const h = makeHarness();
    const id = h.fixtures.integrations[0]!.id;
    const world = await h.staff('get', '/world');
    const before = (await h.staff('get', `/integrations/${id}`)).coverage as number[];
    const bad = pick(world, h);
    const ids = index === 0 ? [bad, before[0]] : [before[0], bad];
    expectFieldRefused(await staff(h, 'put', `/integrations/${id}/coverage`, { property_ids: ids }), `property_ids.${index}`);
    expect((await h.staff('get', `/integrations/${id}`)).coverage).toEqual(before);
  });

  it('refuses property_ids that are not an array of integers', async () => {
    const h = makeHarness();
    const id = h.fixtures.integrations[0]!.id;
    for (const property_ids of [undefined, 101, ['101'], [1.5]]) {
      expectFieldRefused(await staff(h, 'put', `/integrations/${id}/coverage`, { property_ids }), 'property_ids');
    }
  });

  it('accepts an owned property of the brand; /me covered_properties and bookings follow coverage both ways', async () => {
    const h = makeHarness();
    const acme = await h.staff('get', `/integrations/${h.fixtures.integrations[0]!.id}`);
    const before = acme.coverage as number[];
    const property = await h.staff('post', '/properties', { brand_id: acme.brand.id, name: 'New Villa', external_id: 'NEW-VILLA' });
    await h.staff('post', `/properties/${property.id}/units`, { name: 'Only Room' });
    const onNew = { property: { external_id: 'NEW-VILLA' } };
    expectError(await create(h, onNew), 422, 'PROPERTY_NOT_MAPPED');

    const covered = await h.staff('put', `/integrations/${acme.id}/coverage`, { property_ids: [property.id, ...before, property.id] });
    expect(covered.coverage).toEqual([...before, property.id].sort((a, b) => a - b));
    expect(covered.covered_properties).toBe(before.length + 1);
    expect((await h.api('get', '/me')).body.data.covered_properties).toBe(before.length + 1);
    expect((await create(h, onNew)).status).toBe(201);

    await h.staff('put', `/integrations/${acme.id}/coverage`, { property_ids: before });
    expect((await h.api('get', '/me')).body.data.covered_properties).toBe(before.length);
    expectError(await create(h, onNew), 422, 'PROPERTY_NOT_MAPPED');
    expectConformingResponses(h);
  });
});

describe('archive and unit activity', () => {
  it('an archived property refuses creates with PROPERTY_ARCHIVED until it is unarchived', async () => {
    const h = makeHarness();
    const pid = h.fixtures.integrations[0]!.properties[0]!.doorloom_id;
    expect(await h.staff('post', `/properties/${pid}/archive`)).toMatchObject({ id: pid, archived: true });
    expectError(await create(h), 422, 'PROPERTY_ARCHIVED');
    expect(await h.staff('post', `/properties/${pid}/unarchive`)).toMatchObject({ id: pid, archived: false });
    expect((await create(h)).status).toBe(201);
    expectConformingResponses(h);
  });

  it('a deactivated unit refuses a pinned create with UNIT_INACTIVE until it is activated', async () => {
    const h = makeHarness();
    const unit = h.fixtures.integrations[0]!.properties[0]!.units[0]!;
    const pinned = { units: [{ adults: 2, inventory_id: unit.inventory_id }] };
    expect(await h.staff('post', `/units/${unit.inventory_id}/deactivate`)).toMatchObject({ id: unit.inventory_id, active: false });
    expectError(await create(h, pinned), 422, 'UNIT_INACTIVE');
    expect(await h.staff('post', `/units/${unit.inventory_id}/activate`)).toMatchObject({ id: unit.inventory_id, active: true });
    expect((await create(h, pinned)).status).toBe(201);
    expectError(await staff(h, 'post', '/units/999999/activate'), 404, 'NOT_FOUND');
    expectConformingResponses(h);
  });
});

describe('nights, rates and restrictions windows', () => {
  const windows = ['nights', 'rates', 'restrictions'] as const;
  const badWindows: [string, Record<string, unknown>, string][] = [
    ['from missing', { to: '2026-10-02' }, 'from'],
    ['from not a date', { from: '2026-13-01', to: '2026-10-02' }, 'from'],
    ['from an impossible date', { from: '2026-02-30', to: '2026-10-02' }, 'from'],
    ['to not a date', { from: '2026-10-01', to: 'tomorrow' }, 'to'],
    ['to before from', { from: '2026-10-05', to: '2026-10-04' }, 'to'],
    ['over 731 nights', { from: '2026-10-01', to: '2028-10-01' }, 'to'],
  ];
  it.each(windows.flatMap((w) => badWindows.map(([name, body, field]) => [w, name, body, field] as const)))(
    'PUT %s refuses %s with 422 naming the field',
    async (what, _name, body, field) => {
      const h = makeHarness();
      expectFieldRefused(await staff(h, 'put', `/properties/101/${what}`, { ...body, units_cap: 1, base_rate: 1, min_stay: 5 }), field);
      // Nothing was written for any night the window names.
      for (const date of [body.from, body.to]) {
        if (typeof date === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(date)) expect(h.sim.store.get(what, nightKey(101, date))).toBeUndefined();
      }
    },
  );

  it('PUT nights blocks nights so a create over them is 409 UNAVAILABLE, and unblocking sells them again', async () => {
    const h = makeHarness();
    const pid = oneUnitProperty(h).doorloom_id;
    const set = await h.staff('put', `/properties/${pid}/nights`, { from: '2026-10-06', to: '2026-10-06', is_blocked: true });
    expect(set).toEqual({ property_id: pid, from: '2026-10-06', to: '2026-10-06', is_blocked: true });
    const refused = await bookOneUnit(h, '2026-10-05', '2026-10-08');
    expectError(refused, 409, 'UNAVAILABLE');
    expect(refused.body.errors.availability.dates.find((d: { date: string }) => d.date === '2026-10-06')).toMatchObject({ is_blocked: true, block_scope: 'everywhere', available_units: 0 });
    await h.staff('put', `/properties/${pid}/nights`, { from: '2026-10-06', to: '2026-10-06', is_blocked: false });
    expect((await bookOneUnit(h, '2026-10-05', '2026-10-08')).status).toBe(201);
    expectFieldRefused(await staff(h, 'put', `/properties/${pid}/nights`, { from: '2026-10-06', to: '2026-10-06', block_scope: 'somewhere' }), 'block_scope');
    expectFieldRefused(await staff(h, 'put', `/properties/${pid}/nights`, { from: '2026-10-06', to: '2026-10-06', units_cap: -1 }), 'units_cap');
    expectConformingResponses(h);
  });

  it('PUT rates and PUT restrictions store every night of the window, keeping what was not sent', async () => {
    const h = makeHarness();
    expect(await h.staff('put', '/properties/101/rates', { from: '2026-11-01', to: '2026-11-03', base_rate: 7777 }))
      .toEqual({ property_id: 101, from: '2026-11-01', to: '2026-11-03', base_rate: 7777 });
    expect(await h.staff('put', '/properties/101/restrictions', { from: '2026-11-01', to: '2026-11-03', min_stay: 3, stop_sell: true }))
      .toEqual({ property_id: 101, from: '2026-11-01', to: '2026-11-03', min_stay: 3, stop_sell: true });
    for (const date of ['2026-11-01', '2026-11-02', '2026-11-03']) {
      expect(h.sim.store.get('rates', nightKey(101, date))).toMatchObject({ base_rate: 7777, extra_adult_rate: 800 });
      expect(h.sim.store.get('restrictions', nightKey(101, date))).toMatchObject({ min_stay: 3, stop_sell: true, max_stay: 30 });
    }
    expect(h.sim.store.get('rates', nightKey(101, '2026-11-04'))).toBeUndefined();
    expectFieldRefused(await staff(h, 'put', '/properties/101/rates', { from: '2026-11-01', to: '2026-11-03', base_rate: -1 }), 'base_rate');
    expectFieldRefused(await staff(h, 'put', '/properties/101/restrictions', { from: '2026-11-01', to: '2026-11-03', min_stay: 0 }), 'min_stay');
  });
});

describe('booking status transitions', () => {
  it.each([
    ['pending', ['confirmed', 'cancelled', 'refunded']],
    ['pending', ['cancelled', 'refunded']],
    ['confirmed', ['completed', 'refunded']],
    ['confirmed', ['cancelled']],
  ] as const)('from %s, each allowed step %j raises revision by 1 and updated_at', async (initial, steps) => {
    const h = makeHarness();
    const created = await create(h, { status: initial });
    expect(created.status, created.text).toBe(201);
    let { revision, updated_at: updatedAt } = created.body.data;
    expect(revision).toBe(1);
    for (const status of steps) {
      await h.staff('post', '/clock/advance', { seconds: 60 });
      const next = await h.staff('post', `/bookings/${created.body.data.id}/status`, { status });
      expect(next).toMatchObject({ status, revision: revision + 1 });
      expect(Date.parse(next.updated_at) - Date.parse(updatedAt)).toBe(60_000);
      ({ revision, updated_at: updatedAt } = next);
    }
    const seen = await h.api('get', `/bookings/${created.body.data.id}`);
    expect(seen.body.data).toMatchObject({ status: steps.at(-1), revision: steps.length + 1, updated_at: updatedAt });
    expectConformingResponses(h);
  });

  it.each([
    ['refunded', 'confirmed', ['cancelled', 'refunded']],
    ['confirmed', 'pending', []],
    ['confirmed', 'confirmed', []],
    ['cancelled', 'confirmed', ['cancelled']],
    ['completed', 'cancelled', ['completed']],
  ] as const)('refuses %s -> %s with 422 on status and changes nothing', async (_from, to, path) => {
    const h = makeHarness();
    const id = (await create(h)).body.data.id;
    for (const status of path) await h.staff('post', `/bookings/${id}/status`, { status });
    const before = await h.staff('get', `/bookings/${id}`);
    await h.staff('post', '/clock/advance', { seconds: 60 });
    expectFieldRefused(await staff(h, 'post', `/bookings/${id}/status`, { status: to }), 'status');
    expect(await h.staff('get', `/bookings/${id}`)).toEqual(before);
    expectConformingResponses(h);
  });

  it('refuses an unknown status value and an unknown booking', async () => {
    const h = makeHarness();
    const id = (await create(h)).body.data.id;
    expectFieldRefused(await staff(h, 'post', `/bookings/${id}/status`, { status: 'void' }), 'status');
    expectFieldRefused(await staff(h, 'post', `/bookings/${id}/status`, {}), 'status');
    expectError(await staff(h, 'post', '/bookings/999999/status', { status: 'cancelled' }), 404, 'NOT_FOUND');
    expectError(await staff(h, 'get', '/bookings/999999'), 404, 'NOT_FOUND');
  });

  it('cancelling frees the unit: a new create for the same nights succeeds', async () => {
    const h = makeHarness();
    const first = await bookOneUnit(h, '2026-10-05', '2026-10-07');
    expect(first.status, first.text).toBe(201);
    expectError(await bookOneUnit(h, '2026-10-06', '2026-10-08'), 409, 'UNAVAILABLE');
    await h.staff('post', `/bookings/${first.body.data.id}/status`, { status: 'cancelled' });
    expect((await bookOneUnit(h, '2026-10-06', '2026-10-08')).status).toBe(201);
    expectConformingResponses(h);
  });

  it('completing keeps the unit held', async () => {
    const h = makeHarness();
    const first = await bookOneUnit(h, '2026-10-05', '2026-10-07');
    await h.staff('post', `/bookings/${first.body.data.id}/status`, { status: 'completed' });
    expectError(await bookOneUnit(h, '2026-10-05', '2026-10-07'), 409, 'UNAVAILABLE');
    expectConformingResponses(h);
  });
});

describe('booking date changes', () => {
  it('moves the stay, raises revision and updated_at, frees the old nights and holds the new ones', async () => {
    const h = makeHarness();
    const booking = (await bookOneUnit(h, '2026-10-05', '2026-10-07')).body.data;
    await h.staff('post', '/clock/advance', { seconds: 30 });
    const moved = await h.staff('post', `/bookings/${booking.id}/dates`, { check_in: '2026-10-20', check_out: '2026-10-23' });
    expect(moved).toMatchObject({ check_in: '2026-10-20', check_out: '2026-10-23', revision: 2, units: booking.units });
    expect(Date.parse(moved.updated_at) - Date.parse(booking.updated_at)).toBe(30_000);
    expect((await bookOneUnit(h, '2026-10-05', '2026-10-07')).status).toBe(201);
    expectError(await bookOneUnit(h, '2026-10-22', '2026-10-24'), 409, 'UNAVAILABLE');
    expect((await h.api('get', `/bookings/${booking.id}`)).body.data).toMatchObject({ check_in: '2026-10-20', revision: 2 });
    expectConformingResponses(h);
  });

  it('moving onto taken nights is 409 UNAVAILABLE with the availability body, and nothing changes', async () => {
    const h = makeHarness();
    const pid = oneUnitProperty(h).doorloom_id;
    await bookOneUnit(h, '2026-10-05', '2026-10-07');
    const second = (await bookOneUnit(h, '2026-10-10', '2026-10-12')).body.data;
    const before = await h.staff('get', `/bookings/${second.id}`);
    await h.staff('post', '/clock/advance', { seconds: 30 });
    const refused = await staff(h, 'post', `/bookings/${second.id}/dates`, { check_in: '2026-10-06', check_out: '2026-10-08' });
    expectError(refused, 409, 'UNAVAILABLE');
    expect(refused.body.errors.availability).toMatchObject({ property: { doorloom_id: pid }, window: { from: '2026-10-06', to: '2026-10-07' }, total_units: 1 });
    expect(refused.body.errors.availability.dates.map((d: { date: string }) => d.date)).toEqual(['2026-10-06', '2026-10-07']);
    expect(await h.staff('get', `/bookings/${second.id}`)).toEqual(before);
    // The refused move released nothing: the second booking still holds its own nights.
    expectError(await bookOneUnit(h, '2026-10-10', '2026-10-12'), 409, 'UNAVAILABLE');
    expectConformingResponses(h);
  });

  it.each([
    ['check_in not a date', { check_in: '10/05/2026', check_out: '2026-10-07' }, 'check_in'],
    ['check_in missing', { check_out: '2026-10-07' }, 'check_in'],
    ['check_out not a date', { check_in: '2026-10-05', check_out: '2026-10-32' }, 'check_out'],
    ['check_out before check_in', { check_in: '2026-10-05', check_out: '2026-10-04' }, 'check_out'],
    ['check_out equal to check_in', { check_in: '2026-10-05', check_out: '2026-10-05' }, 'check_out'],
    ['a stay over 30 nights', { check_in: '2026-10-01', check_out: '2026-11-01' }, 'check_out'],
  ])('refuses %s with 422 naming the field', async (_name, body, field) => {
    const h = makeHarness();
    const booking = (await create(h)).body.data;
    expectFieldRefused(await staff(h, 'post', `/bookings/${booking.id}/dates`, body), field);
    expect((await h.staff('get', `/bookings/${booking.id}`)).revision).toBe(1);
  });
});

describe('virtual clock', () => {
  it('reads, sets, freezes and advances the clock', async () => {
    const h = makeHarness();
    expect(await h.staff('get', '/clock')).toMatchObject({ epoch_ms: TEST_NOW, now: '2026-09-15T12:00:00.000+05:30', frozen: true });
    const set = await h.staff('put', '/clock', { now: '2026-12-01T00:00:00Z', frozen: true });
    expect(set).toMatchObject({ epoch_ms: Date.parse('2026-12-01T00:00:00Z'), now: '2026-12-01T05:30:00.000+05:30', frozen: true });
    const advanced = await h.staff('post', '/clock/advance', { seconds: 3600.5 });
    expect(advanced).toMatchObject({ epoch_ms: Date.parse('2026-12-01T01:00:00.500Z'), frozen: true });
    expect(await h.staff('get', '/clock')).toEqual(advanced);
    // A bare date is midnight in the platform zone.
    expect((await h.staff('put', '/clock', { now: '2027-01-01' })).now).toBe('2027-01-01T00:00:00.000+05:30');
    const running = await h.staff('put', '/clock', { frozen: false });
    expect(running.frozen).toBe(false);
    expect(running.epoch_ms).toBeGreaterThanOrEqual(Date.parse('2027-01-01T00:00:00+05:30'));
  });

  it('§4.5 rule 1: a step sweeps the keys already past 24 hours at its start, and a key the step expires is refused when read', async () => {
    const h = makeHarness();
    const stored = () => h.sim.store.size('idempotency');
    const send = (key: string, body: object) => h.api('post', '/bookings').set('Idempotency-Key', key).send(body);
    const [a, b] = [newKey(), newKey()];
    const [bodyA, bodyB] = [h.bookingBody({ check_in: '2026-10-01', check_out: '2026-10-02' }), h.bookingBody({ check_in: '2026-10-03', check_out: '2026-10-04' })];
    const first = await send(a, bodyA);
    const second = await send(b, bodyB);
    expect([first.status, second.status]).toEqual([201, 201]);
    await h.staff('post', '/clock/advance', { seconds: 86_400 - 60 });
    // Inside the 24 hours: kept through the step's sweep, and replayed.
    expect(stored()).toBe(2);
    expect((await send(a, bodyA)).text).toBe(first.text);
    await h.staff('post', '/clock/advance', { seconds: 120 });
    // Expired by this step: still stored (its sweep ran at its start), and never served: b makes a new create.
    expect(stored()).toBe(2);
    expect((await send(b, bodyB)).text).not.toBe(second.text);
    // The next step's sweep forgets a; b's new record is inside its own 24 hours.
    await h.staff('post', '/clock/advance', { seconds: 0 });
    expect(stored()).toBe(1);
    expectConformingResponses(h);
  });

  it('drives the partner API: after moving a month on, a check-in that became past is refused', async () => {
    const h = makeHarness();
    expect((await create(h, { check_in: '2026-10-01', check_out: '2026-10-02' })).status).toBe(201);
    await h.staff('post', '/clock/advance', { seconds: 30 * 86_400 });
    const res = await create(h, { check_in: '2026-10-01', check_out: '2026-10-02' });
    expectError(res, 422, 'VALIDATION_FAILED');
    expect(Object.keys(res.body.errors)).toEqual(['check_in']);
    expectConformingResponses(h);
  });

  it.each([
    ['now that does not parse', { now: 'next tuesday' }, 'now'],
    ['now as a number', { now: 1_790_000_000_000 }, 'now'],
    ['now empty', { now: '' }, 'now'],
    ['now beyond year 9999', { now: '+275760-09-13T00:00:00.000Z' }, 'now'],
    ['now before 1970', { now: '1969-12-31T00:00:00Z' }, 'now'],
    ['frozen not a boolean, even with a good now', { now: '2030-01-01T00:00:00Z', frozen: 'yes' }, 'frozen'],
  ])('PUT /clock refuses %s with 422 on the field and leaves the clock alone', async (_name, body, field) => {
    const h = makeHarness();
    const before = await h.staff('get', '/clock');
    expectFieldRefused(await staff(h, 'put', '/clock', body), field);
    expect(await h.staff('get', '/clock')).toEqual(before);
  });

  it.each([
    ['negative seconds', { seconds: -1 }],
    ['seconds as a string', { seconds: '60' }],
    ['no seconds', {}],
    ['seconds that would pass year 9999', { seconds: 1e300 }],
  ])('POST /clock/advance refuses %s with 422 on seconds and leaves the clock alone', async (_name, body) => {
    const h = makeHarness();
    const before = await h.staff('get', '/clock');
    expectFieldRefused(await staff(h, 'post', '/clock/advance', body), 'seconds');
    expect(await h.staff('get', '/clock')).toEqual(before);
    expect((await h.api('get', '/me')).status).toBe(200);
  });
});

describe('simulator switches', () => {
  it('PUT /api {"enabled":false} turns every partner route into a bare 404; true turns it back on', async () => {
    const h = makeHarness();
    expect(await h.staff('put', '/api', { enabled: false })).toEqual({ api_enabled: false });
    for (const res of [await h.api('get', '/me'), await h.api('get', '/bookings/1'), await h.api('get', '/nope', null), await create(h)]) {
      expect(res.status).toBe(404);
      expect(res.text).toBe('');
    }
    expect((await h.staff('get', '/world')).api_enabled).toBe(false);
    expect(await h.staff('put', '/api', { enabled: true })).toEqual({ api_enabled: true });
    expect((await h.api('get', '/me')).status).toBe(200);
    expectFieldRefused(await staff(h, 'put', '/api', { enabled: 'false' }), 'enabled');
    expectConformingResponses(h);
  });

  it('PUT /settings create_latency_ms holds a create in progress: an identical concurrent create is 409 IN_PROGRESS', async () => {
    const h = makeHarness();
    expect(await h.staff('put', '/settings', { create_latency_ms: 60_000 })).toEqual({ create_latency_ms: 60_000 });
    const key = newKey();
    const body = h.bookingBody();
    const send = () => h.api('post', '/bookings').set('Idempotency-Key', key).send(body).then((r) => r);
    const first = send();
    // The second create goes out once the first holds its key, not after a guessed delay.
    await claimHeld(h, key);
    expectError(await send(), 409, 'IN_PROGRESS');
    // Lowered, the setting ends the hold already begun: the first is decided now, not a minute later.
    await h.staff('put', '/settings', { create_latency_ms: 0 });
    const a = await first;
    expect(a.status, a.text).toBe(201);
    expect((await h.api('post', '/bookings').set('Idempotency-Key', key).send(body)).text).toBe(a.text);
    expectConformingResponses(h);
  });

  it.each([[-1], [60_001], [1.5], ['10'], [null]])('PUT /settings refuses create_latency_ms %j with 422', async (value) => {
    const h = makeHarness();
    expectFieldRefused(await staff(h, 'put', '/settings', { create_latency_ms: value }), 'create_latency_ms');
  });
});

describe('bad request bodies', () => {
  const routes: [Method, string][] = [
    ['post', '/brands'],
    ['post', '/integrations'],
    ['put', '/integrations/1/coverage'],
    ['put', '/integrations/1/webhook'],
    ['put', '/integrations/1/rate-limit'],
    ['post', '/properties'],
    ['post', '/properties/101/units'],
    ['put', '/properties/101/nights'],
    ['put', '/properties/101/rates'],
    ['put', '/properties/101/restrictions'],
    ['post', '/bookings/1/status'],
    ['post', '/bookings/1/dates'],
    ['put', '/clock'],
    ['post', '/clock/advance'],
    ['put', '/api'],
    ['put', '/settings'],
  ];
  const bodies: [string, string, string, string][] = [
    ['truncated JSON', 'application/json', '{"name":', '_body'],
    ['a JSON array', 'application/json', '[{"name":"x"}]', '_body'],
    ['JSON null', 'application/json', 'null', '_body'],
    ['a JSON string', 'application/json', '"hello"', '_body'],
    ['invalid UTF-8', 'application/json', '', '_body'],
    ['a text/plain body', 'text/plain', 'name=x', 'Content-Type'],
  ];

  it.each(routes)('%s %s answers every malformed body with a 422 envelope, never a 5xx', async (method, template) => {
    const h = makeHarness();
    const booking = (await create(h)).body.data;
    const path = template.replace('/bookings/1/', `/bookings/${booking.id}/`);
    const before = JSON.stringify(await h.staff('get', '/world'));
    for (const [name, type, text, field] of bodies) {
      // Sent as bytes exactly (superagent would otherwise JSON-encode a Buffer).
      const raw = name === 'invalid UTF-8' ? Buffer.from([0x7b, 0xff, 0x7d]) : Buffer.from(text, 'utf8');
      const res = await staff(h, method, path).set('Content-Type', type).serialize((b: Buffer) => b as never).send(raw as never);
      expect(res.status, `${name}: ${res.text}`).toBe(422);
      expectFieldRefused(res, field);
    }
    expect(JSON.stringify(await h.staff('get', '/world'))).toBe(before);
  });

  it('refuses a body over 1 MiB with 422 on _body', async () => {
    const h = makeHarness();
    const res = await staff(h, 'post', '/brands').set('Content-Type', 'application/json').send(JSON.stringify({ name: 'x'.repeat(MAX_BODY_BYTES) }));
    expectFieldRefused(res, '_body');
  });

  it('reads an empty body as {} (so required fields are named)', async () => {
    const h = makeHarness();
    expectFieldRefused(await staff(h, 'post', '/brands'), 'name');
    expect((await staff(h, 'put', '/clock')).status).toBe(200);
  });
});
