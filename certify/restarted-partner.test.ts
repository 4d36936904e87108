/**
 * Issue 38 item 2, in-process and deterministic: the reference partner
 * (scenarios/partner/) against an in-process simulator, killed at an instant
 * defined by one of its own calls (the answer has reached it, nothing after it
 * reaches its store or the platform, as a SIGKILL leaves a process), then
 * started again on the state it had stored. It goes on from its stored
 * `updated_since` mark and its stored cursor, reading again what the killed
 * life had read but not stored: §6.9 and §6.8 as the document allows them
 * (re-reading is harmless under apply-if-newer, §6.4). The call journal of that
 * is graded with the restart as the crash drill records it, and as a restart
 * certify did not cause (which it cannot see): both pass; a partner that lost
 * its store and polls from the beginning does not. Killed with a newer rate on
 * a page it never stored, it is not held to having been shown it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dateAt } from '../protocol/calendar.ts';
import { CredentialVault, MemoryStateStore, ReferencePartner, realSleep, systemClock, type StateStore } from '../scenarios/partner/index.ts';
import type { BookingRequest } from '../scenarios/partner/bookings.ts';
import type { CrashRestartDrill } from './crash-restart.ts';
import { emptyObservations, gradeAll } from './grade.ts';
import { choose, orderBody } from './plan.ts';
import { startInProcessStage } from './stage.ts';
import type { JournalEntry, Outcome } from './types.ts';

type InProcessStage = Awaited<ReturnType<typeof startInProcessStage>>;
let stage: InProcessStage;
beforeAll(async () => {
  stage = await startInProcessStage();
});
afterAll(async () => {
  await stage?.close();
});

interface World {
  properties: Array<{ id: number; brand_id: number; ownership: string; archived: boolean; units: Array<{ active: boolean }> }>;
}

/** An integration of its own (its own journal and sequence) covering one sellable property. */
async function integration(name: string): Promise<{ id: number; slug: string; apiKey: string; secret: string; propertyId: number }> {
  const world = await stage.staff<World>('GET', '/world');
  const property = world.properties.find((p) => p.ownership === 'owned' && !p.archived && p.units.some((u) => u.active))!;
  const slug = `restart-${name}`;
  const created = await stage.staff<{ id: number; api_key: string; webhook_secret: string }>('POST', '/integrations', { brand_id: property.brand_id, name: `Restart ${name}`, slug });
  await stage.staff('PUT', `/integrations/${created.id}/coverage`, { property_ids: [property.id] });
  return { id: created.id, slug, apiKey: created.api_key, secret: created.webhook_secret, propertyId: property.id };
}

/**
 * One life of the reference partner on `store`. `killAt(url)` arms the kill:
 * the first answer to a call it matches is handed to the partner, and from
 * that instant its store takes no write and its calls never leave, so what it
 * read then is held only in a memory that is about to go.
 */
async function life(i: Awaited<ReturnType<typeof integration>>, store: StateStore) {
  let dead = false;
  let armed: ((url: string) => boolean) | null = null;
  let died: () => void = () => undefined;
  const death = new Promise<void>((ok) => void (died = ok));
  const partner = await ReferencePartner.start({
    baseUrl: stage.baseUrl,
    slug: i.slug,
    credentials: new CredentialVault(i.apiKey, [i.secret]),
    clock: systemClock,
    sleep: realSleep,
    horizonDays: 30,
    receiver: { port: 0 },
    store: { load: () => store.load(), save: (s) => (dead ? Promise.resolve() : store.save(s)) },
    fetch: (async (input: string | URL | Request, init?: RequestInit) => {
      if (dead) return new Promise<never>(() => undefined);
      const answer = await fetch(input, init);
      if (armed?.(String(input))) {
        armed = null;
        dead = true;
        died();
      }
      return answer;
    }) as typeof fetch,
  });
  return {
    partner,
    killAt(matches: (url: string) => boolean) {
      armed = matches;
    },
    /**
     * Resolves once killed, with the platform time of the kill: later than
     * the answer that killed it was journaled, and earlier than the clock
     * shows when this resolves, so that every call of the dead life is
     * journaled before the kill and every call of a life started after it
     * after (the grading splits lives by time, in milliseconds; on a fast
     * machine a restart fits in the millisecond of the kill). Waited for on
     * the platform's clock, never for a fixed while.
     */
    async killed(): Promise<number> {
      await death;
      await nextMillisecond();
      await partner.stop();
      const at = stage.now();
      await nextMillisecond();
      return at;
    },
  };
}

