/**
 * The TLS front passes a delivery to the receiver behind it unchanged, over
 * a TLS session the simulator's transport verified: trusted with the test
 * certificate (`ca`), refused without it (§2.1 webhook.url, http or https).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { startReceiver, type Receiver } from '../simulator/webhooks/receiver.ts';
import { nodeTransport } from '../simulator/webhooks/transport.ts';
import { RECEIVER_TLS } from './receiver-tls.ts';
import { startTlsFront, type TlsFront } from './tls-front.ts';

const open: (Receiver | TlsFront)[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});

async function frontedReceiver(): Promise<{ receiver: Receiver; front: TlsFront }> {
  // No secret verifies these unsigned posts: the receiver answers 400, which is still its answer passed back.
  const receiver = await startReceiver({ secrets: ['whsec_test'] });
  const front = await startTlsFront({ identity: RECEIVER_TLS, forwardTo: (receiver.server.address() as AddressInfo).port });
  open.push(receiver, front);
  return { receiver, front };
}

const BODY = JSON.stringify({ type: 'ping', last_sequence: 0 });

describe('the TLS front before a receiver', () => {
  it('a transport trusting the certificate posts through it: the receiver gets the body, the answer comes back', async () => {
    const { receiver, front } = await frontedReceiver();
    const outcome = await nodeTransport({ ca: [RECEIVER_TLS.cert] }).post(front.url('/webhook'), { 'Content-Type': 'application/json' }, BODY, 60_000);
    expect(outcome).toEqual({ status: 400 });
    expect(receiver.received.map((d) => [d.method, d.body])).toEqual([['POST', BODY]]);
    expect(front.sessions).toBe(1);
  });

  it('a transport with Node\'s own trust refuses the certificate: no session, nothing received', async () => {
    const { receiver, front } = await frontedReceiver();
    const outcome = await nodeTransport().post(front.url('/webhook'), { 'Content-Type': 'application/json' }, BODY, 60_000);
    expect(outcome).toEqual({ error: expect.stringMatching(/self[- ]signed certificate/i) });
    expect(receiver.received).toEqual([]);
    expect(front.sessions).toBe(0);
  });

  it('a receiver gone behind the front is a failed post without a status, as a refused connection is', async () => {
    const { receiver, front } = await frontedReceiver();
    await receiver.close();
    const outcome = await nodeTransport({ ca: [RECEIVER_TLS.cert] }).post(front.url('/webhook'), {}, BODY, 60_000);
    expect(outcome).toEqual({ error: expect.any(String) });
  });
});
