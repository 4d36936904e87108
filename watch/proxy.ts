/**
 * A reverse proxy that changes nothing, at the level of sockets: each client
 * connection gets its own upstream connection, and bytes go through as they
 * come — the answers byte for byte, the requests byte for byte but for the
 * Host line (the upstream's) and, in front of a webhook endpoint, the request
 * target. Keep-alive, pipelining, chunked bodies, 100-continue and upgrades
 * pass as they are, because the bytes do. Beside the bytes, an incremental
 * reader of each direction (http-reader.ts) tells where messages lie; a copy
 * of each body, up to a bound, is kept; a completed exchange goes to the
 * judging queue (judging-queue.ts), which hands it to `onExchange` once the
 * turn's bytes are forwarded. Whatever the judge or the reader does, the
 * bytes keep flowing: a connection watch cannot read as HTTP is forwarded
 * unread (and said). Node's HTTP server and client are not used: two sets of
 * HTTP objects and a re-serialisation per exchange cost watch twice the
 * simulator's CPU on a `GET /me`. The webhook forwarder is the same proxy
 * in front of the partner's endpoint.
 */
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, rootCertificates } from 'node:tls';
import { credentialOf } from './credential.ts';
import type { ExchangeKind, WatchedExchange } from './exchange.ts';
import { MessageReader, type Head } from './http-reader.ts';
import { JudgingQueue } from './judging-queue.ts';

/** Body bytes kept per direction for judging; a longer body is forwarded whole and judged as truncated. */
export const KEPT_BODY_BYTES = 1 << 20;
/** Requests a client may send ahead of their answers (pipelining) before watch stops reading from it until answers come. */
export const MAX_IN_FLIGHT = 256;
/** An idle client connection is closed after this (the keep-alive time-out watch's listener has always had). */
export const CLIENT_IDLE_MS = 65_000;
const SWEEP_MS = 5_000;

/** What watch answers itself on the proxy's port (its status endpoints). */
export interface LocalAnswer {
  status: number;
  contentType: string;
  body: string;
}

export interface ForwarderOptions {
  kind: ExchangeKind;
  /**
   * Where requests go: the platform's API root (`…/api/integrations/v1`:
   * every path goes to its origin unchanged, and only those below the root
   * are judged) or the partner's webhook URL (`exactTarget`).
   */
  upstream: string;
  /** Post every request to the upstream URL itself, whatever path it came on (the webhook forwarder: the partner's one endpoint). */
  exactTarget?: boolean;
  /** Handed each completed exchange, in order of completion, from the judging queue. */
  onExchange(e: WatchedExchange): void;
  /** Said when forwarding itself fails (the upstream unreachable, or gone before answering): the client gets 502. */
  onUpstreamError?(message: string): void;
  /** Said when watch stops reading a connection as HTTP: its bytes are forwarded unread, its exchanges not judged. */
  onUnread?(message: string): void;
  /** Requests watch answers itself instead of forwarding: for a request target, the answer (made when its turn comes), or undefined. */
  answerLocally?(target: string): (() => LocalAnswer) | undefined;
  /** Where completed exchanges wait for the judge; shared by the proxy and the webhook forwarder (one of its own when not given). */
  judging?: JudgingQueue;
  /** Unix ms now (injected for tests). */
  now?(): number;
  /** A CA the https upstream's certificate may chain to, beside the system's (tests; a deployment sets NODE_EXTRA_CA_CERTS). */
  upstreamCa?: Buffer;
}

export interface Forwarder {
  /** Takes a client's connection: a `net.Server`'s connection listener (the server made with `allowHalfOpen: true`). */
  accept(client: Socket): void;
  /** Ends idle connections now, the others once they are idle or after `graceMs`; then judges everything queued. */
  stop(graceMs?: number): Promise<void>;
  /** Cuts every connection now and judges everything queued. */
  close(): void;
}

/** Collects up to KEPT_BODY_BYTES of a stream's slices without holding it back. */
class BodyCopy {
  private chunks: Buffer[] = [];
  size = 0;
  truncated = false;

