/**
 * The simulator as a library call: `startSimulator()` serves a fresh demo
 * world in memory on 127.0.0.1 (the same world `npm start -- --memory`
 * seeds) and resolves once it answers, with the fixtures a partner needs.
 * For a data directory or a fixtures file, use the `sim` command. It is
 * driven over HTTP like any deployment (staff plane, control plane), so its
 * type names no framework.
 */
import type { Server } from 'node:http';
import { createSimulatorServer } from './http/server.ts';
import type { AddressInfo } from 'node:net';
import { API_ROOT, CONTROL_ROOT } from './http/app.ts';
import { STAFF_ROOT } from './staff/routes.ts';
import { createSimulator } from './simulator.ts';
import { seedDemoWorld, type Fixtures } from './demo-world.ts';
import { FAULT_NAMES } from './faults.ts';
import type { FaultName } from './domain/faults.ts';

export interface StartSimulatorOptions {
  /** Port on 127.0.0.1; 0 (the default) picks a free one. */
  port?: number;
  /** Registered as the first demo integration's webhook (all six event types). */
  webhookUrl?: string;
  /** Deliberate breaches (mutation testing); the same names as `--fault`. */
  faults?: FaultName[];
}

export interface RunningSimulator {
  /** The partner API root, `http://127.0.0.1:PORT/api/integrations/v1`. */
  baseUrl: string;
  origin: string;
  staffUrl: string;
  controlUrl: string;
  /** Base URL, staff token and the demo credentials (the `--fixtures-out` file's shape). */
  fixtures: Fixtures;
  /** Stops deliveries and the server. */
  stop(): Promise<void>;
}

export async function startSimulator(options: StartSimulatorOptions = {}): Promise<RunningSimulator> {
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RangeError(`startSimulator: port must be an integer from 0 to 65535, got ${port}`);
  const unknown = (options.faults ?? []).find((f) => !(FAULT_NAMES as readonly string[]).includes(f));
  if (unknown !== undefined) throw new RangeError(`startSimulator: "${unknown}" is not a fault (faults: ${FAULT_NAMES.join(', ')})`);
  const sim = createSimulator({ faults: options.faults ?? [], journal: false });
  // The CLI's server: its time limits and the envelope for what Node's parser refuses.
  const server: Server = createSimulatorServer(sim.app).listen(port, '127.0.0.1');
  await new Promise<void>((ok, ko) => server.once('listening', ok).once('error', ko));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fixtures = seedDemoWorld(sim, { baseUrl: origin + API_ROOT, staffToken: sim.staffToken!, webhookUrl: options.webhookUrl ?? null });
  sim.webhooks.start();
  return {
    baseUrl: origin + API_ROOT, origin, staffUrl: origin + STAFF_ROOT, controlUrl: origin + CONTROL_ROOT, fixtures,
    async stop() {
      sim.webhooks.stop();
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
      await sim.store.close();
    },
  };
}
