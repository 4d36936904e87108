/**
 * The runner's side of the control plane: the action names are the
 * contract's, and a check is not applicable naming exactly the actions a
 * deployment's control plane does not offer.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient, ExchangeLog } from './client.ts';
import { CONTROL_ACTIONS, ControlClient } from './control.ts';
import { missingReason, runConformance } from './runner.ts';
import { serveSimulator } from './served-simulator.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

/** A control plane that offers only `actions` (its other routes are never reached: those checks do not run). */
async function partialControlPlane(actions: string[]): Promise<string> {
  const server: Server = createServer((req, res) => {
    res.setHeader('Content-Type', 'application/json');
    if (req.url === '/capabilities') return res.end(JSON.stringify({ success: true, message: 'Offered.', data: { actions } }));
    res.statusCode = 501;
    res.end(JSON.stringify({ success: false, code: 'NOT_OFFERED', message: 'Not offered here.', errors: {} }));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  closers.push(() => new Promise<void>((ok) => server.close(() => ok())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('control actions', () => {
  it('are exactly the ActionName enum of spec/control-openapi.yaml', () => {
    const doc = parseYaml(readFileSync(new URL('../spec/control-openapi.yaml', import.meta.url), 'utf8')) as any;
    expect([...CONTROL_ACTIONS].sort()).toEqual([...doc.components.schemas.ActionName.enum].sort());
  });

  it('a missing capability is named with the option or control actions that grant it', () => {
    expect(missingReason(['write', 'control:clock.advance'], ['read'])).toBe('needs write (--allow-writes); control actions clock.advance (no control plane: --control-url and --control-token, spec/control-openapi.yaml)');
    expect(missingReason(['control:clock.advance', 'control:rates.set'], ['read', 'control:delivery.pause'])).toBe('needs control actions clock.advance, rates.set (not offered by the control plane)');
  });

  it('against a control plane that offers a subset, a check is not applicable naming only the actions it misses', async () => {
    const s = await serveSimulator();
    closers.push(() => s.close());
    const controlUrl = await partialControlPlane(['rates.set']);
    const report = await runConformance({ ...s.partner, controlUrl, controlToken: 'ctl_test', checks: ['sequencing.retention-30-days'] });
    expect(report.target.capabilities).toContain('control:rates.set');
    expect(report.results.map((r) => [r.id, r.outcome, r.reason])).toEqual([
      ['sequencing.retention-30-days', 'not_applicable', 'needs control actions clock.advance (not offered by the control plane)'],
    ]);
  });
});

describe('a control action the platform takes long over (issue 38)', () => {
  it('is waited for however long it takes: an answer later than fetch\'s own headers time-out is still the answer', async () => {
    // clock.advance through a month of retries on a loaded machine took longer than fetch's 300 s for the headers, and
    // the check errored. Here fetch's time-out is made 0.5 s for the test and the answer takes 1.5 s.
    const answer = (res: ServerResponse) => res.setHeader('Content-Type', 'application/json').end(JSON.stringify({ success: true, message: 'Moved.', data: { epoch_ms: 1_800_000_000_000 } }));
    const server: Server = createServer((_req, res) => void setTimeout(() => answer(res), 1_500));
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    closers.push(() => new Promise<void>((ok) => server.close(() => ok())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const key = Symbol.for('undici.globalDispatcher.1');
    const global = globalThis as unknown as Record<symbol, { constructor: new (options: object) => unknown } | undefined>;
    await fetch('http://127.0.0.1:1').catch(() => undefined);
    const before = global[key]!;
    global[key] = new before.constructor({ headersTimeout: 500 }) as never;
    try {
      await expect(fetch(`${url}/clock/advance`, { method: 'POST' })).rejects.toThrow();
      const log = new ExchangeLog();
      const control = new ControlClient({ url, token: 'ctl', actions: ['clock.advance'] }, new ApiClient({ baseUrl: url, token: 'key', secrets: [], log }), log, ['ctl']);
      await control.advanceClock(30 * 86_400);
      // The answer was read: the platform's clock is known from it.
      expect(control.clockRead).toBe(true);
    } finally {
      global[key] = before as never;
    }
  });
});
