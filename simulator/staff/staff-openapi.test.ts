/**
 * spec/staff-openapi.yaml describes the staff plane exactly as routes.ts
 * implements it: the document is valid OpenAPI 3.1, its operations are the
 * router's routes (no more, no fewer), and a tour that calls every operation
 * observes exactly the documented statuses, each body matching its schema.
 */
import { fileURLToPath } from 'node:url';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeHarness, newKey, type Harness } from '../testing.ts';
import { STAFF_ROOT, staffRouter } from './routes.ts';

// ajv-formats ships CommonJS; under NodeNext its default export is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

const SPEC_PATH = fileURLToPath(new URL('../../spec/staff-openapi.yaml', import.meta.url));
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;
const STAFF_TOKEN = 'stf_test_staff_token';
/** 15 digits: a well-formed id that names nothing. */
const UNKNOWN_ID = '999999999999999';

type Json = Record<string, any>;
interface DocOperation {
  method: string;
  template: string;
  matcher: RegExp;
  hasPathId: boolean;
  hasBody: boolean;
  responses: Record<string, Json>;
}

/** `METHOD /template` keys of every documented operation. */
function documentedRoutes(doc: Json): string[] {
  return Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    METHODS.filter((m) => (item as Json)[m]).map((m) => `${m.toUpperCase()} ${path}`));
}

