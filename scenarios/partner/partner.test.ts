/** The reference partner end to end against the in-process simulator: what its webhook accepts, and what survives a restart. */
import { afterEach, describe, expect, it } from 'vitest';
import { SimWorld } from '../kit/world.ts';
import { CredentialVault, type Breakages } from './config.ts';
import { ReferencePartner, WRITE_BEHIND_QUIET_MS } from './partner.ts';
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

async function start(store = new MemoryStateStore(), options: { breakages?: Partial<Breakages>; sleep?: (ms: number) => Promise<void>; fetch?: typeof fetch } = {}): Promise<{ w: SimWorld; p: ReferencePartner; store: MemoryStateStore }> {
  const w = world ?? (world = await SimWorld.open(null));
  const p = await ReferencePartner.start({
    baseUrl: w.baseUrl, slug: w.slug, credentials: new CredentialVault(w.apiKey, [w.webhookSecret]), clock: { now: () => w.now() },
    sleep: options.sleep ?? (async () => {}), store, horizonDays: 30, receiver: { port: partner?.port ?? 0 }, breakages: options.breakages, fetch: options.fetch,
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

  it('§6.2, §6.8: a delivery past cursor + 1 (the events before it were withheld) is applied, the cursor stays, and a replay from the cursor fills the gap', async () => {
    const { w, p } = await start();
    const sea = w.properties[0]!;
    // Three changes wait undelivered (no webhook URL yet); the newest alone reaches the partner.
    for (const [i, day] of ['2026-09-20', '2026-09-22', '2026-09-24'].entries()) await w.staff.setRates(sea.doorloom_id, 'SEA-VIEW', day, day, { base_rate: 7200 + i });
    const page = await (await fetch(`${w.baseUrl}/events?limit=10`, { headers: { Authorization: `Bearer ${w.apiKey}` } })).json() as { data: { sequence: number; event: unknown }[] };
    const newest = page.data.at(-1)!;
    expect(newest.sequence).toBe(3);
    const body = JSON.stringify(newest.event);
    const status = await post(p.url, body, { 'X-Service-Integration': w.slug, 'X-Service-Signature': signatureHeaderFor([w.webhookSecret], Math.floor(w.now() / 1000), body) });
    expect(status).toBe(200);
    for (let i = 0; i < 30_000 && p.state.cursor !== 3; i++) await new Promise((r) => setTimeout(r, 20));
    expect(p.state.cursor).toBe(3);
    expect(p.state.properties[String(sea.doorloom_id)]!.nights.rates['2026-09-20']).toMatchObject({ sequence: 1, value: { base_rate: 7200 } });
    expect(p.state.properties[String(sea.doorloom_id)]!.nights.rates['2026-09-22']).toMatchObject({ sequence: 2, value: { base_rate: 7201 } });
  });

  it('breakage ackBeforeStore: the 2xx leaves while the event is only in memory; the cursor on disk is already past it, so a crash loses it', async () => {
    // The write-behind batch waits on this sleep: held until the test lets it go, it is the crash window.
    const held: Array<() => void> = [];
    const { w, p, store } = await start(new MemoryStateStore(), { breakages: { ackBeforeStore: true }, sleep: (ms) => (ms === WRITE_BEHIND_QUIET_MS ? new Promise((ok) => void held.push(ok)) : Promise.resolve()) });
    for (const release of held.splice(0)) release();
    await w.staff.setWebhook(w.integrationId, p.url);
    const sea = w.properties[0]!;
    await w.staff.setRates(sea.doorloom_id, 'SEA-VIEW', '2026-09-20', '2026-09-20', { base_rate: 7100 });
    await w.deliver();
    // Acknowledged, applied in memory (what a state probe shows) ...
    expect(p.state.cursor).toBe(1);
    expect(p.state.properties[String(sea.doorloom_id)]!.nights.rates['2026-09-20']!.value.base_rate).toBe(7100);
    // ... and on disk only the cursor: a process killed now restarts past an event it never stored.
    const onDisk = (await store.load())!;
    expect(onDisk.cursor).toBe(1);
    expect(onDisk.properties[String(sea.doorloom_id)]!.nights.rates['2026-09-20']!.value.base_rate).not.toBe(7100);
    // Once quiet, the batch writes it.
    for (const release of held.splice(0)) release();
    // Waits for the write itself, not a count of turns a slow disk may outlast (the test's cap bounds it).
    while ((await store.load())!.properties[String(sea.doorloom_id)]!.nights.rates['2026-09-20']!.value.base_rate !== 7100) await new Promise((ok) => setImmediate(ok));
    expect((await store.load())!.properties[String(sea.doorloom_id)]!.nights.rates['2026-09-20']!.value.base_rate).toBe(7100);
  });

  it.each<[keyof Breakages | 'no breakage', string[], boolean]>([
    // From the stored cursor 1: a peek there, then the page with sequence 2 and 3.
    ['no breakage', ['1&1', '1&200'], true],
    ['cursorFromZeroOnRestart', ['0&1', '0&200'], true],
    // latest_sequence read, then nothing to replay from there: 2 and 3 are skipped.
    ['cursorFromNowOnRestart', ['0&1', '3&1'], false],
  ])('§6.8 restart, %s: GET /events after_sequence&limit read at start', async (breakage, reads, replayed) => {
    const { w, p, store } = await start();
    await w.staff.setWebhook(w.integrationId, p.url);
    const sea = w.properties[0]!;
    await w.staff.setRates(sea.doorloom_id, 'SEA-VIEW', '2026-09-20', '2026-09-20', { base_rate: 7100 });
    await w.deliver();
    await p.stop();
    const before = p.state.properties[String(sea.doorloom_id)]!.nights.rates['2026-09-22']!.value.base_rate;
    expect(before).not.toBe(7300);
    // While it is down: two more events, never delivered.
    await w.staff.setWebhook(w.integrationId, null);
    await w.staff.setRates(sea.doorloom_id, 'SEA-VIEW', '2026-09-21', '2026-09-21', { base_rate: 7200 });
    await w.staff.setRates(sea.doorloom_id, 'SEA-VIEW', '2026-09-22', '2026-09-22', { base_rate: 7300 });
    const calls: string[] = [];
    const recording: typeof fetch = (input, init) => {
      const url = new URL(String(input instanceof Request ? input.url : input));
      if (url.pathname.endsWith('/events')) calls.push(`${url.searchParams.get('after_sequence')}&${url.searchParams.get('limit')}`);
      return fetch(input, init);
    };
    const again = await start(store, { breakages: breakage === 'no breakage' ? {} : { [breakage]: true }, fetch: recording });
    expect(calls).toEqual(reads);
    expect(again.p.state.properties[String(sea.doorloom_id)]!.nights.rates['2026-09-22']!.value.base_rate).toBe(replayed ? 7300 : before);
  });
});
