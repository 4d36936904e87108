/**
 * spec/control-openapi.yaml is the contract a platform can offer on staging,
 * and the simulator implements all of it: the document is valid OpenAPI 3.1,
 * its operations are exactly controlRoutes() (each with its x-action), the
 * capabilities list every action, every action answers its documented shape
 * and has the effect a partner sees through the partner API, and refusals
 * answer the error envelope.
 */
import { fileURLToPath } from 'node:url';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { CONTROL_ROOT } from '../http/app.ts';
import { makeHarness, newKey, type Harness } from '../testing.ts';
import { controlRoutes, offeredActions } from './routes.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const SPEC_PATH = fileURLToPath(new URL('../../spec/control-openapi.yaml', import.meta.url));
const TOKEN = 'stf_test_staff_token';
type Json = Record<string, any>;

async function documented(): Promise<{ action: string | undefined; method: string; path: string; op: Json }[]> {
  const doc = (await SwaggerParser.dereference(SPEC_PATH)) as Json;
  return Object.entries(doc.paths as Json).flatMap(([path, item]) => ['get', 'put', 'post'].filter((m) => (item as Json)[m])
    .map((method) => ({ action: (item as Json)[method]['x-action'] as string | undefined, method, path, op: (item as Json)[method] as Json })));
}

function control(h: Harness, method: 'get' | 'post' | 'put', path: string, body?: unknown, token: string | null = TOKEN) {
  let req = h.http[method](CONTROL_ROOT + path);
  if (token !== null) req = req.set('Authorization', `Bearer ${token}`);
  return body === undefined ? req : req.send(body as object);
}