/** Until the platform's clock shows a later millisecond than when called. */
async function nextMillisecond(): Promise<void> {
  const now = stage.now();
  while (stage.now() <= now) await sleep(1);
}

/** The restart as the crash drill records it (certify caused it, so the grading knows it). */
function restart(killedAt: number, restartedAt: number, propertyId: number): CrashRestartDrill {
  return {
    propertyId, floor: 0, killedAt, acknowledged: 0, latest: 0, restartedAt, readyAt: restartedAt, resumedAt: restartedAt, waitedMs: 0,
    events: [], duringReplay: [], beforeResume: [], final: [],
  };
}

function grade(id: string, journal: JournalEntry[], crash: CrashRestartDrill | null): { outcome: Outcome; summary: string; notes: string[] } {
  const r = gradeAll({ ...emptyObservations(), journal, crash }).find((x) => x.id === id)!;
  return { outcome: r.outcome, summary: r.summary, notes: r.evidence.notes };
}

const polls = (journal: JournalEntry[]) => journal.filter((e) => e.operation === 'listBookings' && e.status === 200);

/** Order `n` of a run's plan, on the integration's property: a valid create body. */
function order(i: { propertyId: number; slug: string }, n: number): BookingRequest {
  return orderBody(i.slug, n, choose(38, dateAt(stage.now()), i.propertyId)) as unknown as BookingRequest;
}

