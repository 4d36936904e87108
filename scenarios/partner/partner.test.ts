/** The reference partner end to end against the in-process simulator: what its webhook accepts, and what survives a restart. */
import { afterEach, describe, expect, it } from 'vitest';
import { SimWorld } from '../kit/world.ts';
import { CredentialVault } from './config.ts';
import { ReferencePartner } from './partner.ts';
import { signatureHeaderFor } from './signature.ts';
import { MemoryStateStore } from './state-store.ts';

let world: SimWorld | null = null;
let partner: ReferencePartner | null = null;
afterEach(async () => {
  await partner?.stop();
  await world?.close();
  partner = null;
  world = null;
});

async function start(store = new MemoryStateStore()): Promise<{ w: SimWorld; p: ReferencePartner; store: MemoryStateStore }> {
  const w = world ?? (world = await SimWorld.open(null));
  const p = await ReferencePartner.start({
    baseUrl: w.baseUrl, slug: w.slug, credentials: new CredentialVault(w.apiKey, [w.webhookSecret]), clock: { now: () => w.now() },
    sleep: async () => {}, store, horizonDays: 30, receiver: { port: partner?.port ?? 0 },
  });
  partner = p;
  return { w, p, store };
}

const post = async (url: string, body: string, headers: Record<string, string>) => (await fetch(url, { method: 'POST', body, headers })).status;

describe('ReferencePartner', () => {
  it('§6.3: refuses a delivery for another integration, by header or by payload; a ping is acknowledged and changes nothing', async () => {
    const { w, p } = await start();
    const t = Math.floor(w.now() / 1000);
    const ping = (slug: string) => JSON.stringify({ type: 'ping', version: '2026-09', occurred_at: '2026-09-15T12:00:00.000+05:30', integration: { id: 1, slug }, last_sequence: 0 });
    const signed = (body: string, slug = w.slug) => ({ 'X-Service-Integration': slug, 'X-Service-Signature': signatureHeaderFor([w.webhookSecret], t, body) });
    expect(await post(p.url, ping(w.slug), signed(ping(w.slug), 'globe-ota'))).toBe(400);
    expect(await post(p.url, ping('globe-ota'), signed(ping('globe-ota')))).toBe(400);
    expect(await post(p.url, 'not json', signed('not json'))).toBe(400);
    const before = JSON.stringify(p.state);
    expect(await post(p.url, ping(w.slug), signed(ping(w.slug)))).toBe(200);
    expect(JSON.stringify(p.state)).toBe(before);
  });

  it('cold start from snapshots, events on top, and all of it (cursor included) survives a restart', async () => {
    const { w, p, store } = await start();
    expect(p.lastCatchUp.map((s) => s.do)).toEqual(['rebuild', 'poll-bookings']);
    expect(Object.values(p.state.properties).every((c) => c.complete && Object.keys(c.nights.rates).length === 30)).toBe(true);
    await w.staff.setWebhook(w.integrationId, p.url);
    const sea = w.properties[0]!;
    await w.staff.setRates(sea.doorloom_id, 'SEA-VIEW', '2026-09-20', '2026-09-21', { base_rate: 7100 });
    await w.deliver();
    expect(p.state.cursor).toBe(1);
    expect(p.state.properties[String(sea.doorloom_id)]!.nights.rates['2026-09-20']).toMatchObject({ sequence: 1, value: { base_rate: 7100 } });

    await p.stop();
    const again = await start(store);
    expect(again.p.state.cursor).toBe(1);
    expect(again.p.lastCatchUp).toEqual([]);
    expect(again.p.state.properties[String(sea.doorloom_id)]!.nights.rates['2026-09-20']!.value.base_rate).toBe(7100);
  });
});
