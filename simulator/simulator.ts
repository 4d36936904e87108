/**
 * Production wiring in one place: store, clock, entropy, vault and the event
 * port handed to the domain; the Koa app with the partner API and the staff
 * plane on top.
 */
import { randomBytes } from 'node:crypto';
import type Koa from 'koa';
import { createApp, type ContractViolation } from './http/app.ts';
import { staffRouter } from './staff/routes.ts';
import { VirtualClock } from './domain/clock.ts';
import { ChangeLog, type ChangeRecorder } from './domain/changes.ts';
import { aesVault, hashToken, newStaffToken } from './domain/credentials.ts';
import type { Entropy } from './domain/ids.ts';
import { Platform } from './domain/platform.ts';
import { MemoryStore } from './store/memory-store.ts';
import type { Store } from './store/store.ts';

export interface SimulatorOptions {
  store?: Store;
  /** Defaults to a virtual clock over real time (restored from the store when it has one). */
  clock?: VirtualClock;
  entropy?: Entropy;
  /** 32 bytes that encrypt webhook secrets at rest; random per process by default. */
  vaultKey?: Buffer;
  /** The staff token to accept; one is generated when the store has none. */
  staffToken?: string;
  changes?: ChangeRecorder;
  onContractViolation?: (v: ContractViolation) => void;
}

export interface Simulator {
  app: Koa;
  platform: Platform;
  clock: VirtualClock;
  store: Store;
  changes: ChangeRecorder;
  /** The staff token in the clear when this process created it; null when the store already had one. */
  staffToken: string | null;
}

export const cryptoEntropy: Entropy = { hex: (bytes) => randomBytes(bytes).toString('hex') };

export function createSimulator(options: SimulatorOptions = {}): Simulator {
  const store = options.store ?? new MemoryStore();
  const entropy = options.entropy ?? cryptoEntropy;
  const existing = store.get('settings', 'platform');
  const clock = options.clock ?? new VirtualClock(() => Date.now(), existing?.clock);
  let staffToken: string | null = null;
  if (!existing || options.staffToken) {
    staffToken = options.staffToken ?? newStaffToken(entropy);
    const token = staffToken;
    store.transaction((tx) => tx.put('settings', 'platform', {
      api_enabled: existing?.api_enabled ?? true,
      staff_token_hash: hashToken(token),
      create_latency_ms: existing?.create_latency_ms ?? 0,
      clock: clock.snapshot(),
    }));
  }
  const changes = options.changes ?? new ChangeLog();
  const platform = new Platform({ store, clock, entropy, vault: aesVault(options.vaultKey ?? randomBytes(32)), changes });
  const app = createApp({ platform, extraRouters: [staffRouter({ platform, clock })], onContractViolation: options.onContractViolation });
  return { app, platform, clock, store, changes, staffToken };
}