describe('the reference partner killed and started again, graded', () => {
  it('killed after reading a GET /bookings page and before storing its new mark, it polls again from the mark it had stored: usage.updated-since passes, the restart known or not', async () => {
    const i = await integration('repoll');
    const store = new MemoryStateStore();
    const first = await life(i, store);
    expect((await first.partner.createBooking(order(i, 1))).status).toBe('placed');
    await first.partner.reconcileBookings();
    await sleep(5);
    expect((await first.partner.createBooking(order(i, 2))).status).toBe('placed');
    first.killAt((url) => url.includes('/bookings?'));
    await first.partner.reconcileBookings();
    const killedAt = await first.killed();

    const restartedAt = stage.now();
    const second = await life(i, store);
    await second.partner.reconcileBookings();
    await second.partner.reconcileBookings();
    await second.partner.stop();

    const journal = stage.journal(i.id)!;
    const [, stored, killed, again, after] = polls(journal);
    // The killed poll read past the mark it was made from; the restarted partner polled from that mark again, then moved on.
    expect(Date.parse(killed!.max_updated_at!)).toBeGreaterThan(Date.parse(killed!.query.updated_since as string));
    expect(killed!.query.updated_since).toBe(stored!.max_updated_at);
    expect(again!.query.updated_since).toBe(killed!.query.updated_since);
    expect(again!.at).toBeGreaterThanOrEqual(restartedAt);
    expect(after!.query.updated_since).toBe(again!.max_updated_at);

    const known = grade('usage.updated-since', journal, restart(killedAt, restartedAt, i.propertyId));
    expect(known.outcome, known.summary).toBe('pass');
    expect(known.notes.join('\n')).toMatch(new RegExp(`poll #${again!.n} read with updated_since \\S+, below \\S+ that #${killed!.n} had read up to but not below the mark #${killed!.n} was made from: the first poll after the crash drill's restart, from the mark it had stored`));
    const unseen = grade('usage.updated-since', journal, null);
    expect(unseen.outcome, unseen.summary).toBe('pass');
    expect(unseen.notes.join('\n')).toMatch(/taken as the first poll of a restart certify did not cause/);
  });

  it('started again without the state it had stored, it polls from the beginning: below the mark it had polled from, a breach even after a restart', async () => {
    const i = await integration('lost');
    const first = await life(i, new MemoryStateStore());
    // A stay of its own: the first test booked orders 1 and 2 of the same plan on the same property.
    expect((await first.partner.createBooking(order(i, 3))).status).toBe('placed');
    await first.partner.reconcileBookings();
    first.killAt((url) => url.includes('/bookings?'));
    await first.partner.reconcileBookings();
    const killedAt = await first.killed();

    // A cold start: its first poll has no updated_since.
    const restartedAt = stage.now();
    const second = await life(i, new MemoryStateStore());
    await second.partner.stop();

    const journal = stage.journal(i.id)!;
    const known = grade('usage.updated-since', journal, restart(killedAt, restartedAt, i.propertyId));
    expect(known.outcome, known.summary).toBe('fail');
    expect(known.summary).toMatch(/^Received: poll #\d+, the first after the crash drill's restart, read with no updated_since \(from the beginning\) although #\d+ before the kill was made from updated_since \S+, so that mark was stored/);
    expect(grade('usage.updated-since', journal, null).outcome).toBe('fail');
  });

  it('killed mid replay walk, after reading a page with more to come and before storing its cursor, it walks again from its stored cursor: usage.replay-walk passes, the restart known or not', async () => {
    const i = await integration('walk');
    const store = new MemoryStateStore();
    const first = await life(i, store);
    // More than a page (§4.6: at most 200) of events after its cursor.
    const night = dateAt(stage.now() + 20 * 86_400_000);
    for (let n = 0; n < 250; n++) await stage.staff('PUT', `/properties/${i.propertyId}/rates`, { from: night, to: night, base_rate: 6000 + n });
    first.killAt((url) => url.includes('/events?') && url.includes('limit=200'));
    void first.partner.catchUp();
    const killedAt = await first.killed();

    const restartedAt = stage.now();
    const second = await life(i, store);
    await second.partner.stop();

    const journal = stage.journal(i.id)!;
    const pages = journal.filter((e) => e.operation === 'listEvents' && e.cursor);
    const killed = pages.filter((e) => e.at <= killedAt).at(-1)!;
    const resumed = pages.filter((e) => e.at >= restartedAt);
    expect(killed.cursor).toMatchObject({ has_more: true });
    // It had stored the cursor the walk began at, and starts from it again: a peek, then the walk.
    expect(resumed.map((e) => [e.cursor!.after_sequence, e.query.limit])).toEqual([
      [killed.cursor!.after_sequence, '1'], [killed.cursor!.after_sequence, '200'], [killed.cursor!.next_after_sequence, '200'],
    ]);
    const known = grade('usage.replay-walk', journal, restart(killedAt, restartedAt, i.propertyId));
    expect(known.outcome, known.summary).toBe('pass');
    const unseen = grade('usage.replay-walk', journal, null);
    expect(unseen.outcome, unseen.summary).toBe('pass');
    expect(unseen.notes.join('\n')).toMatch(new RegExp(`call #${resumed[0]!.n} read from after_sequence ${killed.cursor!.after_sequence} again where #${killed.n} had handed out next_after_sequence ${killed.cursor!.next_after_sequence}, .*taken as a restart certify did not cause`));
  });

  it('killed right after the page with a newer rate was answered, it comes back holding the older rate it had stored and reads again: no regression (it never took the newer one in)', async () => {
    const i = await integration('shown');
    const store = new MemoryStateStore();
    const first = await life(i, store);
    const night = dateAt(stage.now() + 10 * 86_400_000);
    const rate = async (base_rate: number, on = night) => {
      await stage.staff('PUT', `/properties/${i.propertyId}/rates`, { from: on, to: on, base_rate });
      return (await stage.staff<{ webhook: { last_sequence: number } }>('GET', `/integrations/${i.id}`)).webhook.last_sequence;
    };
    // The older rate, read and stored while it is the newest; then the newer one, on a page the partner dies with.
    const older = await rate(7000);
    await first.partner.catchUp();
    const newer = await rate(7500);
    first.killAt((url) => url.includes('/events?') && url.includes('limit=200'));
    void first.partner.catchUp();
    await first.killed();

    // Its copy as the restarted partner has it before it sends anything: what it had stored.
    const held = (await store.load())!.properties[String(i.propertyId)]!.nights.rates[night]!.value.base_rate;
    const check = (when: string, value: unknown) => ({
      when, property_id: i.propertyId, type: 'rates' as const, date: night, field: 'base_rate', expected: 7500, older: 7000, held: value,
      at: stage.now(), afterCall: stage.journal(i.id)!.at(-1)!.n, sequence: newer, olderSequence: older,
    });
    const before = check('before its first GET /events after the restart', held);
    const second = await life(i, store);
    const after = check('after its replay', second.partner.state.properties[String(i.propertyId)]!.nights.rates[night]!.value.base_rate);
    await second.partner.stop();
    expect([before.held, after.held]).toEqual([7000, 7500]);

    const journal = stage.journal(i.id)!;
    const r = gradeAll({ ...emptyObservations(), journal, stateProbe: true, state: [before, after] }).find((x) => x.id === 'receiver.no-regression')!;
    expect(r.outcome, r.summary).toBe('pass');
    expect(r.summary).toMatch(/1 read of the older value 7000 came before the partner had been shown the newer event/);
  });
});
