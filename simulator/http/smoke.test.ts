import { describe, expect, it } from 'vitest';
import { expectConformingResponses, makeHarness, newKey } from '../testing.ts';

describe('simulator smoke', () => {
  it('answers GET /me and creates a booking', async () => {
    const h = makeHarness();
    const me = await h.api('get', '/me');
    expect(me.status).toBe(200);
    const res = await h.api('post', '/bookings').set('Idempotency-Key', newKey()).send(h.bookingBody());
    expect(res.status, res.text).toBe(201);
    const none = await h.api('get', '/me', null);
    expect(none.status).toBe(401);
    expectConformingResponses(h);
  });
});
