/**
 * An incremental reader of HTTP/1.1 messages (RFC 9112) for one direction of
 * a connection: handed the bytes as they pass, it says where each message's
 * head, body and end lie, so that the proxy can forward the bytes themselves
 * and judge a copy. It never holds a body back: only a head still arriving
 * is kept (bounded), and a body is handed on in the slices it came in.
 * Framing follows §6.3: a response to HEAD, a 1xx, 204 or 304 has no body;
 * 101 and a 2xx to CONNECT turn the connection into a tunnel; chunked when
 * Transfer-Encoding ends in chunked; else Content-Length; else a response
 * runs to the close and a request has no body. Pipelined messages follow one
 * another in a chunk. What it cannot follow (a malformed head, a bad chunk
 * size) makes it give up on the connection: the bytes still pass, unread.
 */

/** A head longer than this is not a head watch follows (Node's own limit is 16 KiB). */
export const MAX_HEAD_BYTES = 64 * 1024;
/** A chunk-size line or the trailer section longer than this is not followed either. */
const MAX_LINE_BYTES = 4 * 1024;

export interface Head {
  /** A request's method; '' in a response. */
  method: string;
  /** A request's target as sent (`/api/integrations/v1/me?x=1`); '' in a response. */
  target: string;
  /** A response's status; 0 in a request. */
  status: number;
  /** `1.1`, `1.0`. */
  version: string;
  /** Header fields as received: name in its case, value without surrounding blanks; name, value, name, value… */
  fields: string[];
  /** The head's bytes as received, as latin1 text (byte for byte), without the blank line that ends it. */
  text: string;
  /** The line break that ended the head (`\r\n\r\n`, or `\n\n` from a lenient sender). */
  end: string;
  /** The fields that frame the message or the connection, read in the same pass (repeated ones joined with `, `). */
  contentLength: string | undefined;
  transferEncoding: string | undefined;
  connection: string | undefined;
  upgrade: boolean;
}

export interface ReaderHandlers {
  /** A message's head is complete (bytes before it were handed to `pass`); an interim 1xx answer's too (no body, no end). */
  head(head: Head): void;
  /** Bytes that are not part of a head (bodies with their chunk framing, a tunnel's bytes), in order. */
  pass(bytes: Buffer): void;
  /** A slice of a message's body, without chunk framing. */
  body(bytes: Buffer): void;
  /** The message is complete. */
  end(): void;
}

export type ReaderKind = 'request' | 'response';

const enum State { Head, Length, ChunkSize, ChunkData, ChunkDataEnd, Trailers, UntilClose, Tunnel, Held, Broken }

const REQUEST_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+) (\S+) HTTP\/(\d\.\d)$/;
const STATUS_LINE = /^HTTP\/(\d\.\d) (\d{3})(?: .*)?$/;
const HEX = /^[0-9a-fA-F]{1,13}$/;
const DIGITS = /^\d{1,15}$/;

/** `7, 7` → `7`; values that differ → ''. */
function sameValues(list: string): string {
  const values = new Set(list.split(',').map((v) => v.trim()));
  return values.size === 1 ? [...values][0]! : '';
}

export class MessageReader {
  private state = State.Head;
  /** Bytes of a head still arriving. */
  private partial: Buffer | null = null;
  /** Body bytes still to come (Content-Length), or of the current chunk. */
  private remaining = 0;
  /** A chunk-size or trailer line still arriving, and the trailer section's size so far. */
  private line = '';
  private trailerBytes = 0;
  /** Bytes that came while the reader was held. */
  private held: Buffer[] = [];
  private holdAfter = false;
  private tunnelAfter = false;
  /** Why the reader gave up, once it has. */
  broken: string | undefined;

  /**
   * @param kind which direction this is.
   * @param handlers told where things lie.
   * @param requestMethod a response reader asks the method of the request this response answers (HEAD and CONNECT frame it).
   */
  constructor(
    private readonly kind: ReaderKind,
    private readonly handlers: ReaderHandlers,
    private readonly requestMethod: () => string | undefined = () => undefined,
  ) {}

