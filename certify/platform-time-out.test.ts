import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { httpTransport } from '../simulator/webhooks/transport.ts';
import { platformTimedOut } from './platform-time-out.ts';
import { deliver } from './probes.ts';

describe('platformTimedOut: the simulator\'s own words for a delivery it gave up waiting for', () => {
  const silent: Server = createServer(() => undefined);
  afterAll(() => {
    silent.closeAllConnections();
    silent.close();
  });

  it('reads the transport\'s time-out as one, and a refused or cut connection as none', async () => {
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const { port } = silent.address() as AddressInfo;
    const late = await httpTransport.post(`http://127.0.0.1:${port}/hook`, {}, '{}', 50);
    expect('error' in late && platformTimedOut(late.error), JSON.stringify(late)).toBe(true);
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const free = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, 'close');
    const refused = await httpTransport.post(`http://127.0.0.1:${free}/hook`, {}, '{}', 60_000);
    expect('error' in refused && !platformTimedOut(refused.error), JSON.stringify(refused)).toBe(true);
  });

  it('marks a crafted probe that ran out of its time-out as timed out, and a refused one as not', async () => {
    if (!silent.listening) {
      silent.listen(0, '127.0.0.1');
      await once(silent, 'listening');
    }
    const ctx = (port: number, timeoutMs: number) => ({ url: `http://127.0.0.1:${port}/hook`, slug: 's', now: () => 0, stamp: () => '1970-01-01T00:00:00Z', timeoutMs });
    const late = await deliver(ctx((silent.address() as AddressInfo).port, 50), { name: 'valid-ping', body: '{}', signature: null, integrationHeader: 's' });
    expect([late.status, late.timedOut], JSON.stringify(late)).toEqual([null, true]);
    const refused = await deliver(ctx(1, 60_000), { name: 'valid-ping', body: '{}', signature: null, integrationHeader: 's' });
    expect([refused.status, refused.timedOut], JSON.stringify(refused)).toEqual([null, undefined]);
  });

  it('reads the delivery worker\'s mark for an attempt the clock moved past as one', () => {
    expect(platformTimedOut('timed out')).toBe(true);
    expect(platformTimedOut('socket hang up')).toBe(false);
  });
});
