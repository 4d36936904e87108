/**
 * The platform side of a certification run: a simulator started in this
 * process (default) or one already running (`--base-url`, `--staff-token`).
 * Everything the certifier does to the platform goes through the staff
 * plane (spec/staff-openapi.yaml), so both kinds behave alike; what only an
 * in-process simulator can give is said so: the call journal, the full
 * delivery log, and withholding the answer of one create (the lost-answer
 * drill), which this module does in its own HTTP server in front of the
 * simulator's Koa app (no simulator code is touched).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_ROOT } from '../simulator/http/app.ts';
import { STAFF_ROOT } from '../simulator/staff/routes.ts';
import { createSimulator, type Simulator } from '../simulator/simulator.ts';
import { seedDemoWorld } from '../simulator/demo-world.ts';
import { timestamp } from '../protocol/calendar.ts';
import type { JournalEntry } from '../simulator/call-journal.ts';
import { type Call, type NoAnswer, sendResending } from '../conformance/resend.ts';
import { untimedFetch } from '../conformance/untimed-fetch.ts';
import { describeFetchFailure } from './fetch-failure.ts';
import { platformTimedOut } from './platform-time-out.ts';
import type { DeliveryEvidence } from './types.ts';

/** GET {API_ROOT}/properties/{property}/{kind}: the snapshots of §4.8. */
const SNAPSHOT_PATH = new RegExp(`^${API_ROOT.replace(/[/.]/g, (c) => `\\${c}`)}/properties/[^/]+/(availability|rates|restrictions)$`);

/** A staff-plane call that was not answered 2xx. */
export class StaffError extends Error {
  override name = 'StaffError';
  constructor(readonly method: string, readonly path: string, readonly status: number, readonly body: string) {
    super(`staff ${method} ${path} answered ${status}: ${body.slice(0, 300)}`);
  }
}

export interface StoredEventView {
  sequence: number;
  status: string;
  /** The envelope exactly as the platform posts it. */
  body: string;
}

/** A snapshot answer built and journaled, held before it leaves (`Stage.holdSnapshotAnswers`). */
export interface HeldSnapshot {
  /** `availability`, `rates` or `restrictions`. */
  kind: string;
  /** The bearer key the call carried. */
  apiKey: string | null;
  status: number;
  /** The body exactly as it is about to leave. */
  body: string;
}

export interface Stage {
  kind: 'in-process' | 'running';
  /** `http://host:port` */
  origin: string;
  /** The partner API root, `{origin}/api/integrations/v1`. */
  baseUrl: string;
  /** Platform time (ms). */
  now(): number;
  /** Platform time as the platform writes it (ISO 8601, +05:30). */
  stamp(ms?: number): string;
  /**
   * One staff-plane call, resolving to its `data`. A call whose connection closed before any answer is sent once more
   * when it is idempotent: a GET or PUT, or a POST whose caller says so (`call.idempotent`: a pause, a resume, a clock
   * advance of 0 s); any other POST is not, and its failure says so (conformance/resend.ts, RFC 9110 §9.2.2).
   */
  staff<T = any>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown, call?: Pick<Call, 'idempotent'>): Promise<T>;
  /** The integration's API calls from `since` on; null when the journal cannot be read (a running simulator). */
  journal(integrationId: number, since?: number): JournalEntry[] | null;
  /**
   * Calls `hook` with each API call of the integration as it is journaled, its
   * answer decided and not yet sent; returns what removes it (nothing to remove
   * on a running simulator, whose journal cannot be read).
   */
  onCall(integrationId: number, hook: (entry: JournalEntry) => void): () => void;
  /** One stored event, exactly as delivered (the API key reads it through GET /events on a running simulator). */
  event(integrationId: number, sequence: number, apiKey: string): Promise<StoredEventView | null>;
  /** Sequences of the integration the platform superseded. */
  superseded(integrationId: number, apiKey: string): Promise<number[]>;
  /** The platform's event deliveries to the integration's webhook. */
  deliveries(integrationId: number): Promise<DeliveryEvidence[]>;
  /**
   * Arms the lost-answer drill: the next POST /bookings is processed, then
   * its connection is dropped before the answer leaves. Resolves with the
   * journal entry of that create. Null when the stage cannot (running simulator).
   */
  withholdNextCreateAnswer(integrationId: number): Promise<JournalEntry | null> | null;
  /**
   * Runs `hook` before serving each GET /events, holding the request until
   * it is done (null removes it): a partner asks for its next page only once
   * it has applied the last, so the hook sees the state between pages. False
   * when the stage cannot (a running simulator).
   */
  beforeEventsPage(hook: (() => Promise<void>) | null): boolean;
  /**
   * Runs `hook` once a snapshot answer is built (its watermark read, its
   * payload made, the call journaled) and before it leaves, holding the
   * answer until the hook is done (null removes it): what the platform does
   * meanwhile lands above the watermark the partner is about to receive
   * (§4.8). False when the stage cannot (a running simulator).
   */
  holdSnapshotAnswers(hook: ((answer: HeldSnapshot) => Promise<void>) | null): boolean;
  /** Disarms a withheld answer that never happened. */
  disarm(): void;
  close(): Promise<void>;
}

