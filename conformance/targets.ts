/**
 * Targets a run can point at: the in-process simulator (a fresh world per
 * check, its control plane's actions read from its GET /capabilities) or a live deployment
 * (read-only unless writes are allowed; platform actions only through a
 * control plane it offers). Checks see one interface and declare what they
 * need; the runner reports the rest "not applicable" with the reason.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { API_ROOT, CONTROL_ROOT } from '../simulator/http/app.ts';
import { createSimulator, type Simulator } from '../simulator/simulator.ts';
import { seedDemoWorld, type FixtureProperty } from '../simulator/demo-world.ts';
import type { Contract } from '../spec/contract.ts';
import type { PreflightResult, MeView } from './preflight.ts';
import type { Capability } from './types.ts';
import { CONTROL_ACTIONS, control, knownActions, offeredActions, type ControlAction, type ControlPlane } from './control.ts';
import { PlatformTime } from './platform-time.ts';
import { RECEIVER_TLS, type TlsIdentity } from './receiver-tls.ts';

/** What the in-process simulator may let checks do, on a fresh world each: the target's own list holds the actions its control plane offers. */
const IN_PROCESS_PLAIN: Capability[] = ['read', 'write', 'sync', 'burst'];
const IN_PROCESS: Capability[] = [...IN_PROCESS_PLAIN, ...CONTROL_ACTIONS.map(control)];

export interface TargetConfig {
  /** Base URL of the API root (`…/api/integrations/v1`); absent means the in-process simulator. */
  baseUrl?: string;
  apiKey?: string;
  webhookSecret?: string;
  /** Platform property ids a live run may read and (with writes) book on. */
  properties?: number[];
  /** Another integration's API key on the same deployment (enables cross-integration checks). */
  otherApiKey?: string;
  /** Properties of the second integration's a live run with writes may book on with its key. */
  otherProperties?: number[];
  /** The key of a disabled integration on the same deployment (§5.5: 403 INTEGRATION_DISABLED). */
  disabledApiKey?: string;
  /** A valid bearer token that is not an integration key, e.g. a staff token (§5.5: 403 NOT_INTEGRATION_TOKEN). */
  nonIntegrationToken?: string;
  /** A staging control plane (spec/control-openapi.yaml) for checks that need platform actions, and its token. */
  controlUrl?: string;
  controlToken?: string;
  /** Spend the daily full-sync allowance on the sync checks (§8: one per 24 hours). */
  allowSync?: boolean;
  /** Drive the partner rate limit to a 429 to check its headers (§7; live: the integration is throttled for a window). */
  allowBurst?: boolean;
  /** Live webhooks: the URL the platform delivers to (registered for the integration by platform staff)… */
  webhookPublicUrl?: string;
  /** …and the local port where the runner's receiver listens behind it. */
  webhookListenPort?: number;
  allowWrites?: boolean;
  /** Told when a check rotated a credential through the control plane (the CLI writes it where the partner finds it). */
  onCredentialRotated?: (kind: RotatedCredential, value: string) => void;
  /** In-process only: the simulator fault to inject (see simulator/faults.ts). */
  fault?: string;
  /** In-process only: the other readings of the document's tensions the simulator follows (simulator/domain/readings.ts). */
  readings?: string[];
  /**
   * In-process only: the simulator's delivery time-out in real milliseconds (default: the assumed 10 s,
   * spec x-assumption webhook-delivery). The mutation run shortens it: no check asserts the 10 s, and a
   * post left unanswered otherwise costs every mutant that reaches it ten idle seconds.
   */
  deliveryTimeoutMs?: number;
  /**
   * In-process only: the contract the simulator enforces instead of spec/openapi.yaml's (the contract mutator's one-step
   * change of the document, issue 40). The suite keeps judging by spec/openapi.yaml.
   */
  simulatorContract?: Contract;
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
  /** Properties the second integration may book on with its key (in-process: its own; live: --other-property). */
  otherProperties: number[];
  /** Live webhooks (see TargetConfig). */
  webhook: { publicUrl: string; listenPort: number } | null;
  /**
   * In-process: the certificate the simulator trusts for webhook delivery
   * (createSimulator's `webhookCa`), served by a TLS front before a check's
   * receiver so the platform is given an https:// URL. Null live: there the
   * platform reaches https through --webhook-public-url.
   */
  webhookTls: TlsIdentity | null;
  disabledApiKey: string | null;
  /** A valid bearer token that is not an integration key (the staff token in-process). */
  nonIntegrationToken: string | null;
  /** The main integration's `GET /me` data as the preflight saw it (live), or null. */
  me: MeView | null;
  /** The control plane the checks may use (in-process: the simulator's own), or null. */
  control: ControlPlane | null;
  /**
   * A check rotated a credential through the control plane: this target and
   * every later one of the run use the new value, which is redacted like the
   * others and handed to `onCredentialRotated` (the partner needs it).
   */
  credentialRotated(kind: RotatedCredential, value: string): void;
  /** Secrets to redact from every exchange. */
  secrets: string[];
  /** The platform's clock as its answers show it (their `Date` header), shared by the run's checks. */
  time: PlatformTime;
  /** In-process only. */
  simulator: Simulator | null;
  close(): Promise<void>;
}

