/**
 * Test harness: an in-process simulator with a frozen virtual clock, the
 * demo world, supertest against `app.callback()` (no port), and every
 * response checked against spec/openapi.yaml. Tests call
 * `expectConformingResponses()` (or use `harness.violations`) so a response
 * that breaks the contract fails the test that caused it.
 */
import supertest from 'supertest';
import { expect, vi } from 'vitest';
import type { ContractViolation, UnexpectedError } from './http/app.ts';
import { API_ROOT } from './http/app.ts';
import { STAFF_ROOT } from './staff/routes.ts';
import { VirtualClock } from './domain/clock.ts';
import { ChangeLog } from './domain/changes.ts';
import { createSimulator, type Simulator } from './simulator.ts';
import { seedDemoWorld, type Fixtures } from './demo-world.ts';
import type { Store } from './store/store.ts';
import type { Transport } from './webhooks/transport.ts';

/** A fixed "now" for tests: 2026-09-15 12:00 in the platform zone (06:30 UTC). */
export const TEST_NOW = Date.parse('2026-09-15T06:30:00Z');

export interface Harness {
  sim: Simulator;
  fixtures: Fixtures;
  http: ReturnType<typeof supertest>;
  violations: ContractViolation[];
  /** A request to the partner API with an integration's key (index into fixtures.integrations, or a raw key). */
  api(method: 'get' | 'post', path: string, key?: number | string | null): supertest.Test;
  /** A staff-plane request; resolves to the parsed envelope `data`, failing on a non-2xx answer. */
  staff<T = any>(method: 'get' | 'post' | 'put', path: string, body?: unknown): Promise<T>;
  /** A booking body that is valid for integrations[0]'s first property, with overrides merged in. */
  bookingBody(overrides?: Record<string, unknown>): Record<string, any>;
}

export interface HarnessOptions {
  store?: Store;
  now?: number;
  transport?: Transport;
  deliveryTimeoutMs?: number;
  /**
   * Check every response against the contract (default true). A benchmark
   * turns it off to time what `npm start` serves, which checks nothing.
   */
  checkResponses?: boolean;
  /** Deliberate breaches (simulator/faults.ts), for tests that show a guard or a check firing. */
  faults?: string[];
  /** The other readings of the document's tensions (simulator/domain/readings.ts). */
  readings?: string[];
  /** Told of every unexpected 500 (stderr by default). */
  onUnexpectedError?: (report: UnexpectedError) => void;
}

export function makeHarness(options: HarnessOptions = {}): Harness {
  const violations: ContractViolation[] = [];
  const clock = new VirtualClock(() => Date.now(), { offsetMs: 0, frozenAt: options.now ?? TEST_NOW });
  const sim = createSimulator({
    store: options.store, clock, staffToken: 'stf_test_staff_token',
    onContractViolation: options.checkResponses === false ? undefined : (v) => violations.push(v),
    transport: options.transport, deliveryTimeoutMs: options.deliveryTimeoutMs, changes: new ChangeLog(), faults: options.faults, readings: options.readings,
    onUnexpectedError: options.onUnexpectedError,
  });
  const fixtures = seedDemoWorld(sim, { baseUrl: API_ROOT, staffToken: 'stf_test_staff_token' });
  const http = supertest(sim.app.callback());
  let counter = 0;
  const harness: Harness = {
    sim,
    fixtures,
    http,
    violations,
    api(method, path, key = 0) {
      const token = typeof key === 'number' ? fixtures.integrations[key]!.apiKey : key;
      const req = http[method](API_ROOT + path);
      return token === null ? req : req.set('Authorization', `Bearer ${token}`);
    },
    async staff(method, path, body) {
      const req = http[method](STAFF_ROOT + path).set('Authorization', 'Bearer stf_test_staff_token');
      const res = body === undefined ? await req : await req.send(body as object);
      if (res.status >= 300) throw new Error(`staff ${method.toUpperCase()} ${path} answered ${res.status}: ${res.text}`);
      return res.body.data;
    },
    bookingBody(overrides = {}) {
      counter += 1;
      const property = fixtures.integrations[0]!.properties[0]!;
      return {
        external_booking_id: `T-${counter}-${Math.random().toString(36).slice(2, 8)}`,
        property: { doorloom_id: property.doorloom_id },
        units: [{ adults: 2 }],
        check_in: '2026-10-01',
        check_out: '2026-10-03',
        guest: { name: 'Asha Rao', mobile: '9800000000' },
        pricing: { total: 12000 },
        ...overrides,
      };
    },
  };
  return harness;
}

/** Fails when any response so far broke the contract. */
export function expectConformingResponses(h: Harness): void {
  expect(h.violations, `responses that break spec/openapi.yaml:\n${JSON.stringify(h.violations, null, 2)}`).toEqual([]);
}

/** A fresh Idempotency-Key. */
export function newKey(): string {
  return `key-${Math.random().toString(36).slice(2)}-${Date.now().toString(36)}`;
}

/**
 * For `vi.waitFor`: its default gives up after 1 s, a budget a slow machine overruns. Each wait is for an event;
 * this cap only stops a hang, and the test's own time-out would too.
 */
export const EVENTUALLY = { timeout: 300_000, interval: 10 } as const;

/** Resolves once the create under `key` holds its claim (in progress, §4.5 rule 3): an event, however slow the machine. */
export async function claimHeld(h: Harness, key: string, integration = 0): Promise<void> {
  const id = `${h.fixtures.integrations[integration]!.id}:${key}`;
  await vi.waitFor(() => expect(h.sim.store.get('idempotency', id)?.state).toBe('in_progress'), EVENTUALLY);
}