  add(chunk: Buffer): void {
    if (this.size >= KEPT_BODY_BYTES) {
      this.truncated = true;
      return;
    }
    const room = KEPT_BODY_BYTES - this.size;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (part.length < chunk.length) this.truncated = true;
    this.chunks.push(part);
    this.size += part.length;
  }

  text(): string {
    if (this.chunks.length === 0) return '';
    return (this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks)).toString('utf8');
  }
}

/** One request and its answer as they pass. */
class InFlight {
  requestBody = new BodyCopy();
  requestDone = false;
  status: number | null = null;
  answerMs: number | undefined;
  responseFields: string[] = [];
  responseBody = new BodyCopy();
  responseDone = false;
  /** performance.now() when the exchange completed (or was cut short). */
  finished = 0;
  reported = false;
  /** Its connection stopped being read as HTTP: not judged (said through onUnread). */
  unread = false;
  /** Watch answers it itself. */
  local: (() => LocalAnswer) | undefined;
  /** The answer asked for the connection to close. */
  answerCloses = false;

  constructor(
    readonly started: number,
    readonly t0: number,
    readonly method: string,
    /** The path judged (below the API root), or null when it is not the API's (forwarded, not judged). */
    readonly path: string | null,
    readonly requestFields: string[],
    /** The request asked for the connection to close after its answer. */
    readonly closes: boolean,
  ) {}
}

/** Header fields as a record, names in lower case, a repeated one joined with `, `; `held` (a name) is kept apart. */
function headerRecord(fields: string[], held?: string): { record: Record<string, string>; heldValue: string | undefined } {
  const record: Record<string, string> = {};
  let heldValue: string | undefined;
  for (let i = 0; i < fields.length; i += 2) {
    const name = fields[i]!.toLowerCase();
    const value = fields[i + 1]!;
    if (name === held) heldValue = heldValue === undefined ? value : `${heldValue}, ${value}`;
    else record[name] = record[name] === undefined ? value : `${record[name]}, ${value}`;
  }
  return { record, heldValue };
}

/** The path below the API root (with its query), or null when `path` lies outside it. */
function belowRoot(path: string, root: string): string | null {
  if (root === '') return path;
  if (path === root || path.startsWith(`${root}?`)) return `/${path.slice(root.length)}`;
  return path.startsWith(`${root}/`) ? path.slice(root.length) : null;
}

/** `Connection: close` among the connection options (RFC 9110 §7.6.1). */
const CLOSE = /(?:^|,)\s*close\s*(?:,|$)/i;

const HOST_LINE = /(\n[Hh][Oo][Ss][Tt][ \t]*:)[^\r\n]*/;

/** The head as the upstream gets it: as received, but for the Host line (the upstream's) and, when given, the request target. */
function upstreamHead(head: Head, host: string, target: string | null): Buffer {
  let text = head.text;
  const newline = head.end === '\n\n' ? '\n' : '\r\n';
  const eol = text.indexOf('\n');
  const firstEnd = eol < 0 ? text.length : text[eol - 1] === '\r' ? eol - 1 : eol;
  if (target !== null) text = `${head.method} ${target} HTTP/${head.version}${text.slice(firstEnd)}`;
  let replaced = false;
  text = text.replace(HOST_LINE, (_all, name: string) => {
    replaced = true;
    return `${name} ${host}`;
  });
  if (!replaced) {
    const end = target !== null ? `${head.method} ${target} HTTP/${head.version}`.length : firstEnd;
    text = `${text.slice(0, end)}${newline}Host: ${host}${text.slice(end)}`;
  }
  return Buffer.from(text + head.end, 'latin1');
}

function localResponse(answer: LocalAnswer, closes: boolean): Buffer {
  const body = Buffer.from(answer.body, 'utf8');
  const reason = answer.status === 200 ? 'OK' : 'Not Found';
  return Buffer.concat([Buffer.from(`HTTP/1.1 ${answer.status} ${reason}\r\nContent-Type: ${answer.contentType}\r\nContent-Length: ${body.length}\r\nDate: ${new Date().toUTCString()}\r\nConnection: ${closes ? 'close' : 'keep-alive'}\r\n\r\n`, 'latin1'), body]);
}

