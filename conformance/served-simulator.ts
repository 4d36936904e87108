/**
 * For tests: the simulator served over HTTP on loopback and described as a
 * live target would be, with what a partner has (key, webhook secret,
 * properties, a port its receiver listens on behind the webhook URL) and,
 * asked for, what a platform team adds (a second key, a disabled key, a
 * non-integration token, the control plane). Deliveries run in real time.
 * With `webhookTls` the webhook URL is https:// through a TLS front.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { createSimulatorServer } from '../simulator/http/server.ts';
import { seedDemoWorld } from '../simulator/demo-world.ts';
import { API_ROOT, CONTROL_ROOT } from '../simulator/http/app.ts';
import { createSimulator, type Simulator } from '../simulator/simulator.ts';
import type { FaultName } from '../simulator/domain/faults.ts';
import { sendResending } from './resend.ts';
import type { ConformanceOptions } from './runner.ts';
import { RECEIVER_TLS } from './receiver-tls.ts';
import { startTlsFront } from './tls-front.ts';

export interface ServedSimulator {
  sim: Simulator;
  origin: string;
  /** A partner's options: key, secret, properties, writes, the receiver's URL and port. */
  partner: ConformanceOptions;
  /** What a platform team adds: the other credentials and the control plane. */
  platform: Pick<ConformanceOptions, 'otherApiKey' | 'otherProperties' | 'disabledApiKey' | 'nonIntegrationToken' | 'controlUrl' | 'controlToken'>;
  close(): Promise<void>;
}

/** The kernel's first ephemeral port: it hands those to port-0 listens and to outgoing connections. */
function ephemeralFloor(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer().once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/**
 * A port free now for another process to bind, chosen below the kernel's
 * ephemeral range. A port found free by listening on port 0 lies in that
 * range, and the OS may hand it to any outgoing connection before the other
 * process binds it (seen: a partner failing with EADDRINUSE mid-suite).
 */
export async function freePort(): Promise<number> {
  const floor = Math.max(ephemeralFloor(), 12_000);
  for (let tries = 0; tries < 100; tries++) {
    const port = 10_000 + Math.floor(Math.random() * (floor - 10_000));
    if (await bindable(port)) return port;
  }
  const probe = createServer();
  await new Promise<void>((ok) => probe.listen(0, '127.0.0.1', ok));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((ok) => probe.close(() => ok()));
  return port;
}

export interface ServeOptions {
  rateLimit?: { limit: number; window_seconds: number };
  readings?: string[];
  /**
   * The partner's webhook URL is https://: a TLS front (tls-front.ts) serving
   * RECEIVER_TLS, which the simulator trusts, passes each connection to the
   * receiver's listen port, as a partner's tunnel or reverse proxy would.
   */
  webhookTls?: boolean;
}

export async function serveSimulator(faults: FaultName[] = [], options: ServeOptions = {}): Promise<ServedSimulator> {
  const sim = createSimulator({ faults, readings: options.readings, ...(options.webhookTls ? { webhookCa: [RECEIVER_TLS.cert] } : {}) });
  // The listening server npm start uses (its idle keep-alive outlasts a client's, so a POST never meets a socket the
  // server is closing: a loaded run saw ECONNRESET on a create, never resent, and a fault went undetected; issue 38).
  const server = createSimulatorServer(sim.app).listen(0, '127.0.0.1');
  await new Promise<void>((ok) => server.once('listening', ok));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const port = await freePort();
  const front = options.webhookTls ? await startTlsFront({ identity: RECEIVER_TLS, forwardTo: port, port: await freePort() }) : null;
  const webhookPublicUrl = front ? front.url('/webhook') : `http://127.0.0.1:${port}/webhook`;
  const fixtures = seedDemoWorld(sim, { baseUrl: origin + API_ROOT, staffToken: sim.staffToken!, webhookUrl: webhookPublicUrl });
  if (options.rateLimit) {
    // A PUT: sent once more when its connection closed before any answer (resend.ts).
    const res = await sendResending({ method: 'PUT' }, () => fetch(`${origin}/_staff/integrations/1/rate-limit`, { method: 'PUT', headers: { Authorization: `Bearer ${sim.staffToken}`, 'Content-Type': 'application/json' }, body: JSON.stringify(options.rateLimit) }));
    if (res.status !== 200) throw new Error(`rate limit not set: ${res.status}`);
  }
  sim.webhooks.start(20);
  const [main, other, disabled] = fixtures.integrations;
  return {
    sim, origin,
    partner: {
      baseUrl: origin + API_ROOT, apiKey: main!.apiKey, webhookSecret: main!.webhookSecret, allowWrites: true,
      properties: main!.properties.filter((p) => !p.archived).map((p) => p.doorloom_id),
      webhookPublicUrl, webhookListenPort: port, runs: 5, seed: 11,
    },
    platform: {
      otherApiKey: other!.apiKey, otherProperties: other!.properties.filter((p) => !p.archived).map((p) => p.doorloom_id), disabledApiKey: disabled!.apiKey, nonIntegrationToken: sim.staffToken!,
      controlUrl: origin + CONTROL_ROOT, controlToken: sim.staffToken!,
    },
    async close() {
      sim.webhooks.stop();
      await front?.close();
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
      await sim.store.close();
    },
  };
}
