/** The webhook listener's HTTP behaviour, on a real loopback port. */
import { afterEach, describe, expect, it } from 'vitest';
import { startReceiver, type IncomingDelivery, type Receiver } from './receiver.ts';

let receiver: Receiver | null = null;
afterEach(async () => {
  await receiver?.close();
  receiver = null;
});

const post = (url: string, body = '{"a":1}') => fetch(url, { method: 'POST', body, headers: { 'X-Test': 'yes' } });

describe('startReceiver', () => {
  it('hands the raw body and headers of a POST on its path to the partner, and answers with its verdict', async () => {
    const got: IncomingDelivery[] = [];
    receiver = await startReceiver({ path: '/hooks' }, async (d) => {
      got.push(d);
      return { status: 202 };
    });
    const res = await post(receiver.url, '{"b":  2}');
    expect(res.status).toBe(202);
    expect(res.headers.get('connection')).toBe('close');
    expect(got[0]!.rawBody.toString()).toBe('{"b":  2}');
    expect(got[0]!.headers['x-test']).toBe('yes');
  });

  it('§3.1: a retired path answers 410 Gone; an unknown one 404; a GET 405; a handler failure 500', async () => {
    const gated: number[] = [];
    receiver = await startReceiver({ path: '/v2', retiredPaths: ['/v1'] }, async () => { throw new Error('disk full'); }, (_d, s) => void gated.push(s));
    const origin = receiver.url.replace('/v2', '');
    expect((await post(`${origin}/v1`)).status).toBe(410);
    expect((await post(`${origin}/elsewhere`)).status).toBe(404);
    expect((await fetch(receiver.url)).status).toBe(405);
    expect((await post(receiver.url)).status).toBe(500);
    expect(gated).toEqual([410]);
  });

  it('a gate in front (an outage) answers instead of the partner', async () => {
    let gate: number | null = 503;
    let handled = 0;
    receiver = await startReceiver({ gate: () => gate }, async () => {
      handled += 1;
      return { status: 200 };
    });
    expect((await post(receiver.url)).status).toBe(503);
    gate = null;
    expect((await post(receiver.url)).status).toBe(200);
    expect(handled).toBe(1);
  });

  it('listens on the port it is given (a restart keeps the registered URL)', async () => {
    receiver = await startReceiver({}, async () => ({ status: 200 }));
    const port = receiver.port;
    await receiver.close();
    receiver = await startReceiver({ port }, async () => ({ status: 200 }));
    expect(receiver.port).toBe(port);
    expect(receiver.url).toBe(`http://127.0.0.1:${port}/webhook`);
  });
});
