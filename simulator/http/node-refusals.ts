/**
 * Requests Node's HTTP parser refuses before Koa sees them (a malformed
 * request line or header, headers over Node's 16 KiB limit, a request that
 * overran the server time-outs, an `Expect` other than `100-continue`).
 * Without a listener Node answers these with a status line and an empty
 * body; issue 29 (item 5) asks for the error envelope everywhere the server
 * can still answer. The codes are the simulator's own, like
 * STORAGE_UNAVAILABLE: the API document lists none for a request that is not
 * HTTP it can read (§7 covers requests that reach the API).
 *
 * Where nothing can be answered the socket is closed as Node would: the peer
 * is gone (ECONNRESET, or the socket no longer writable), or an answer to an
 * earlier request on the same connection has already begun (a second status
 * line would corrupt it). docs/simulator.md says so.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/** The status and code the simulator answers for each parser refusal, as Node itself would choose the status. */
export function refusalFor(error: NodeJS.ErrnoException): { status: number; reason: string; code: string; message: string } {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, reason: 'Request Header Fields Too Large', code: 'REQUEST_HEADERS_TOO_LARGE', message: 'The request headers are larger than the server accepts (16 KiB in all).' };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, reason: 'Payload Too Large', code: 'PAYLOAD_TOO_LARGE', message: 'The chunk extensions of the request body are larger than the server accepts.' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, reason: 'Request Timeout', code: 'REQUEST_TIMEOUT', message: 'The request did not arrive in time (headers within 10 s, the whole request within 30 s).' };
    default:
      return { status: 400, reason: 'Bad Request', code: 'MALFORMED_REQUEST', message: `The request is not HTTP/1.1 the server can read (${error.code ?? 'parse error'}).` };
  }
}

/** The envelope answer to a parser refusal, as raw bytes for the socket (there is no response object yet). */
export function refusalBytes(error: NodeJS.ErrnoException): string {
  const { status, reason, code, message } = refusalFor(error);
  const body = JSON.stringify({ success: false, code, message, errors: {} });
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** Makes `server` answer Node-level refusals with the error envelope (400, 408, 413, 431 and 417). */
export function answerNodeRefusals(server: Server): Server {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    socket.end(refusalBytes(error));
  });
  // Without this listener Node answers an unmet `Expect` with a bare 417.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const body = JSON.stringify({
      success: false, code: 'EXPECTATION_FAILED', message: `The server meets only "Expect: 100-continue", not "${req.headers.expect}".`, errors: {},
    });
    res.writeHead(417, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
    res.end(body);
  });
  return server;
}
