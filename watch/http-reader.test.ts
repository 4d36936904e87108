import { describe, expect, it } from 'vitest';
import { MAX_HEAD_BYTES, MessageReader, type Head, type ReaderKind } from './http-reader.ts';

interface Read {
  /** Heads, bodies and ends in order: `head GET /x`, `head 200`, `body …`, `end`. */
  events: string[];
  /** The stream as the reader handed it on: each head's bytes and each passed slice, in order. */
  handedOn: string;
  broken: string | undefined;
  reader: MessageReader;
}

/** Reads `chunks` as one direction of a connection; a response reader answers requests of `methods` in turn. */
function read(kind: ReaderKind, chunks: string[], methods: string[] = [], finish = false): Read {
  const events: string[] = [];
  let handedOn = '';
  let body = '';
  const flushBody = () => {
    if (body !== '') events.push(`body ${body}`);
    body = '';
  };
  let answered = 0;
  const r = new MessageReader(kind, {
    head: (h: Head) => {
      flushBody();
      events.push(kind === 'request' ? `head ${h.method} ${h.target}` : `head ${h.status}`);
      handedOn += h.text + h.end;
    },
    pass: (b) => void (handedOn += b.toString('latin1')),
    body: (b) => void (body += b.toString('latin1')),
    end: () => {
      flushBody();
      events.push('end');
      answered += 1;
    },
  }, () => methods[answered]);
  for (const c of chunks) r.feed(Buffer.from(c, 'latin1'));
  if (finish) r.finish();
  flushBody();
  return { events, handedOn, broken: r.broken, reader: r };
}

const GET = 'GET /api/integrations/v1/me HTTP/1.1\r\nHost: watch\r\nAuthorization: Bearer k\r\n\r\n';
const POST = 'POST /api/integrations/v1/bookings HTTP/1.1\r\nHost: watch\r\nContent-Type: application/json\r\nContent-Length: 9\r\n\r\n{"k":"v"}';
const CHUNKED_POST = 'POST /webhook HTTP/1.1\r\nHost: watch\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\n{"a"\r\n5\r\n:1,"b\r\n4\r\n":2}\r\n0\r\nX-Trailer: t\r\n\r\n';
const OK = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n{"a":1,"b":2}';
const CHUNKED_OK = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"a":\r\n8\r\n1,"b":2}\r\n0\r\n\r\n';

