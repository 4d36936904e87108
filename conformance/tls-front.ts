/**
 * A TLS front for a webhook receiver on loopback: it terminates TLS with a
 * given certificate and passes the bytes of each connection, unchanged, to
 * a plain-HTTP port behind it, so the receiver behind sees exactly the
 * deliveries a platform posted to `https://127.0.0.1:PORT/…` (§2.1
 * webhook.url: the delivery target, http or https alike). It judges
 * nothing itself; it counts the TLS sessions it opened, so a check can say
 * the deliveries came over TLS.
 */
import { connect, type Socket } from 'node:net';
import { createServer, type TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import type { TlsIdentity } from './receiver-tls.ts';

export interface TlsFront {
  /** The front's port on 127.0.0.1. */
  port: number;
  /** `https://127.0.0.1:PORT` followed by `path`. */
  url(path: string): string;
  /** TLS sessions that completed their handshake and were passed on. */
  readonly sessions: number;
  close(): Promise<void>;
}

export interface TlsFrontOptions {
  identity: TlsIdentity;
  /** The plain-HTTP port on 127.0.0.1 each connection is passed to. */
  forwardTo: number;
  /** The front's own port; 0 (the default) picks a free one. */
  port?: number;
}

export async function startTlsFront(options: TlsFrontOptions): Promise<TlsFront> {
  const open = new Set<Socket>();
  let sessions = 0;
  const server = createServer({ cert: options.identity.cert, key: options.identity.key }, (secure: TLSSocket) => {
    sessions += 1;
    const behind = connect(options.forwardTo, '127.0.0.1');
    open.add(secure).add(behind);
    // Either side gone is the connection gone: a receiver that closed (or was never there) is a refused post for the
    // platform, as on plain http; a platform that gave up closes the receiver's side.
    const drop = () => {
      secure.destroy();
      behind.destroy();
      open.delete(secure);
      open.delete(behind);
    };
    secure.on('error', drop).on('close', drop);
    behind.on('error', drop).on('close', drop);
    secure.pipe(behind).pipe(secure);
  });
  // A handshake the client broke off (an untrusting platform) is its failed post, not the front's error.
  server.on('tlsClientError', (_e, socket) => socket.destroy());
  await new Promise<void>((ok, ko) => server.once('error', ko).listen(options.port ?? 0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: (path) => `https://127.0.0.1:${port}${path}`,
    get sessions() {
      return sessions;
    },
    close: () => new Promise<void>((ok) => {
      for (const socket of open) socket.destroy();
      server.close(() => ok());
    }),
  };
}
