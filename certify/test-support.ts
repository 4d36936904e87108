/** Helpers for certification's tests. */
import { createServer } from 'node:net';

/** A port free on 127.0.0.1 right now (the partner listens on it; certify registers its URL first). */
/** Ports handed out in this process: a port closed here may be handed out again by the OS at once. */
const handedOut = new Set<number>();

/**
 * A port free now and never handed out before in this process, for a child
 * process to bind. Concurrent tests each ask for ports; without the set two
 * of them could get the same just-released port, and one partner fails to
 * bind (seen once: every delivery ECONNREFUSED).
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((ok, fail) => {
      const s = createServer().once('error', fail).listen(0, '127.0.0.1', () => {
        const { port } = s.address() as { port: number };
        s.close(() => ok(port));
      });
    });
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}
