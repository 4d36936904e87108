/** Delivery to a real HTTP receiver on loopback, with the real node:http transport. */
import { describe, expect, it } from 'vitest';
import { makeHarness, newKey } from '../testing.ts';
import { startReceiver } from './receiver.ts';

describe('loopback delivery', () => {
  it('§6.2: a real receiver gets every event once, in order, verified; a failing spell is retried without reordering', async () => {
    const h = makeHarness();
    const receiver = await startReceiver({ secrets: [h.fixtures.integrations[0]!.webhookSecret], slug: 'acme-channel', nowSeconds: () => Math.floor(h.sim.clock.now() / 1000) });
    try {
      await h.staff('put', '/integrations/1/webhook', { url: receiver.url });
      for (let day = 1; day <= 10; day++) {
        const res = await h.api('post', '/bookings').set('Idempotency-Key', newKey()).send(h.bookingBody({ check_in: `2026-10-${String(day).padStart(2, '0')}`, check_out: `2026-10-${String(day + 1).padStart(2, '0')}` }));
        expect(res.status).toBe(201);
        if (day === 4) receiver.setMode('fail');
        if (day === 6) receiver.setMode('ok');
        await h.sim.webhooks.advance(15_000);
      }
      await h.sim.webhooks.advance(60_000);
      const accepted = receiver.received.filter((d) => d.answered === 200).map((d) => d.sequence);
      expect(accepted).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(receiver.received.every((d) => d.verdict.ok && d.slugOk)).toBe(true);
      expect(receiver.received.some((d) => d.answered === 500)).toBe(true);
      const seen = receiver.received.map((d) => d.sequence!);
      // Never a higher sequence before every lower one was acknowledged.
      for (let i = 1; i < seen.length; i++) expect(seen[i]! >= seen[i - 1]!).toBe(true);
    } finally {
      await receiver.close();
    }
  });

  it('the receiver refuses a wrong signature, a stale timestamp and a wrong X-Service-Integration with 400', async () => {
    const receiver = await startReceiver({ secrets: ['whsec_right'], slug: 'acme-channel' });
    try {
      const body = '{"type":"ping"}';
      const { signatureHeader } = await import('../../protocol/signature.ts');
      const now = Math.floor(Date.now() / 1000);
      const post = (headers: Record<string, string>) => fetch(receiver.url, { method: 'POST', body, headers: { 'Content-Type': 'application/json', ...headers } }).then((r) => r.status);
      expect(await post({ 'X-Service-Integration': 'acme-channel', 'X-Service-Signature': signatureHeader(['whsec_right'], now, body) })).toBe(200);
      expect(await post({ 'X-Service-Integration': 'acme-channel', 'X-Service-Signature': signatureHeader(['whsec_wrong'], now, body) })).toBe(400);
      expect(await post({ 'X-Service-Integration': 'acme-channel', 'X-Service-Signature': signatureHeader(['whsec_right'], now - 3600, body) })).toBe(400);
      expect(await post({ 'X-Service-Integration': 'other', 'X-Service-Signature': signatureHeader(['whsec_right'], now, body) })).toBe(400);
      expect(await post({ 'X-Service-Integration': 'acme-channel' })).toBe(400);
    } finally {
      await receiver.close();
    }
  });
});