const BAD_GATEWAY_BODY = 'watch: the upstream is unreachable\n';
const BAD_GATEWAY = Buffer.from(`HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nContent-Length: ${BAD_GATEWAY_BODY.length}\r\nConnection: close\r\n\r\n${BAD_GATEWAY_BODY}`, 'latin1');

/** Why the client stopped being read: each a bit, read again when none is left. */
const enum Pause { Held = 1, UpstreamFull = 2, InFlight = 4 }

interface Context {
  options: ForwarderOptions;
  host: string;
  port: number;
  hostHeader: string;
  secure: boolean;
  origin: string;
  rootPath: string;
  exactPath: string | null;
  now: () => number;
  judging: JudgingQueue;
  connections: Set<Connection>;
}

/** One client connection and its upstream connection (made when the first request to forward comes, again after the upstream closed while idle). */
class Connection {
  private upstream: Socket | null = null;
  private responses!: MessageReader;
  private readonly requests: MessageReader;
  /** Requests in order, each until its answer has ended (a local one until it is answered). */
  private readonly queue: InFlight[] = [];
  /** The request whose head or body is arriving. */
  private current: InFlight | null = null;
  /** Bytes for the upstream gathered while a chunk is read: one write per chunk. */
  private out: Buffer[] = [];
  private paused = 0;
  /** Answer bytes the client got since the last complete answer: a 502 is only written on a clean boundary. */
  private answerBytes = 0;
  private upstreamSpoke = false;
  private upstreamError: Error | undefined;
  private waitingClientDrain = false;
  private clientEnded = false;
  private closed = false;
  /** Watch is ending the connection (after a 502, or a local answer to a request that asked to close): nothing more is read. */
  private closing = false;
  /** The last answer, or its request, asked for the connection to close. */
  private lastCloses = false;
  private unreadSaid = false;

  constructor(private readonly c: Context, private readonly client: Socket) {
    this.requests = new MessageReader('request', {
      head: (h) => this.requestHead(h),
      pass: (b) => {
        if (this.current?.local === undefined) this.out.push(b);
      },
      body: (b) => this.current?.requestBody.add(b),
      end: () => this.requestEnd(),
    });
    client.setNoDelay(true);
    client.on('data', (chunk: Buffer) => this.fromClient(chunk));
    client.on('end', () => this.clientEnd());
    client.on('error', () => {});
    client.on('close', () => this.clientClose());
  }

  get idle(): boolean {
    return this.queue.length === 0 && this.current === null;
  }

  /** Bytes came since the last sweep (a flag, not a timer per socket: refreshing one on every read and write cost more). */
  active = true;
  /** Sweeps this connection has been idle through. */
  idleSweeps = 0;

  destroy(): void {
    this.client.destroy();
    this.upstream?.destroy();
  }

  private pause(why: Pause): void {
    if (this.paused === 0) this.client.pause();
    this.paused |= why;
  }

  private resume(why: Pause): void {
    if ((this.paused & why) === 0) return;
    this.paused &= ~why;
    if (this.paused === 0 && !this.closed) this.client.resume();
  }

  private fromClient(chunk: Buffer): void {
    this.active = true;
    if (this.closing) return;
    if (this.requests.opaque) {
      this.toUpstream(chunk);
      return;
    }
    try {
      this.requests.feed(chunk);
    } catch (err) {
      // A bug of the reader: what it had not handed on goes on unread, and so does the rest of the connection.
      this.out = [];
      this.unread(`reading a request failed: ${(err as Error).message}`, 'request');
      this.toUpstream(chunk);
      return;
    }
    this.flushOut();
    if (this.requests.broken !== undefined) this.unread(`a request it cannot read as HTTP/1.1 (${this.requests.broken})`, 'request');
    this.advance();
  }

  private toUpstream(bytes: Buffer): void {
    this.out.push(bytes);
    this.flushOut();
  }