  /** True between a head and the end of its message (a close there cuts the message short, unless it runs to the close). */
  get inMessage(): boolean {
    return this.state !== State.Head && this.state !== State.Held && this.state !== State.Tunnel && this.state !== State.Broken;
  }

  /** True when the bytes are no longer read as HTTP (a tunnel, or given up). */
  get opaque(): boolean {
    return this.state === State.Tunnel || this.state === State.Broken;
  }

  /** True while the reader keeps what comes instead of reading it (see holdAfterMessage). */
  get holding(): boolean {
    return this.state === State.Held;
  }

  /**
   * Called from `head`: once this message ends, keep what follows unread until `release` or `tunnel`
   * (an Upgrade request waits for its answer; a request watch answers itself waits for its turn).
   */
  holdAfterMessage(): void {
    this.holdAfter = true;
  }

  /** Reads what was kept and what comes next as HTTP again. */
  release(): void {
    if (this.state !== State.Held) return;
    this.state = State.Head;
    const kept = this.held;
    this.held = [];
    for (const b of kept) this.feed(b);
  }

  /** What was kept and what comes next are a tunnel's bytes (101 Switching Protocols, CONNECT). */
  tunnel(): void {
    if (this.state !== State.Held) return;
    this.state = State.Tunnel;
    const kept = this.held;
    this.held = [];
    for (const b of kept) this.handlers.pass(b);
  }

  /** True while reading a body that runs to the close of the connection. */
  get runsToClose(): boolean {
    return this.state === State.UntilClose;
  }

  /** The connection closed: a body that runs to the close ends here (true when one did). */
  finish(): boolean {
    if (this.state !== State.UntilClose) return false;
    this.state = State.Head;
    this.handlers.end();
    return true;
  }

  /** Stops reading: what comes next is passed on unread. */
  stop(why: string): void {
    this.giveUp(why);
  }

  /** Reads one chunk of the stream. */
  feed(chunk: Buffer): void {
    let pos = 0;
    let passFrom = 0;
    const len = chunk.length;
    while (pos < len) {
      switch (this.state) {
        case State.Head: {
          if (passFrom < pos) this.handlers.pass(chunk.subarray(passFrom, pos));
          pos = this.readHead(chunk, pos);
          passFrom = pos;
          break;
        }
        case State.Length: {
          const n = Math.min(this.remaining, len - pos);
          this.handlers.body(chunk.subarray(pos, pos + n));
          pos += n;
          this.remaining -= n;
          if (this.remaining === 0) {
            if (passFrom < pos) this.handlers.pass(chunk.subarray(passFrom, pos));
            passFrom = pos;
            this.messageEnd();
          }
          break;
        }
        case State.ChunkSize:
        case State.Trailers: {
          const lf = chunk.indexOf(10, pos);
          const stop = lf < 0 ? len : lf + 1;
          this.line += chunk.toString('latin1', pos, lf < 0 ? len : lf);
          if (this.state === State.Trailers) this.trailerBytes += stop - pos;
          pos = stop;
          if (this.line.length > MAX_LINE_BYTES || this.trailerBytes > MAX_HEAD_BYTES) {
            this.giveUp('a chunk-size line or trailer section too long');
            break;
          }
          if (lf < 0) break;
          const line = this.line.endsWith('\r') ? this.line.slice(0, -1) : this.line;
          this.line = '';
          if (this.state === State.Trailers) {
            if (line === '') {
              if (passFrom < pos) this.handlers.pass(chunk.subarray(passFrom, pos));
              passFrom = pos;
              this.messageEnd();
            }
            break;
          }
          const size = line.split(';', 1)[0]!.trim();
          if (!HEX.test(size)) {
            this.giveUp(`a chunk size that is not hexadecimal: "${line.slice(0, 40)}"`);
            break;
          }
          this.remaining = parseInt(size, 16);
          this.state = this.remaining === 0 ? State.Trailers : State.ChunkData;
          this.trailerBytes = 0;
          break;
        }
        case State.ChunkData: {
          const n = Math.min(this.remaining, len - pos);
          this.handlers.body(chunk.subarray(pos, pos + n));
          pos += n;
          this.remaining -= n;
          if (this.remaining === 0) this.state = State.ChunkDataEnd;
          break;
        }
        case State.ChunkDataEnd: {
          // The CRLF after a chunk's data (a lone LF accepted, as Node accepts it).
          const byte = chunk[pos]!;
          if (byte === 13 && this.line === '') {
            this.line = '\r';
            pos += 1;
          } else if (byte === 10) {
            this.line = '';
            this.state = State.ChunkSize;
            pos += 1;
          } else this.giveUp('chunk data not followed by CRLF');
          break;
        }
        case State.UntilClose:
          this.handlers.body(chunk.subarray(pos));
          pos = len;
          break;
        case State.Held:
          if (passFrom < pos) this.handlers.pass(chunk.subarray(passFrom, pos));
          this.held.push(chunk.subarray(pos));
          pos = len;
          passFrom = len;
          break;
        case State.Tunnel:
        case State.Broken:
          pos = len;
          break;
      }
    }
    if (passFrom < len) this.handlers.pass(passFrom === 0 ? chunk : chunk.subarray(passFrom));
  }