const CASES: [string, { kind: ReaderKind; stream: string; methods?: string[]; finish?: boolean; want: string[] }][] = [
  ['a request without a body', { kind: 'request', stream: GET, want: ['head GET /api/integrations/v1/me', 'end'] }],
  ['a request with Content-Length', { kind: 'request', stream: POST, want: ['head POST /api/integrations/v1/bookings', 'body {"k":"v"}', 'end'] }],
  ['a chunked request with an extension and a trailer: the body without its framing', { kind: 'request', stream: CHUNKED_POST, want: ['head POST /webhook', 'body {"a":1,"b":2}', 'end'] }],
  ['pipelined requests, one after the other', { kind: 'request', stream: GET + POST + GET, want: ['head GET /api/integrations/v1/me', 'end', 'head POST /api/integrations/v1/bookings', 'body {"k":"v"}', 'end', 'head GET /api/integrations/v1/me', 'end'] }],
  ['empty lines before a request line are passed on (§2.2)', { kind: 'request', stream: `\r\n${GET}`, want: ['head GET /api/integrations/v1/me', 'end'] }],
  ['a head with bare LF line ends', { kind: 'request', stream: 'GET /x HTTP/1.1\nHost: w\n\n', want: ['head GET /x', 'end'] }],
  ['an answer with Content-Length', { kind: 'response', stream: OK, methods: ['GET'], want: ['head 200', 'body {"a":1,"b":2}', 'end'] }],
  ['a chunked answer', { kind: 'response', stream: CHUNKED_OK, methods: ['GET'], want: ['head 200', 'body {"a":1,"b":2}', 'end'] }],
  ['the answer to HEAD has no body, whatever its Content-Length', { kind: 'response', stream: `HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\n${OK}`, methods: ['HEAD', 'GET'], want: ['head 200', 'end', 'head 200', 'body {"a":1,"b":2}', 'end'] }],
  ['204 and 304 have no body', { kind: 'response', stream: 'HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\n', methods: ['DELETE', 'GET'], want: ['head 204', 'end', 'head 304', 'end'] }],
  ['100 Continue is interim: the answer follows', { kind: 'response', stream: `HTTP/1.1 100 Continue\r\n\r\n${OK}`, methods: ['POST'], want: ['head 100', 'head 200', 'body {"a":1,"b":2}', 'end'] }],
  ['an answer without framing runs to the close', { kind: 'response', stream: 'HTTP/1.1 200 OK\r\n\r\nall of it', methods: ['GET'], finish: true, want: ['head 200', 'body all of it', 'end'] }],
  ['101 Switching Protocols: what follows is a tunnel, passed on unread', { kind: 'response', stream: 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n\x81\x05hello', methods: ['GET'], want: ['head 101', 'end'] }],
  ['a 2xx to CONNECT opens a tunnel', { kind: 'response', stream: 'HTTP/1.1 200 Connection established\r\n\r\nbytes', methods: ['CONNECT'], want: ['head 200', 'end'] }],
];

describe('the reader finds heads, bodies and ends (RFC 9112 §6.3)', () => {
  for (const [name, { kind, stream, methods, finish, want }] of CASES) {
    it(name, () => {
      const whole = read(kind, [stream], methods, finish);
      expect(whole.events).toEqual(want);
      expect(whole.broken).toBeUndefined();
      // Nothing is lost, doubled or reordered: heads and passed slices are the stream.
      expect(whole.handedOn).toBe(stream);
    });
  }

  it('the same wherever the stream is cut: every split point of every case, and one byte at a time', () => {
    for (const [name, { kind, stream, methods, finish, want }] of CASES) {
      for (let at = 0; at <= stream.length; at++) {
        const split = read(kind, [stream.slice(0, at), stream.slice(at)], methods, finish);
        expect(split.events, `${name}, cut at ${at}`).toEqual(want);
        expect(split.handedOn, `${name}, cut at ${at}`).toBe(stream);
      }
      const bytewise = read(kind, [...stream], methods, finish);
      expect(bytewise.handedOn, `${name}, byte by byte`).toBe(stream);
      // Bodies come in slices then; joined they are the same.
      expect(bytewise.events.filter((e) => !e.startsWith('body')), `${name}, byte by byte`).toEqual(want.filter((e) => !e.startsWith('body')));
    }
  });

  it('a request after an upgrade is held until its answer decides: released as HTTP, or a tunnel', () => {
    const upgrade = 'GET /ws HTTP/1.1\r\nHost: w\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n';
    for (const decision of ['release', 'tunnel'] as const) {
      const events: string[] = [];
      let handedOn = '';
      const reader = new MessageReader('request', {
        head: (h) => {
          events.push(`head ${h.target}`);
          handedOn += h.text + h.end;
          if (h.upgrade) reader.holdAfterMessage();
        },
        pass: (b) => void (handedOn += b.toString('latin1')),
        body: () => {},
        end: () => void events.push('end'),
      });
      reader.feed(Buffer.from(upgrade + GET, 'latin1'));
      expect(reader.holding).toBe(true);
      expect(events).toEqual(['head /ws', 'end']);
      reader[decision]();
      expect(events).toEqual(decision === 'release' ? ['head /ws', 'end', 'head /api/integrations/v1/me', 'end'] : ['head /ws', 'end']);
      expect(reader.opaque).toBe(decision === 'tunnel');
      expect(handedOn).toBe(upgrade + GET);
    }
  });

  it('inMessage and runsToClose say where a close would cut', () => {
    const r = read('response', ['HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc'], ['GET']);
    expect(r.reader.inMessage).toBe(true);
    expect(r.reader.runsToClose).toBe(false);
    expect(r.reader.finish()).toBe(false);
    const open = read('response', ['HTTP/1.1 200 OK\r\n\r\nabc'], ['GET']);
    expect(open.reader.runsToClose).toBe(true);
  });
});

describe('bad input: what the reader cannot follow is passed on unread', () => {
  const BAD: [string, { kind: ReaderKind; stream: string; methods?: string[]; why: RegExp }][] = [
    ['a request line that is not HTTP/1.x', { kind: 'request', stream: 'HELLO THERE\r\n\r\nmore bytes', why: /request line/ }],
    ['a header line without a colon', { kind: 'request', stream: 'GET / HTTP/1.1\r\nno colon here\r\n\r\n', why: /header line/ }],
    ['a status line that is not HTTP', { kind: 'response', stream: 'SSH-2.0-OpenSSH\r\n\r\n', methods: ['GET'], why: /status line/ }],
    ['a chunk size that is not hexadecimal', { kind: 'response', stream: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc', methods: ['GET'], why: /hexadecimal/ }],
    ['chunk data not followed by CRLF', { kind: 'response', stream: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n', methods: ['GET'], why: /CRLF/ }],
    ['two Content-Length values that differ', { kind: 'request', stream: 'POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd', why: /Content-Length/ }],
    ['a request whose Transfer-Encoding does not end in chunked', { kind: 'request', stream: 'POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\nabc', why: /Transfer-Encoding/ }],
  ];
  for (const [name, { kind, stream, methods, why }] of BAD) {
    it(name, () => {
      const r = read(kind, [stream], methods);
      expect(r.broken).toMatch(why);
      expect(r.reader.opaque).toBe(true);
      expect(r.handedOn).toBe(stream);
      // And it stays unread: what comes next is passed on as it is.
      r.reader.feed(Buffer.from(GET, 'latin1'));
      expect(r.events.filter((e) => e.startsWith('head GET /api'))).toEqual([]);
    });
  }

  it(`a head longer than ${MAX_HEAD_BYTES} bytes is given up on, its bytes passed on`, () => {
    const long = `GET / HTTP/1.1\r\nX-Long: ${'a'.repeat(MAX_HEAD_BYTES)}\r\n\r\n`;
    const r = read('request', [long.slice(0, 1000), long.slice(1000)]);
    expect(r.broken).toMatch(/longer than/);
    expect(r.handedOn).toBe(long);
  });

  it('the same Content-Length twice is one length (§8.6)', () => {
    const r = read('request', ['POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc']);
    expect(r.events).toEqual(['head POST /', 'body abc', 'end']);
  });
});