  private flushOut(): void {
    if (this.out.length === 0) return;
    const parts = this.out;
    this.out = [];
    const upstream = this.ensureUpstream();
    let ok: boolean;
    if (parts.length === 1) ok = upstream.write(parts[0]!);
    else {
      upstream.cork();
      for (const p of parts) upstream.write(p);
      ok = upstream.writableLength < upstream.writableHighWaterMark;
      upstream.uncork();
    }
    if (!ok) {
      this.pause(Pause.UpstreamFull);
      upstream.once('drain', () => this.resume(Pause.UpstreamFull));
    }
  }

  private ensureUpstream(): Socket {
    if (this.upstream) return this.upstream;
    const { c } = this;
    const socket = c.secure ? tlsConnect({ host: c.host, port: c.port, ...(isIP(c.host) ? {} : { servername: c.host }), ALPNProtocols: ['http/1.1'], ...(c.options.upstreamCa ? { ca: [...rootCertificates, c.options.upstreamCa.toString('utf8')] } : {}) }) : netConnect({ host: c.host, port: c.port });
    socket.setNoDelay(true);
    this.upstream = socket;
    this.upstreamSpoke = false;
    this.upstreamError = undefined;
    this.answerBytes = 0;
    this.responses = new MessageReader('response', {
      head: (h) => this.responseHead(h),
      pass: () => {},
      body: (b) => this.queue[0]?.responseBody.add(b),
      end: () => this.responseEnd(),
    }, () => this.queue[0]?.method);
    socket.on('data', (chunk: Buffer) => this.fromUpstream(socket, chunk));
    socket.on('error', (err) => (this.upstreamError = err));
    socket.on('close', () => this.upstreamClose(socket));
    return socket;
  }

  private fromUpstream(socket: Socket, chunk: Buffer): void {
    this.active = true;
    this.upstreamSpoke = true;
    this.answerBytes += chunk.length;
    // The bytes first, as they came; the reading after.
    if (!this.client.write(chunk) && !this.waitingClientDrain) {
      this.waitingClientDrain = true;
      socket.pause();
      this.client.once('drain', () => {
        this.waitingClientDrain = false;
        socket.resume();
      });
    }
    if (this.responses.opaque) return;
    try {
      this.responses.feed(chunk);
    } catch (err) {
      this.responses.stop(`reading an answer failed: ${(err as Error).message}`);
    }
    if (this.responses.broken !== undefined) this.unread(`an answer it cannot read as HTTP/1.1 (${this.responses.broken})`, 'response');
    else this.advance();
  }

  private requestHead(h: Head): void {
    const { c } = this;
    const path = c.options.kind === 'api' ? belowRoot(h.target, c.rootPath) : h.target;
    const closes = h.connection !== undefined ? CLOSE.test(h.connection) : h.version === '1.0';
    if (this.unreadSaid) {
      // The answers are passed unread: requests still go up with the upstream's Host, and are not followed.
      this.out.push(upstreamHead(h, c.hostHeader, c.exactPath));
      return;
    }
    const x = new InFlight(c.now(), performance.now(), h.method, path, h.fields, closes);
    const local = c.options.answerLocally?.(h.target);
    if (local) {
      // Answered in its turn, once the answers before it have passed; nothing after it is read until then.
      x.local = local;
      this.requests.holdAfterMessage();
    } else {
      // An upgrade's answer decides whether what follows is HTTP: nothing after it is read until then.
      if (h.method === 'CONNECT' || h.upgrade) this.requests.holdAfterMessage();
      this.out.push(upstreamHead(h, c.hostHeader, c.exactPath));
    }
    this.queue.push(x);
    this.current = x;
    if (this.queue.length >= MAX_IN_FLIGHT) this.pause(Pause.InFlight);
  }

  private requestEnd(): void {
    const x = this.current;
    if (!x) return;
    this.current = null;
    x.requestDone = true;
    if (x.responseDone) this.complete(x);
  }

