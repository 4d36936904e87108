/**
 * Targets a run can point at: the in-process simulator (a fresh world per
 * check, full staff control) or a live deployment (read-only unless writes
 * are allowed, never staff). Checks see one interface and declare what they
 * need; the runner reports the rest "not applicable" with the reason.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { API_ROOT } from '../simulator/http/app.ts';
import { STAFF_ROOT } from '../simulator/staff/routes.ts';
import { createSimulator, type Simulator } from '../simulator/simulator.ts';
import { seedDemoWorld, type FixtureProperty } from '../simulator/demo-world.ts';
import { VirtualClock } from '../simulator/domain/clock.ts';
import type { Capability } from './types.ts';

export interface TargetConfig {
  /** Base URL of the API root (`…/api/integrations/v1`); absent means the in-process simulator. */
  baseUrl?: string;
  apiKey?: string;
  webhookSecret?: string;
  /** Platform property ids a live run may read and (with writes) book on. */
  properties?: number[];
  /** Another integration's API key on the same deployment (enables cross-integration checks). */
  otherApiKey?: string;
  /** Live webhooks: the URL the platform delivers to (registered for the integration by platform staff)… */
  webhookPublicUrl?: string;
  /** …and the local port where the runner's receiver listens behind it. */
  webhookListenPort?: number;
  allowWrites?: boolean;
  /** Let a check drive the partner rate limit until a 429 (live: opt-in, the integration is throttled for a window). */
  allowBurst?: boolean;
  /** In-process only: the simulator fault to inject (see simulator/faults.ts). */
  fault?: string;
}

/** What one check gets to work with. */
export interface Target {
  kind: 'in-process' | 'live';
  baseUrl: string;
  capabilities: Capability[];
  apiKey: string;
  webhookSecret: string | null;
  /** Properties the check may use, with their units where known. */
  properties: FixtureProperty[];
  otherApiKey: string | null;
  /** Live webhooks (see TargetConfig). */
  webhook: { publicUrl: string; listenPort: number } | null;
  disabledApiKey: string | null;
  staffToken: string | null;
  /** Secrets to redact from every exchange. */
  secrets: string[];
  /** In-process only. */
  simulator: Simulator | null;
  staffUrl: string | null;
  close(): Promise<void>;
}

export interface TargetFactory {
  kind: Target['kind'];
  baseUrl: string;
  capabilities: Capability[];
  open(): Promise<Target>;
  /** Releases what the factory holds across checks. */
  dispose(): Promise<void>;
}

export function targetFactory(config: TargetConfig): TargetFactory {
  return config.baseUrl ? liveFactory(config) : inProcessFactory(config);
}

function inProcessFactory(config: TargetConfig): TargetFactory {
  return {
    kind: 'in-process',
    baseUrl: `http://127.0.0.1:<ephemeral>${API_ROOT}`,
    capabilities: ['read', 'write', 'staff', 'burst'],
    async open() {
      const clock = new VirtualClock(() => Date.now());
      const sim = createSimulator({ clock, faults: config.fault ? [config.fault] : [] });
      const server: Server = sim.app.listen(0, '127.0.0.1');
      await new Promise<void>((ok) => server.once('listening', ok));
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const fixtures = seedDemoWorld(sim, { baseUrl: origin + API_ROOT, staffToken: sim.staffToken! });
      const [main, other, disabled] = fixtures.integrations;
      return {
        kind: 'in-process',
        baseUrl: origin + API_ROOT,
        capabilities: ['read', 'write', 'staff', 'burst'],
        apiKey: main!.apiKey,
        webhookSecret: main!.webhookSecret,
        properties: main!.properties,
        otherApiKey: other!.apiKey,
        webhook: null,
        disabledApiKey: disabled!.apiKey,
        staffToken: fixtures.staffToken,
        secrets: [fixtures.staffToken, ...fixtures.integrations.flatMap((i) => [i.apiKey, i.webhookSecret])],
        simulator: sim,
        staffUrl: origin + STAFF_ROOT,
        async close() {
          server.closeAllConnections();
          await new Promise<void>((ok) => server.close(() => ok()));
          sim.webhooks.stop();
          await sim.store.close();
        },
      };
    },
    async dispose() {},
  };
}

function liveFactory(config: TargetConfig): TargetFactory {
  if (!config.apiKey) throw new Error('--api-key (or apiKey in --config) is required with --target');
  const capabilities: Capability[] = config.allowWrites ? ['read', 'write'] : ['read'];
  if (config.allowBurst) capabilities.push('burst');
  const baseUrl = config.baseUrl!.replace(/\/$/, '');
  return {
    kind: 'live',
    baseUrl,
    capabilities,
    async open() {
      return {
        kind: 'live',
        baseUrl,
        capabilities,
        apiKey: config.apiKey!,
        webhookSecret: config.webhookSecret ?? null,
        // Units are discovered by checks that need them (GET /properties); live runs name properties only.
        properties: (config.properties ?? []).map((id) => ({ doorloom_id: id, external_id: '', archived: false, units: [] })),
        otherApiKey: config.otherApiKey ?? null,
        webhook: config.webhookPublicUrl && config.webhookListenPort !== undefined ? { publicUrl: config.webhookPublicUrl, listenPort: config.webhookListenPort } : null,
        disabledApiKey: null,
        staffToken: null,
        secrets: [config.apiKey!, config.webhookSecret ?? '', config.otherApiKey ?? ''].filter(Boolean),
        simulator: null,
        staffUrl: null,
        async close() {},
      };
    },
    async dispose() {},
  };
}
