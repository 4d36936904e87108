/** Helpers for certification's tests. */
import { createServer } from 'node:net';

/** A port free on 127.0.0.1 right now (the partner listens on it; certify registers its URL first). */
export async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer().once('error', fail).listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => ok(port));
    });
  });
}