  private responseHead(h: Head): void {
    const x = this.queue[0];
    if (!x || x.local) {
      this.responses.stop('an answer to no request');
      return;
    }
    // 1xx other than 101 are interim: the answer is still to come.
    if (h.status < 200 && h.status !== 101) return;
    x.status = h.status;
    x.answerMs = Math.floor((performance.now() - x.t0) * 10) / 10;
    x.responseFields = h.fields;
    x.answerCloses = h.connection !== undefined ? CLOSE.test(h.connection) : h.version === '1.0';
    if (h.status === 101 || (x.method === 'CONNECT' && h.status < 300)) {
      this.requests.tunnel();
      this.resume(Pause.Held);
    }
  }

  private responseEnd(): void {
    const x = this.queue.shift();
    if (!x) return;
    this.answerBytes = 0;
    x.responseDone = true;
    this.lastCloses = x.closes || x.answerCloses;
    if (x.requestDone) this.complete(x);
    if (this.queue.length < MAX_IN_FLIGHT) this.resume(Pause.InFlight);
  }

  /** Writes the local answers whose turn has come; reads again what was held once nothing is awaited. */
  private advance(): void {
    for (;;) {
      const first = this.queue[0];
      if (first?.local !== undefined && first.requestDone) {
        this.queue.shift();
        const bytes = localResponse(first.local(), first.closes);
        if (first.closes) {
          this.finishWith(bytes);
          return;
        }
        this.client.write(bytes);
        continue;
      }
      if (this.requests.holding && this.queue.length === 0 && !this.closed) {
        this.requests.release();
        this.flushOut();
        if (this.requests.holding) this.pause(Pause.Held);
        else this.resume(Pause.Held);
        continue;
      }
      break;
    }
    if (this.requests.holding) this.pause(Pause.Held);
    if (this.clientEnded && this.idle && this.upstream === null) this.client.end();
  }

  private complete(x: InFlight): void {
    if (x.reported) return;
    x.reported = true;
    x.finished = performance.now();
    if (x.path === null || x.unread || x.local !== undefined) return;
    this.c.judging.push(() => this.report(x), x.requestBody.size + x.responseBody.size);
  }

  private report(x: InFlight): void {
    const { options } = this.c;
    // An API key is never kept: an API call carries its credential id instead.
    const { record: requestHeaders, heldValue: authorization } = headerRecord(x.requestFields, options.kind === 'api' ? 'authorization' : undefined);
    const exchange: WatchedExchange = {
      kind: options.kind,
      at: new Date(x.started).toISOString(),
      ms: Math.ceil((x.finished - x.t0) * 10) / 10,
      ...(x.answerMs !== undefined ? { answerMs: x.answerMs } : {}),
      method: x.method.toUpperCase(),
      path: x.path!,
      requestHeaders,
      requestBody: x.requestBody.text(),
      status: x.status,
      responseHeaders: headerRecord(x.responseFields).record,
      responseBody: x.responseBody.text(),
      ...(options.kind === 'api' ? { credential: credentialOf(authorization) } : {}),
      // A body cut short by a close is judged as a longer one is: its status and headers, not its bytes.
      ...(x.requestBody.truncated || x.responseBody.truncated || !x.requestDone || (x.status !== null && !x.responseDone) ? { truncated: true } : {}),
    };
    options.onExchange(exchange);
  }

  /**
   * Stops following this connection: its bytes still pass (an unreadable request unread; requests after an unreadable
   * answer still with the upstream's Host), and what is in flight and what follows is not judged.
   */
  private unread(message: string, side: 'request' | 'response'): void {
    if (this.unreadSaid) return;
    this.unreadSaid = true;
    for (const x of this.queue) x.unread = true;
    if (this.current) this.current.unread = true;
    this.queue.length = 0;
    this.current = null;
    this.responses?.stop(message);
    if (side === 'request') {
      // Held bytes go on unread too.
      this.requests.tunnel();
      this.requests.stop(message);
      this.flushOut();
    }
    this.resume(Pause.Held | Pause.InFlight);
    this.c.options.onUnread?.(`watch: forwarding a connection unread, its exchanges not judged: ${message}`);
  }

  private clientEnd(): void {
    this.clientEnded = true;
    // Half-closed: the answers still due go back, then the connection ends (the upstream's close ends it).
    if (this.upstream) this.upstream.end();
    else this.advance();
  }