export interface InProcessOptions {
  /** Port on 127.0.0.1 (0 picks a free one). */
  port?: number;
}

/** Starts a simulator with the demo world on 127.0.0.1, its clock on real time (partners check signature timestamps against theirs). */
export async function startInProcessStage(options: InProcessOptions = {}): Promise<Stage & { sim: Simulator; staffToken: string }> {
  const sim = createSimulator();
  const staffToken = sim.staffToken!;
  const app = sim.app.callback();
  let withhold: { integrationId: number; resolve: (e: JournalEntry | null) => void } | null = null;
  let pageHook: (() => Promise<void>) | null = null;
  let snapshotHook: ((answer: HeldSnapshot) => Promise<void>) | null = null;
  const server: Server = createServer((req, res) => {
    const held = snapshotHook;
    const snapshotKind = held && req.method === 'GET' ? SNAPSHOT_PATH.exec((req.url ?? '').split('?')[0]!)?.[1] : undefined;
    if (held && snapshotKind) {
      // The answer leaves only once the hook is done; the app has built and journaled it by the time it calls end.
      const end = res.end.bind(res) as (...args: unknown[]) => typeof res;
      res.end = ((...args: unknown[]) => {
        const chunk = args[0];
        const body = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : '';
        const apiKey = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? null;
        void held({ kind: snapshotKind, apiKey, status: res.statusCode, body }).catch(() => undefined).then(() => end(...args));
        return res;
      }) as typeof res.end;
    }
    const hook = pageHook;
    if (hook && req.method === 'GET' && (req.url ?? '').split('?')[0] === `${API_ROOT}/events`) {
      void hook().catch(() => undefined).then(() => app(req, res));
      return;
    }
    const armed = withhold;
    if (armed && req.method === 'POST' && (req.url ?? '').split('?')[0] === `${API_ROOT}/bookings`) {
      withhold = null;
      // The lost-answer drill: the create is processed (and journaled) in full; the answer never leaves.
      res.end = ((..._args: unknown[]) => {
        req.socket.destroy();
        const entry = sim.journal.of(armed.integrationId).filter((e) => e.operation === 'createBooking').at(-1) ?? null;
        armed.resolve(entry);
        return res;
      }) as typeof res.end;
    }
    void app(req, res);
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', fail);
      ok();
    });
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  seedDemoWorld(sim, { baseUrl: origin + API_ROOT, staffToken });
  // Deliveries in real time, as `npm start` does.
  sim.webhooks.start(50);
  const staff = staffClient(origin, staffToken);
  return {
    kind: 'in-process',
    sim,
    staffToken,
    origin,
    baseUrl: origin + API_ROOT,
    now: () => sim.clock.now(),
    stamp: (ms) => timestamp(ms ?? sim.clock.now()),
    staff,
    journal: (id, since) => sim.journal.of(id, since),
    onCall: (id, hook) => sim.journal.subscribe((e) => {
      if (e.integration_id === id) hook(e);
    }),
    async event(integrationId, sequence) {
      const e = sim.store.get('events', `${integrationId}:${sequence}`);
      return e ? { sequence: e.sequence, status: e.status, body: e.body } : null;
    },
    async superseded(integrationId) {
      const latest = sim.store.get('integrations', String(integrationId))?.last_sequence ?? 0;
      const out: number[] = [];
      for (let s = 1; s <= latest; s++) if (sim.store.get('events', `${integrationId}:${s}`)?.status === 'superseded') out.push(s);
      return out;
    },
    async deliveries(integrationId) {
      return sim.webhooks.log.filter((d) => d.integration_id === integrationId && d.kind === 'event').map((d) => platformDelivery(d.sequence, timestamp(d.at), d.outcome));
    },
    withholdNextCreateAnswer(integrationId) {
      return new Promise((resolve) => void (withhold = { integrationId, resolve }));
    },
    beforeEventsPage(hook) {
      pageHook = hook;
      return true;
    },
    holdSnapshotAnswers(hook) {
      snapshotHook = hook;
      return true;
    },
    disarm() {
      withhold?.resolve(null);
      withhold = null;
    },
    async close() {
      sim.webhooks.stop();
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
      await sim.store.close();
    },
  };
}