describe('spec/control-openapi.yaml', () => {
  it('validates as OpenAPI 3.1', async () => {
    await expect(SwaggerParser.validate(SPEC_PATH)).resolves.toBeTruthy();
  });

  it('documents exactly the routes the simulator serves, each naming its action, and the action list is the capabilities enum', async () => {
    const ops = await documented();
    const served = controlRoutes().map((r) => `${r.method} ${r.path.replace(/:([a-z_]+)/g, '{$1}')} ${r.action}`);
    expect(ops.filter((o) => o.action).map((o) => `${o.method} ${o.path} ${o.action}`).sort()).toEqual(served.sort());
    expect(ops.filter((o) => !o.action).map((o) => `${o.method} ${o.path}`)).toEqual(['get /capabilities']);
    const doc = (await SwaggerParser.parse(SPEC_PATH)) as Json;
    expect([...doc.components.schemas.ActionName.enum].sort()).toEqual(offeredActions().sort());
  });

  it('a tour of every action: documented statuses and shapes, and the effect a partner sees', async () => {
    const posted: { url: string; body: string }[] = [];
    const h = makeHarness({ transport: { post: async (url, _headers, body) => (posted.push({ url, body }), { status: 200 }) } });
    const ops = await documented();
    const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
    const problems: string[] = [];
    const call = async (method: 'get' | 'post' | 'put', path: string, body?: unknown, token: string | null = TOKEN) => {
      const res = await control(h, method, path, body, token);
      const op = ops.find((o) => o.method === method && new RegExp(`^${o.path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path));
      const schema = op?.op.responses[String(res.status)]?.content?.['application/json']?.schema;
      if (!schema) problems.push(`${method} ${path}: ${res.status} is not documented`);
      else if (!ajv.validate(schema, res.body)) problems.push(`${method} ${path} ${res.status}: ${ajv.errorsText(ajv.errors)}`);
      return res;
    };
    const main = h.fixtures.integrations[0]!;
    const slug = (await h.api('get', '/me')).body.data.slug as string;
    const property = main.properties.find((p) => !p.archived)!.doorloom_id;
    const last = async () => (await h.api('get', '/me')).body.data.webhook.last_sequence as number;

    expect((await call('get', '/capabilities')).body.data.actions).toEqual(offeredActions());

    expect((await call('post', `/integrations/${slug}/pause`)).status).toBe(200);
    expect((await h.api('get', '/me')).body.data.status).toBe('paused');
    expect((await call('post', `/integrations/${slug}/resume`)).status).toBe(200);
    expect((await h.api('get', '/me')).body.data.status).toBe('active');
    expect((await call('put', `/integrations/${slug}/webhook`, { url: 'https://example.invalid/hook' })).status).toBe(200);
    expect((await h.api('get', '/me')).body.data.webhook.url).toBe('https://example.invalid/hook');
    expect((await call('put', `/integrations/${slug}/webhook`, { url: null })).status).toBe(200);
    expect((await h.api('get', '/me')).body.data.webhook).toMatchObject({ configured: false, url: null });
    expect((await call('put', `/integrations/${slug}/webhook`, { url: 'https://example.invalid/hook' })).status).toBe(200);
    expect((await call('put', `/integrations/${slug}/webhook/event-types`, { event_types: ['rates.changed', 'booking.changed'] })).status).toBe(200);
    expect((await h.api('get', '/me')).body.data.webhook.event_types).toEqual(['rates.changed', 'booking.changed']);
    expect((await call('put', `/integrations/${slug}/webhook/event-types`, { event_types: ['bookings.changed'] })).status).toBe(422);
    expect((await call('put', `/integrations/${slug}/webhook/event-types`, { event_types: ['availability.changed', 'rates.changed', 'restrictions.changed', 'inventory.changed', 'property.changed', 'booking.changed'] })).status).toBe(200);
    expect((await call('post', `/integrations/${slug}/disable`)).status).toBe(200);
    expect([(await h.api('get', '/me')).status, (await h.api('get', '/me')).body.code]).toEqual([403, 'INTEGRATION_DISABLED']);
    expect((await call('post', `/integrations/${slug}/enable`)).status).toBe(200);
    expect((await h.api('get', '/me')).body.data.status).toBe('active');
    expect((await call('post', `/integrations/${slug}/ping`)).status).toBe(200);
    expect(posted.map((p) => [p.url, JSON.parse(p.body).type])).toContainEqual(['https://example.invalid/hook', 'ping']);
    // rate-limit.set reads the limit in force too (the partner API never shows the window), so a run can put it back.
    expect((await call('get', `/integrations/${slug}/rate-limit`)).body.data.rate_limit).toEqual({ limit: 6000, window_seconds: 60 });
    expect((await call('put', `/integrations/${slug}/rate-limit`, { limit: 77, window_seconds: 45 })).status).toBe(200);
    expect((await h.api('get', '/me')).headers['x-ratelimit-limit']).toBe('77');
    expect((await call('get', `/integrations/${slug}/rate-limit`)).body.data.rate_limit).toEqual({ limit: 77, window_seconds: 45 });

    // coverage.set reads the coverage in force too (the partner API shows only its count), so a run can put it back.
    const coverage = (await call('get', `/integrations/${slug}/coverage`)).body.data.coverage as number[];
    expect(coverage).toEqual(main.properties.map((p) => p.doorloom_id));
    expect((await call('put', `/integrations/${slug}/coverage`, { property_ids: coverage.filter((p) => p !== property) })).status).toBe(200);
    expect((await h.api('get', '/me')).body.data.covered_properties).toBe(coverage.length - 1);
    expect((await h.api('get', `/properties/${property}/availability?from=2026-11-01&to=2026-11-01`)).status).toBe(404);
    expect((await call('put', `/integrations/${slug}/coverage`, { property_ids: coverage })).status).toBe(200);
    expect((await call('put', `/integrations/${slug}/coverage`, { property_ids: 'all' })).status).toBe(422);
    expect((await h.api('get', '/me')).body.data.covered_properties).toBe(coverage.length);
    // property.archive and unit.deactivate, and their ways back: what a create is refused with meanwhile.
    const booked = (body: object) => h.api('post', '/bookings').set('Idempotency-Key', newKey()).send(h.bookingBody({ check_in: '2026-12-20', check_out: '2026-12-21', ...body }));
    expect((await call('post', `/properties/${property}/archive`)).status).toBe(200);
    expect((await booked({ property: { doorloom_id: property } })).body.code).toBe('PROPERTY_ARCHIVED');
    expect((await call('post', `/properties/${property}/unarchive`)).status).toBe(200);
    const unit = main.properties.find((p) => p.doorloom_id === property)!.units.find((u) => u.active)!.inventory_id;
    expect((await call('post', `/units/${unit}/deactivate`)).status).toBe(200);
    expect((await booked({ property: { doorloom_id: property }, units: [{ adults: 1, inventory_id: unit }] })).body.code).toBe('UNIT_INACTIVE');
    expect((await call('post', `/units/${unit}/activate`)).status).toBe(200);
    expect((await booked({ property: { doorloom_id: property }, units: [{ adults: 1, inventory_id: unit }] })).status).toBe(201);

    for (const [action, body, type] of [
      ['rates', { from: '2026-11-01', to: '2026-11-02', base_rate: 7000 }, 'rates.changed'],
      ['restrictions', { from: '2026-11-01', to: '2026-11-02', min_stay: 2 }, 'restrictions.changed'],
      ['nights', { from: '2026-11-01', to: '2026-11-02', units_cap: 1 }, 'availability.changed'],
    ] as const) {
      const before = await last();
      expect((await call('put', `/properties/${property}/${action}`, body)).status).toBe(200);
      const rows = (await h.api('get', `/events?after_sequence=${before}`)).body.data;
      expect(rows.map((r: Json) => r.event.type), action).toContain(type);
    }

    const created = await h.api('post', '/bookings').set('Idempotency-Key', newKey()).send(h.bookingBody({ check_in: '2026-12-01', check_out: '2026-12-03' }));
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.id as number;
    expect((await call('post', `/bookings/${id}/dates`, { check_in: '2026-12-10', check_out: '2026-12-12' })).status).toBe(200);
    expect((await h.api('get', `/bookings/${id}`)).body.data.check_in).toBe('2026-12-10');
    expect((await call('post', `/bookings/${id}/status`, { status: 'cancelled' })).status).toBe(200);
    expect((await h.api('get', `/bookings/${id}`)).body.data.status).toBe('cancelled');

    const before = h.sim.clock.now();
    const moved = await call('post', '/clock/advance', { seconds: 3600 });
    expect(moved.body.data.epoch_ms).toBe(before + 3_600_000);

    expect((await call('put', '/api', { enabled: false })).status).toBe(200);
    expect((await h.api('get', '/me')).text).toBe('');
    expect((await call('put', '/api', { enabled: true })).status).toBe(200);

    const secret = await call('post', `/integrations/${slug}/rotate-webhook-secret`);
    expect(secret.body.data.webhook_secret).toMatch(/^whsec_/);
    const key = (await call('post', `/integrations/${slug}/rotate-api-key`)).body.data.api_key as string;
    expect((await h.api('get', '/me')).status).toBe(401);
    expect((await h.api('get', '/me', key)).status).toBe(200);

    // Refusals: the envelope, never a 5xx.
    expect((await call('post', '/integrations/no-such-slug/pause')).status).toBe(404);
    expect((await call('put', `/properties/${property}/rates`, { from: 'soon', to: '2026-11-02' })).status).toBe(422);
    expect((await call('post', '/bookings/999999999/status', { status: 'cancelled' })).status).toBe(404);
    expect((await call('post', '/units/999999999/deactivate')).status).toBe(404);
    expect((await call('post', '/properties/999999999/archive')).status).toBe(404);
    expect((await call('get', '/capabilities', undefined, null)).status).toBe(401);
    expect((await call('post', `/integrations/${slug}/pause`, undefined, 'dlk_not_the_token')).status).toBe(401);
    const unknown = await control(h, 'get', '/no/such/route');
    expect([unknown.status, unknown.body.success, unknown.body.code]).toEqual([404, false, 'NOT_FOUND']);
    expect(problems).toEqual([]);
  });
});