describe('spec/staff-openapi.yaml', () => {
  it('validates as OpenAPI 3.1 with swagger-parser', async () => {
    await expect(SwaggerParser.validate(SPEC_PATH)).resolves.toBeTruthy();
  });

  it('documents every route registered by staffRouter() with its method, and nothing else', async () => {
    const doc = (await SwaggerParser.parse(SPEC_PATH)) as Json;
    const h = makeHarness();
    const router = staffRouter({ platform: h.sim.platform, clock: h.sim.clock, webhooks: h.sim.webhooks, syncs: h.sim.sync });
    const registered = router.stack.flatMap((layer) =>
      layer.methods
        // @koa/router adds HEAD to every GET by itself; the GET is what is documented.
        .filter((m) => !(m === 'HEAD' && layer.methods.includes('GET')))
        .map((m) => `${m} ${String(layer.path).slice(STAFF_ROOT.length).replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`));
    expect(registered.length, 'the router registered no routes').toBeGreaterThan(20);
    expect(new Set(registered).size, 'a route is registered twice').toBe(registered.length);
    const documented = documentedRoutes(doc);
    expect({ undocumented: registered.filter((r) => !documented.includes(r)), unrouted: documented.filter((r) => !registered.includes(r)) })
      .toEqual({ undocumented: [], unrouted: [] });
  });

  describe('a tour of every operation', () => {
    let operations: DocOperation[];
    let ajv: Ajv2020;
    const validators = new Map<object, ValidateFunction>();

    beforeAll(async () => {
      const doc = (await SwaggerParser.dereference(SPEC_PATH)) as Json;
      ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
      operations = Object.entries(doc.paths as Json).flatMap(([template, item]) =>
        METHODS.filter((m) => (item as Json)[m]).map((m) => {
          const op = (item as Json)[m] as Json;
          const params = [...((item as Json).parameters ?? []), ...(op.parameters ?? [])] as Json[];
          return {
            method: m.toUpperCase(),
            template,
            matcher: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
            hasPathId: params.some((p) => p.in === 'path'),
            hasBody: op.requestBody !== undefined,
            responses: op.responses as Record<string, Json>,
          };
        }));
    });

    /** Calls the staff plane and checks the answer against the document; returns the parsed body. */
    async function call(h: Harness, problems: string[], seen: Set<string>, method: string, path: string, body?: unknown, token: string | null = STAFF_TOKEN) {
      const op = operations.find((o) => o.method === method && o.matcher.test(path));
      if (!op) throw new Error(`tour calls ${method} ${path}, which the document does not describe`);
      let req = h.http[method.toLowerCase() as 'get' | 'put' | 'post'](STAFF_ROOT + path);
      if (token !== null) req = req.set('Authorization', `Bearer ${token}`);
      const res = body === undefined ? await req : await req.send(body as object);
      const where = `${method} ${op.template} (${path})`;
      seen.add(`${method} ${op.template} ${res.status}`);
      const documented = op.responses[String(res.status)];
      if (!documented) {
        problems.push(`${where}: received ${res.status} ${res.text.slice(0, 200)}; documented: ${Object.keys(op.responses).join(', ')}`);
        return res.body as Json;
      }
      const schema = documented.content?.['application/json']?.schema as object | undefined;
      if (!schema) {
        problems.push(`${where}: ${res.status} documents no JSON body`);
        return res.body as Json;
      }
      let validate = validators.get(schema);
      if (!validate) validators.set(schema, (validate = ajv.compile(schema)));
      if (!validate(res.body)) problems.push(`${where} ${res.status}: ${ajv.errorsText(validate.errors)} in ${res.text.slice(0, 300)}`);
      return res.body as Json;
    }

    it('observes exactly the documented statuses, every body matching its schema', async () => {
      const h = makeHarness();
      const problems: string[] = [];
      const seen = new Set<string>();
      /** The first body that succeeded per operation, reused for the 401 and 404 rounds. */
      const samples: { method: string; path: string; body?: unknown }[] = [];
      const ok = async (method: string, path: string, body?: unknown) => {
        const res = await call(h, problems, seen, method, path, body);
        if (res?.success === true) samples.push({ method, path, body });
        return res?.data as Json;
      };
      const [acme] = h.fixtures.integrations;
      const hilltop = acme!.properties.find((p) => p.units.length === 1 && !p.archived)!;

      await ok('GET', '/world');
      const brand = await ok('POST', '/brands', { name: 'Tour Brand' });
      const property = await ok('POST', '/properties', { brand_id: brand.id, name: 'Tour Villa', external_id: 'TOUR', city: 'Goa', ownership: 'owned' });
      await ok('GET', `/properties/${property.id}`);
      const unit = await ok('POST', `/properties/${property.id}/units`, { name: 'Tour Room', external_unit_id: 'TOUR-1', max_adults: 2, max_children: 0 });
      await ok('POST', `/units/${unit.id}/deactivate`);
      await ok('POST', `/units/${unit.id}/activate`);
      await ok('POST', `/properties/${property.id}/archive`);
      await ok('POST', `/properties/${property.id}/unarchive`);
      await ok('PUT', `/properties/${property.id}/nights`, { from: '2026-10-01', to: '2026-10-03', is_blocked: true, block_scope: 'ota_only', units_cap: 1 });
      await ok('PUT', `/properties/${property.id}/rates`, { from: '2026-10-01', to: '2026-10-03', base_rate: 7000, extra_adult_rate: 900, extra_child_rate: 0 });
      await ok('PUT', `/properties/${property.id}/restrictions`, { from: '2026-10-01', to: '2026-10-03', min_stay: 2, max_stay: 10, closed_to_arrival: true, closed_to_departure: false, stop_sell: false });
      const integration = await ok('POST', '/integrations', { brand_id: brand.id, name: 'Tour Channel', webhook_url: 'https://example.invalid/hook', event_types: ['booking.changed'], horizon_days: 30 });
      await ok('GET', `/integrations/${integration.id}`);
      await ok('PUT', `/integrations/${integration.id}/coverage`, { property_ids: [property.id] });
      await ok('PUT', `/integrations/${integration.id}/webhook`, { url: null });
      await ok('PUT', `/integrations/${integration.id}/rate-limit`, { limit: 100, window_seconds: 60 });
      // No URL is configured, so the ping reports why nothing was sent, without touching the network.
      await ok('POST', `/integrations/${integration.id}/ping`);
      await ok('GET', `/integrations/${integration.id}/deliveries`);
      await ok('POST', `/integrations/${integration.id}/rotate-api-key`);
      await ok('POST', `/integrations/${integration.id}/rotate-webhook-secret`);
      await ok('POST', `/integrations/${integration.id}/pause`);
      await ok('POST', `/integrations/${integration.id}/resume`);
      await ok('POST', `/integrations/${integration.id}/disable`);
      await ok('POST', `/integrations/${integration.id}/enable`);

      // Two bookings on the one-unit property: moving the second onto the first's nights is 409.
      const book = async (check_in: string, check_out: string) => {
        const res = await h.api('post', '/bookings').set('Idempotency-Key', newKey())
          .send(h.bookingBody({ property: { doorloom_id: hilltop.doorloom_id }, check_in, check_out }));
        expect(res.status, res.text).toBe(201);
        return res.body.data.id as number;
      };
      await book('2026-10-05', '2026-10-07');
      const second = await book('2026-10-10', '2026-10-12');
      await ok('GET', `/bookings/${second}`);
      await ok('POST', `/bookings/${second}/dates`, { check_in: '2026-10-20', check_out: '2026-10-22' });
      await call(h, problems, seen, 'POST', `/bookings/${second}/dates`, { check_in: '2026-10-05', check_out: '2026-10-06' });
      await ok('POST', `/bookings/${second}/status`, { status: 'cancelled' });

      await ok('GET', '/clock');
      await ok('PUT', '/clock', { now: '2026-09-20T00:00:00Z', frozen: true });
      await ok('POST', '/clock/advance', { seconds: 60 });
      await ok('PUT', '/api', { enabled: false });
      await ok('PUT', '/api', { enabled: true });
      await ok('PUT', '/settings', { create_latency_ms: 0 });

      for (const o of operations) {
        expect(samples.some((s) => s.method === o.method && o.matcher.test(s.path)), `the tour has no successful ${o.method} ${o.template}`).toBe(true);
      }
      const once = operations.map((o) => samples.find((s) => s.method === o.method && o.matcher.test(s.path))!);
      for (const s of once) await call(h, problems, seen, s.method, s.path, s.body, null);
      for (const s of once) await call(h, problems, seen, s.method, s.path, s.body, 'dlk_not_a_staff_token');
      for (const [i, s] of once.entries()) {
        if (operations[i]!.hasPathId) await call(h, problems, seen, s.method, s.path.replace(/\/[0-9]+(?=\/|$)/, `/${UNKNOWN_ID}`), s.body);
        if (operations[i]!.hasPathId) await call(h, problems, seen, s.method, s.path.replace(/\/[0-9]+(?=\/|$)/, '/abc'), s.body);
        if (operations[i]!.hasBody) await call(h, problems, seen, s.method, s.path, [s.body]);
        // An action that takes no body refuses one (issue 17).
        else if (s.method === 'POST') await call(h, problems, seen, s.method, s.path, { unexpected: true });
      }

      expect(problems).toEqual([]);
      const unobserved = operations.flatMap((o) => Object.keys(o.responses).map((status) => `${o.method} ${o.template} ${status}`)).filter((k) => !seen.has(k));
      expect(unobserved, 'documented answers the tour never saw').toEqual([]);
    });
  });
});
