/**
 * How a delivery leaves the simulator. Injected into the worker, so tests
 * can use nock or a fake without mocking modules (HOUSE-STYLE: Transport).
 */
import type { Outcome } from '../domain/delivery.ts';

export interface Transport {
  post(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<Outcome>;
}

/** node's fetch; a time-out or a refused connection is an outcome without a status. */
export const fetchTransport: Transport = {
  async post(url, headers, body, timeoutMs) {
    try {
      const res = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
      await res.arrayBuffer().catch(() => undefined);
      return { status: res.status };
    } catch (e) {
      const err = e as Error;
      return { error: err.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : err.message };
    }
  },
};
