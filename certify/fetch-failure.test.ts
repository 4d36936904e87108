/**
 * A receiver that is down is named by its cause (ECONNREFUSED and the
 * address), never by undici's bare "fetch failed".
 */
import { describe, expect, it } from 'vitest';
import { describeFetchFailure } from './fetch-failure.ts';
import { freePort } from './test-support.ts';

describe('describeFetchFailure', () => {
  it('a refused connection names the code and the address it was refused at', async () => {
    const port = await freePort();
    const error = await fetch(`http://127.0.0.1:${port}/webhook`, { method: 'POST' }).then(() => null, (e: unknown) => e);
    expect((error as Error).message).toBe('fetch failed');
    expect(describeFetchFailure(error)).toBe(`ECONNREFUSED 127.0.0.1:${port}`);
  });

  it('a time-out says how long was waited; several addresses are each named once', () => {
    expect(describeFetchFailure(Object.assign(new Error('t'), { name: 'TimeoutError' }), 2000)).toBe('no answer within 2000 ms');
    const both = new Error('fetch failed', { cause: Object.assign(new AggregateError([
      Object.assign(new Error('a'), { code: 'ECONNREFUSED', address: '::1', port: 8787 }),
      Object.assign(new Error('b'), { code: 'ECONNREFUSED', address: '127.0.0.1', port: 8787 }),
    ]), { code: 'ECONNREFUSED' }) });
    expect(describeFetchFailure(both)).toBe('ECONNREFUSED [::1]:8787; ECONNREFUSED 127.0.0.1:8787');
    expect(describeFetchFailure(new Error('plain'))).toBe('plain');
  });
});