export type RotatedCredential = 'apiKey' | 'webhookSecret';

export interface TargetFactory {
  kind: Target['kind'];
  baseUrl: string;
  capabilities: Capability[];
  open(): Promise<Target>;
  /** Releases what the factory holds across checks. */
  dispose(): Promise<void>;
}

/** The factory for the configured target; a live one takes what its preflight found. */
export function targetFactory(config: TargetConfig, setup: PreflightResult | null = null): TargetFactory {
  return config.baseUrl ? liveFactory(config, setup) : inProcessFactory(config);
}

function inProcessFactory(config: TargetConfig): TargetFactory {
  return {
    kind: 'in-process',
    baseUrl: `http://127.0.0.1:<ephemeral>${API_ROOT}`,
    capabilities: IN_PROCESS,
    async open() {
      // createSimulator's own defaults (clock, faults, readings) wherever the run sets none: the wiring a library user gets is what the checks run against.
      return inProcessTarget(createSimulator({ ...(config.fault ? { faults: [config.fault] } : {}), ...(config.readings ? { readings: config.readings } : {}), webhookCa: [RECEIVER_TLS.cert], ...(config.deliveryTimeoutMs !== undefined ? { deliveryTimeoutMs: config.deliveryTimeoutMs } : {}), ...(config.simulatorContract ? { contract: config.simulatorContract } : {}) }));
    },
    async dispose() {},
  };
}

/**
 * `sim` served on a loopback port with the demo world, as the in-process
 * target: every capability, and the control actions its GET /capabilities lists
 * (spec/control-openapi.yaml: the runner calls only those, in-process as live). Closing
 * the target stops the simulator. (Tests hand in a simulator they slowed; one
 * that is to deliver to https:// URLs trusts RECEIVER_TLS, `webhookCa`, as
 * the factory's do.)
 */
