/** Helpers for certification's tests. */
import { freePort as anyFreePort } from '../conformance/served-simulator.ts';

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
    // Below the ephemeral range (conformance/served-simulator.ts): no outgoing connection takes it meanwhile.
    const port = await anyFreePort();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}