/** A simulator that is already running: the staff plane only, no journal. */
export async function connectRunningStage(baseUrl: string, staffToken: string): Promise<Stage> {
  const root = baseUrl.replace(/\/+$/, '');
  if (!root.endsWith(API_ROOT)) throw new Error(`--base-url must be the partner API root, ending in ${API_ROOT}; got "${baseUrl}"`);
  const origin = root.slice(0, -API_ROOT.length);
  const staff = staffClient(origin, staffToken);
  // Read at some instant of the round trip: its midpoint halves the worst error of certify's stamps.
  const asked = Date.now();
  const clock = await staff<{ epoch_ms: number }>('GET', '/clock');
  const offset = clock.epoch_ms - (asked + Date.now()) / 2;
  const now = () => Date.now() + offset;
  const api = async (apiKey: string, path: string) => {
    const res = await fetch(root + path, { headers: { Authorization: `Bearer ${apiKey}`, Accept: 'application/json' } });
    return (await res.json()) as { data: Array<{ sequence: number; status: string; event: unknown }>; cursor: { next_after_sequence: number; has_more: boolean } };
  };
  return {
    kind: 'running',
    origin,
    baseUrl: root,
    now,
    stamp: (ms) => timestamp(ms ?? now()),
    staff,
    journal: () => null,
    onCall: () => () => undefined,
    async event(_id, sequence, apiKey) {
      // The same bytes as the delivery: §2.6 "the exact envelope ... byte for byte" (re-serialised without spaces, as posted).
      const page = await api(apiKey, `/events?after_sequence=${sequence - 1}&limit=1&include_superseded=true`);
      const row = page.data[0];
      return row && row.sequence === sequence ? { sequence, status: row.status, body: JSON.stringify(row.event) } : null;
    },
    async superseded(_id, apiKey) {
      const out: number[] = [];
      for (let after = 0; ;) {
        const page = await api(apiKey, `/events?after_sequence=${after}&limit=200&include_superseded=true`);
        out.push(...page.data.filter((r) => r.status === 'superseded').map((r) => r.sequence));
        if (!page.cursor.has_more) return out;
        after = page.cursor.next_after_sequence;
      }
    },
    async deliveries(integrationId) {
      const rows = await staff<Array<{ kind: string; sequence: number | null; at: string; outcome: { status: number } | { error: string } }>>('GET', `/integrations/${integrationId}/deliveries`);
      return rows.filter((d) => d.kind === 'event').map((d) => platformDelivery(d.sequence, d.at, d.outcome));
    },
    withholdNextCreateAnswer: () => null,
    beforeEventsPage: () => false,
    holdSnapshotAnswers: () => false,
    disarm: () => undefined,
    close: async () => undefined,
  };
}

function platformDelivery(sequence: number | null, at: string, outcome: { status: number } | { error: string }): DeliveryEvidence {
  return {
    source: 'platform',
    name: 'delivery',
    at,
    type: 'event',
    sequence,
    status: 'status' in outcome ? outcome.status : null,
    ...('error' in outcome ? { error: outcome.error } : {}),
    ...('error' in outcome && platformTimedOut(outcome.error) ? { timedOut: true as const } : {}),
  };
}

function staffClient(origin: string, token: string): Stage['staff'] {
  return async (method, path, body, call) => {
    const res = await sendResending({ method, idempotent: call?.idempotent }, () => untimedFetch(origin + STAFF_ROOT + path, {
      method,
      headers: { Authorization: `Bearer ${token}`, Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })).catch((e: NoAnswer) => {
      throw new Error(`staff ${method} ${path} at ${origin} gave no answer: ${describeFetchFailure(e.cause)}${e.note}`);
    });
    const text = await res.text();
    if (res.status < 200 || res.status >= 300) throw new StaffError(method, path, res.status, text);
    return (JSON.parse(text) as { data: unknown }).data as never;
  };
}