export async function inProcessTarget(sim: Simulator): Promise<Target> {
  const server: Server = sim.app.listen(0, '127.0.0.1');
  await new Promise<void>((ok) => server.once('listening', ok));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fixtures = seedDemoWorld(sim, { baseUrl: origin + API_ROOT, staffToken: sim.staffToken! });
  const [main, other, disabled] = fixtures.integrations;
  const actions = await capabilities(origin + CONTROL_ROOT, fixtures.staffToken);
  const target: Target = {
    kind: 'in-process',
    baseUrl: origin + API_ROOT,
    capabilities: [...IN_PROCESS_PLAIN, ...actions.map(control)],
    apiKey: main!.apiKey,
    webhookSecret: main!.webhookSecret,
    properties: main!.properties,
    otherApiKey: other!.apiKey,
    otherProperties: other!.properties.filter((p) => !p.archived).map((p) => p.doorloom_id),
    webhook: null,
    webhookTls: RECEIVER_TLS,
    disabledApiKey: disabled!.apiKey,
    nonIntegrationToken: fixtures.staffToken,
    me: null,
    control: { url: origin + CONTROL_ROOT, token: fixtures.staffToken, actions },
    secrets: [fixtures.staffToken, ...fixtures.integrations.flatMap((i) => [i.apiKey, i.webhookSecret])],
    time: new PlatformTime(),
    simulator: sim,
    credentialRotated(kind, value) {
      target.secrets.push(value);
      target[kind] = value;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
      sim.webhooks.stop();
      await sim.store.close();
    },
  };
  return target;
}

/** The known actions the simulator's control plane lists at GET /capabilities; an answer of another shape fails the target's opening. */
async function capabilities(controlUrl: string, token: string): Promise<ControlAction[]> {
  const res = await fetch(`${controlUrl}/capabilities`, { headers: { authorization: `Bearer ${token}` } });
  const offered = offeredActions(await res.json().catch(() => null));
  if (res.status !== 200 || offered === null) throw new Error(`GET ${controlUrl}/capabilities answered ${res.status}, not a control-plane capabilities answer ({success, data: {actions: [...]}})`);
  return knownActions(offered);
}

function liveFactory(config: TargetConfig, setup: PreflightResult | null): TargetFactory {
  if (!config.apiKey) throw new Error('--api-key (or apiKey in --config) is required with --target');
  const capabilities: Capability[] = ['read'];
  if (config.allowWrites) capabilities.push('write');
  if (config.allowSync) capabilities.push('sync');
  if (config.allowBurst) capabilities.push('burst');
  const plane = config.controlUrl && config.controlToken && setup?.controlActions
    ? { url: config.controlUrl.replace(/\/$/, ''), token: config.controlToken, actions: knownActions(setup.controlActions) }
    : null;
  for (const action of plane?.actions ?? []) capabilities.push(`control:${action}`);
  const baseUrl = config.baseUrl!.replace(/\/$/, '');
  // Credentials a check rotated hold for the rest of the run.
  const current = { apiKey: config.apiKey, webhookSecret: config.webhookSecret ?? null };
  const rotated: string[] = [];
  const time = new PlatformTime();
  time.observe(setup?.date);
  return {
    kind: 'live',
    baseUrl,
    capabilities,
    async open() {
      const target: Target = {
        kind: 'live',
        baseUrl,
        capabilities,
        apiKey: current.apiKey,
        webhookSecret: current.webhookSecret,
        // Units are discovered by checks that need them (GET /properties); live runs name properties only.
        properties: (config.properties ?? []).map((id) => ({ doorloom_id: id, external_id: '', archived: false, units: [] })),
        otherApiKey: config.otherApiKey ?? null,
        otherProperties: config.otherProperties ?? [],
        webhook: config.webhookPublicUrl && config.webhookListenPort !== undefined ? { publicUrl: config.webhookPublicUrl, listenPort: config.webhookListenPort } : null,
        webhookTls: null,
        disabledApiKey: config.disabledApiKey ?? null,
        nonIntegrationToken: config.nonIntegrationToken ?? null,
        me: setup?.me ?? null,
        control: plane,
        secrets: [config.apiKey!, config.webhookSecret ?? '', config.otherApiKey ?? '', config.disabledApiKey ?? '', config.nonIntegrationToken ?? '', config.controlToken ?? '', ...rotated].filter(Boolean),
        credentialRotated(kind, value) {
          rotated.push(value);
          target.secrets.push(value);
          target[kind] = value;
          current[kind] = value;
          config.onCredentialRotated?.(kind, value);
        },
        time,
        simulator: null,
        async close() {},
      };
      return target;
    },
    async dispose() {},
  };
}