  private giveUp(why: string): void {
    this.broken ??= why;
    this.state = State.Broken;
    this.line = '';
  }

  private messageEnd(): void {
    this.handlers.end();
    if (this.tunnelAfter) this.state = State.Tunnel;
    else if (this.holdAfter) this.state = State.Held;
    else this.state = State.Head;
    this.tunnelAfter = false;
    this.holdAfter = false;
  }

  /** Reads a head from `pos`; returns where its bytes end in `chunk` (the chunk's end when it is still arriving). */
  private readHead(chunk: Buffer, pos: number): number {
    let buf = chunk;
    let start = pos;
    let offset = 0;
    if (this.partial) {
      offset = this.partial.length;
      buf = Buffer.concat([this.partial, chunk.subarray(pos)]);
      start = 0;
      this.partial = null;
    } else if (this.kind === 'request') {
      // §2.2: empty lines before a request line are ignored (by the upstream: they are passed on as they came).
      while (start < chunk.length && (chunk[start] === 13 || chunk[start] === 10)) start += 1;
      if (start > pos) {
        this.handlers.pass(chunk.subarray(pos, start));
        if (start === chunk.length) return start;
        pos = start;
      }
    }
    const from = Math.max(start, offset - 3);
    let at = buf.indexOf('\r\n\r\n', from, 'latin1');
    let endLength = 4;
    if (at < 0) {
      // A lenient sender's bare LFs (looked for only then: a head mixing both line ends before a CRLF end has an empty
      // line inside, which parseHead refuses, and the connection is passed on unread).
      at = buf.indexOf('\n\n', from, 'latin1');
      endLength = 2;
    }
    if (at < 0 || at - start > MAX_HEAD_BYTES) {
      if (at >= 0 || buf.length - start > MAX_HEAD_BYTES) {
        this.giveUp(`a head longer than ${MAX_HEAD_BYTES} bytes`);
        // The head's bytes were kept, not passed: they go on unread.
        this.handlers.pass(buf.subarray(start));
        return chunk.length;
      }
      this.partial = start === 0 && buf !== chunk ? buf : Buffer.from(buf.subarray(start));
      return chunk.length;
    }
    const text = buf.toString('latin1', start, at);
    const consumed = at + endLength - start;
    // Where the head ends in `chunk`: the kept part came before `pos`.
    const next = pos + consumed - offset;
    const head = this.parseHead(text, endLength === 4 ? '\r\n\r\n' : '\n\n');
    if (!head) {
      this.handlers.pass(buf.subarray(start, at + endLength));
      return next;
    }
    this.handlers.head(head);
    this.frame(head);
    return next;
  }

