import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { httpTransport } from '../simulator/webhooks/transport.ts';
import { platformTimedOut } from './platform-time-out.ts';

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

  it('reads the delivery worker\'s mark for an attempt the clock moved past as one', () => {
    expect(platformTimedOut('timed out')).toBe(true);
    expect(platformTimedOut('socket hang up')).toBe(false);
  });
});