  private clientClose(): void {
    this.closed = true;
    this.upstream?.destroy();
    this.c.connections.delete(this);
    // What was in flight is reported as it stood (a client that gave up, the platform's delivery time-out §6.2).
    for (const x of this.queue) this.complete(x);
    if (this.current) this.complete(this.current);
    this.queue.length = 0;
    this.current = null;
  }

  private upstreamClose(socket: Socket): void {
    if (socket !== this.upstream) return;
    this.upstream = null;
    if (this.closed || this.closing) return;
    const r = this.responses;
    if (r.opaque) {
      // A tunnel, or bytes passed unread: the upstream's close is passed on (and nothing more goes up: no new connection).
      this.closing = true;
      this.client.end();
      return;
    }
    const cutShort = r.inMessage && !r.runsToClose;
    const endedAtClose = r.finish();
    const waiting = this.queue.find((x) => x.local === undefined);
    if (waiting && this.answerBytes === 0) {
      // Gone before answering (unreachable, or closed as the request went up): 502, as watch has always answered.
      const why = this.upstreamError?.message ?? (this.upstreamSpoke ? 'closed the connection before answering' : 'closed the connection at once');
      this.c.options.onUpstreamError?.(`cannot reach ${this.c.origin}: ${why}`);
      this.finishWith(BAD_GATEWAY);
      return;
    }
    if (cutShort || waiting || (this.current !== null && this.current.local === undefined)) {
      // Cut short mid-answer (or mid-request): the client sees the close, as it would from the upstream itself.
      this.client.destroy();
      return;
    }
    // An answer that ran to the close ends with it, as does a connection either side asked to close; an idle close
    // otherwise waits for the next request, which goes up on a new connection.
    if (endedAtClose || this.clientEnded || this.lastCloses) {
      this.closing = true;
      this.client.end();
    }
  }

  /** Writes a last answer and ends the client connection; what was in flight is reported as it stood. */
  private finishWith(bytes: Buffer): void {
    this.closing = true;
    for (const x of this.queue) this.complete(x);
    if (this.current) this.complete(this.current);
    this.queue.length = 0;
    this.current = null;
    this.client.end(bytes);
  }
}

/** A forwarder to `upstream` that reports each completed exchange. */
export function createForwarder(options: ForwarderOptions): Forwarder {
  const target = new URL(options.upstream);
  const secure = target.protocol === 'https:';
  const context: Context = {
    options,
    host: target.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: Number(target.port || (secure ? 443 : 80)),
    hostHeader: target.host,
    secure,
    origin: target.origin,
    rootPath: target.pathname.replace(/\/$/, ''),
    exactPath: options.exactTarget ? target.pathname + target.search : null,
    now: options.now ?? Date.now,
    judging: options.judging ?? new JudgingQueue(),
    connections: new Set(),
  };

  // Idle client connections are closed after CLIENT_IDLE_MS, give or take a sweep.
  let sweeper: NodeJS.Timeout | undefined;
  const sweep = () => {
    for (const c of context.connections) {
      c.idleSweeps = c.active || !c.idle ? 0 : c.idleSweeps + 1;
      c.active = false;
      if (c.idleSweeps * SWEEP_MS >= CLIENT_IDLE_MS) c.destroy();
    }
  };

  return {
    accept(client) {
      context.connections.add(new Connection(context, client));
      sweeper ??= setInterval(sweep, SWEEP_MS).unref();
    },
    async stop(graceMs = 1_000) {
      clearInterval(sweeper);
      const until = Date.now() + graceMs;
      for (;;) {
        // A kept-alive connection is done once its answers are: it need not wait out the grace.
        for (const c of context.connections) if (c.idle) c.destroy();
        if (context.connections.size === 0 || Date.now() >= until) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      for (const c of context.connections) c.destroy();
      // The close events report what was in flight.
      await new Promise((r) => setImmediate(r));
      context.judging.flush();
    },
    close() {
      clearInterval(sweeper);
      for (const c of context.connections) c.destroy();
      context.judging.flush();
    },
  };
}