  private parseHead(text: string, end: string): Head | null {
    let eol = text.indexOf('\n');
    const firstEnd = eol < 0 ? text.length : eol;
    const first = text.charCodeAt(firstEnd - 1) === 13 ? text.slice(0, firstEnd - 1) : text.slice(0, firstEnd);
    const head: Head = { method: '', target: '', status: 0, version: '', fields: [], text, end, contentLength: undefined, transferEncoding: undefined, connection: undefined, upgrade: false };
    if (this.kind === 'request') {
      const m = REQUEST_LINE.exec(first);
      if (!m) return this.refuse(`a request line watch cannot read: "${first.slice(0, 80)}"`);
      head.method = m[1]!;
      head.target = m[2]!;
      head.version = m[3]!;
    } else {
      const m = STATUS_LINE.exec(first);
      if (!m) return this.refuse(`a status line watch cannot read: "${first.slice(0, 80)}"`);
      head.version = m[1]!;
      head.status = Number(m[2]);
    }
    const fields = head.fields;
    while (eol >= 0) {
      const start = eol + 1;
      eol = text.indexOf('\n', start);
      const stop = eol < 0 ? text.length : eol;
      const line = text.charCodeAt(stop - 1) === 13 ? text.slice(start, stop - 1) : text.slice(start, stop);
      const c0 = line.charCodeAt(0);
      if ((c0 === 32 || c0 === 9) && fields.length > 0) {
        // §5.2 obs-fold: the continuation is the same value, joined with a space.
        fields[fields.length - 1] += ` ${line.trim()}`;
        continue;
      }
      const colon = line.indexOf(':');
      if (colon <= 0) return this.refuse(`a header line watch cannot read: "${line.slice(0, 80)}"`);
      const name = line.slice(0, colon);
      const value = line.slice(colon + 1).trim();
      fields.push(name, value);
      // The fields that frame: compared in lower case only when the length could match.
      switch (name.length) {
        case 14:
          if (name.toLowerCase() === 'content-length') head.contentLength = head.contentLength === undefined ? value : `${head.contentLength}, ${value}`;
          break;
        case 17:
          if (name.toLowerCase() === 'transfer-encoding') head.transferEncoding = head.transferEncoding === undefined ? value : `${head.transferEncoding}, ${value}`;
          break;
        case 10:
          if (name.toLowerCase() === 'connection') head.connection = head.connection === undefined ? value : `${head.connection}, ${value}`;
          break;
        case 7:
          if (name.toLowerCase() === 'upgrade') head.upgrade = true;
          break;
      }
    }
    return head;
  }

  private refuse(why: string): null {
    this.giveUp(why);
    return null;
  }

  /** §6.3: where the body of the message whose head was just read ends. */
  private frame(head: Head): void {
    if (this.state === State.Broken) return;
    const te = head.transferEncoding;
    const cl = head.contentLength;
    if (this.kind === 'response') {
      const method = this.requestMethod();
      if (head.status >= 100 && head.status < 200) {
        // 101: the connection is the new protocol's from here; other 1xx are interim: the answer is still to come.
        if (head.status === 101) {
          this.tunnelAfter = true;
          this.messageEnd();
        }
        return;
      }
      if (method === 'CONNECT' && head.status < 300) {
        this.tunnelAfter = true;
        this.messageEnd();
        return;
      }
      if (method === 'HEAD' || head.status === 204 || head.status === 304) {
        this.messageEnd();
        return;
      }
    }
    if (te !== undefined) {
      if (/(?:^|,)\s*chunked\s*$/i.test(te)) {
        this.state = State.ChunkSize;
        this.line = '';
        return;
      }
      if (this.kind === 'request') {
        this.giveUp(`a request whose Transfer-Encoding does not end in chunked: "${te}"`);
        return;
      }
      this.state = State.UntilClose;
      return;
    }
    if (cl !== undefined) {
      // Repeated fields or a list of one value (§8.6) are one length; differing ones are not a message watch follows.
      const value = DIGITS.test(cl) ? cl : sameValues(cl);
      if (!DIGITS.test(value)) {
        this.giveUp(`a Content-Length watch cannot read: "${cl}"`);
        return;
      }
      this.remaining = Number(value);
      if (this.remaining === 0) this.messageEnd();
      else this.state = State.Length;
      return;
    }
    if (this.kind === 'response') this.state = State.UntilClose;
    else this.messageEnd();
  }
}
