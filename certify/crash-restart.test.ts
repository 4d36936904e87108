/**
 * recovery.crash-restart graded on recorded evidence (no processes): a clean
 * restart, each way of getting it wrong (an acknowledged event lost, the
 * replay from 0, from "now", an older value applied over a newer one), what
 * cannot be judged, and the drill's effect on the other requirements (the
 * deliveries that met the partner dead, GET /me as the restarted partner's
 * first call, a walk the kill cut short).
 */
import { describe, expect, it } from 'vitest';
import { CRASH_REPLAY_WAIT_MS, NEEDS_PARTNER_COMMAND, gradeCrashRestart, type CrashEvent, type CrashRestartDrill } from './crash-restart.ts';
import { emptyObservations, gradeAll, type Observations } from './grade.ts';
import type { DeliveryEvidence, JournalEntry, StateCheck } from './types.ts';

const T0 = Date.parse('2026-11-21T06:00:00Z');
let counter = 0;

function call(at: number, partial: Partial<JournalEntry>): JournalEntry {
  counter += 1;
  return {
    n: counter, integration_id: 4, at: T0 + at, operation: 'getMe', method: 'GET', path: '/api/integrations/v1/me', query: {},
    idempotency_key: null, body_fingerprint: null, status: 200, code: null, credential: 'current', retry_after: null, ...partial,
  };
}

const page = (at: number, after: number, next: number, hasMore: boolean, limit = '200') =>
  call(at, { operation: 'listEvents', path: '/api/integrations/v1/events', query: { after_sequence: String(after), limit }, cursor: { after_sequence: after, next_after_sequence: next, has_more: hasMore, first: after + 1, last: next } });
const me = (at: number) => call(at, { operation: 'getMe' });

const night = (i: number) => `2027-01-${String(10 + i).padStart(2, '0')}`;

/**
 * The drill as the run records it: everything up to 50 acknowledged before it began; 51 sets night 0 to 5010
 * and 56 to 5020 (changed twice), 52..55 nights 1..4, all acknowledged; 57..62 nights 5..10 in flight at the
 * kill (57 and 58 acknowledged); 63..66 nights 11..14 recorded while the partner was down.
 */
function events(): CrashEvent[] {
  const out: CrashEvent[] = [{ sequence: 51, date: night(0), base_rate: 5010, acknowledged: true }];
  for (let i = 1; i <= 4; i++) out.push({ sequence: 51 + i, date: night(i), base_rate: 5100 + i, acknowledged: true });
  out.push({ sequence: 56, date: night(0), base_rate: 5020, acknowledged: true });
  for (let i = 5; i <= 14; i++) out.push({ sequence: 52 + i, date: night(i), base_rate: 5100 + i, acknowledged: 52 + i <= 58 });
  return out;
}

function read(when: string, i: number, held: number | undefined): StateCheck {
  const newest = [...events()].reverse().find((e) => e.date === night(i))!;
  return { when, property_id: 101, type: 'rates', date: night(i), field: 'base_rate', expected: newest.base_rate, older: i === 0 ? 5010 : null, held };
}

/** Every night read, each holding what `held` says (its newest value unless told). */
function reads(when: string, held: (i: number, expected: number) => number | undefined = (_i, e) => e): StateCheck[] {
  return Array.from({ length: 15 }, (_, i) => {
    const r = read(when, i, undefined);
    return { ...r, held: held(i, r.expected as number) };
  });
}

function drill(over: Partial<CrashRestartDrill> = {}): CrashRestartDrill {
  return {
    propertyId: 101, floor: 50, killedAt: T0 + 10_000, acknowledged: 58, latest: 66, restartedAt: T0 + 11_000, readyAt: T0 + 14_000,
    resumedAt: T0 + 20_000, waitedMs: 3_000, events: events(),
    duringReplay: [read('before GET /events call 1 after the restart', 0, 5020), read('before GET /events call 2 after the restart', 0, 5020)],
    beforeResume: reads('after the restart, before delivery resumed'),
    final: reads('at the end of the drill'),
    ...over,
  };
}

/** A clean restart: a peek at the stored cursor 58, then one page over 59..66. */
const cleanJournal = () => [me(14_500), page(14_600, 58, 59, true, '1'), page(14_700, 58, 66, false)];

describe('recovery.crash-restart', () => {
  it('passes a restart that kept every acknowledged event and replayed from its stored cursor', () => {
    const g = gradeCrashRestart(drill(), null, cleanJournal(), [], true);
    expect(g.outcome, g.summary).toBe('pass');
    // One set of counts: the same phrase as the drill's record (crashCounts).
    expect(g.summary).toMatch(/^Killed with 8 of the drill's 16 events \(15 nights\) acknowledged \(up to sequence 58\) and 8 not \(to sequence 66\); started again, its replay started at after_sequence 58 and covered the events not acknowledged \(59 to 66\); all 7 nights whose newest event it had acknowledged were still held; the night changed twice never showed its older value/);
  });

  it('the delivery in flight at the kill may have been stored before its 2xx was lost: resuming right after it passes', () => {
    const journal = [page(14_600, 59, 60, true, '1'), page(14_700, 59, 66, false)];
    expect(gradeCrashRestart(drill({ waitedMs: CRASH_REPLAY_WAIT_MS }), null, journal, [], true).outcome).toBe('pass');
    // One further is a skip, whenever it came: its page went past 60, which it was never sent.
    expect(gradeCrashRestart(drill({ waitedMs: 3_000 }), null, [page(14_700, 60, 66, false)], [], true)).toMatchObject({ outcome: 'fail', summary: expect.stringMatching(/went past sequence 60 without reading it/) });
  });

  it('not run without --partner-command, saying so', () => {
    const g = gradeCrashRestart(null, NEEDS_PARTNER_COMMAND, [], [], true);
    expect(g.outcome).toBe('not_observed');
    expect(g.summary).toMatch(/^Not run: .*--partner-command/);
  });

  it('not observed when the partner never came back (setup, not a breach)', () => {
    expect(gradeCrashRestart(drill({ readyAt: null }), null, [], [], true)).toMatchObject({ outcome: 'not_observed', summary: expect.stringMatching(/never answered a signed ping/) });
  });

  it('fails when an acknowledged event is missing after the restart (ackBeforeStore)', () => {
    // Nights 1..4 and 5..6 were acknowledged, then lost with the process: they hold what they held before.
    const lost = (i: number, e: number) => (i >= 1 && i <= 6 ? 9000 : e);
    const g = gradeCrashRestart(drill({ beforeResume: reads('before', lost), final: reads('at the end', lost) }), null, cleanJournal(), [], true);
    expect(g.outcome).toBe('fail');
    expect(g.summary).toMatch(/^Received: 6 of 7 events it had answered 2xx before the SIGKILL are missing after the restart \(read at the end of the drill\): sequence 52 \(2027-01-11: holds base_rate 9000, not 5101\)/);
    expect(g.summary).toMatch(/ \/ Documented: .*§6\.2.*§4\.6.*§6\.8/);
  });

  it('acknowledged means stored: judged on the read before the first GET /events after the restart, whatever the replay later repairs (ackBeforeStore with a replay that fetches them again)', () => {
    // Killed with 58 acknowledged but only up to 54 stored: the restart holds the older values of nights 0 and 5, 6;
    // its replay from the stored 54 fetches them again, so at the end every night is right.
    const stale = (i: number, e: number) => (i === 0 ? 5010 : i === 5 || i === 6 ? 5000 : e);
    const journal = [page(14_600, 54, 66, false)];
    const g = gradeCrashRestart(drill({ beforeReplay: reads('before its first GET /events after the restart', stale) }), null, journal, [], true);
    expect(g.outcome, g.summary).toBe('fail');
    expect(g.summary).toMatch(/^Received: 3 of 7 events it had answered 2xx before the SIGKILL are missing after the restart \(read before its first GET \/events after the restart\): sequence 56 \(2027-01-10: holds base_rate 5010, not 5020\), sequence 57 .*; its replay fetched them again later, which repairs nothing promised/);
    expect(g.state.map((s) => s.when)).toContain('before its first GET /events after the restart');
  });

  it('a night held nothing for before the replay is lost when the partner keeps it afterwards; all held is a pass that says when', () => {
    const none = (i: number, e: number) => (i === 1 ? undefined : e);
    const lost = gradeCrashRestart(drill({ beforeReplay: reads('before its first GET /events after the restart', none) }), null, cleanJournal(), [], true);
    expect(lost.outcome).toBe('fail');
    expect(lost.summary).toMatch(/1 of 7 events .*sequence 52 \(2027-01-11: holds nothing, not 5101\)/);
    const kept = gradeCrashRestart(drill({ beforeReplay: reads('before its first GET /events after the restart') }), null, cleanJournal(), [], true);
    expect(kept.outcome, kept.summary).toBe('pass');
    expect(kept.summary).toMatch(/all 7 nights whose newest event it had acknowledged were still held before its first GET \/events after the restart/);
  });

  it('fails a replay from 0 after the restart (cursorFromZeroOnRestart), though it ends with the right state', () => {
    const journal = [page(14_600, 0, 1, true, '1'), page(14_700, 0, 40, true), page(14_800, 40, 66, false)];
    const g = gradeCrashRestart(drill(), null, journal, [], true);
    expect(g.outcome).toBe('fail');
    expect(g.summary).toMatch(/^Received: its first replay page after the restart \(call #\d+\) read from after_sequence 0, below sequence 50/);
  });

  it('fails a restart from "now" (cursorFromNowOnRestart) once it read the pause twice with no replay between; on time alone it is not observed', () => {
    // latest_sequence read by a peek from 0, then a peek at the newest sequence: nothing to replay from there.
    const journal = [page(14_600, 0, 1, true, '1'), call(14_700, { operation: 'listEvents', query: { after_sequence: '66', limit: '1' }, cursor: { after_sequence: 66, next_after_sequence: 66, has_more: false, first: null, last: null } })];
    const skipped = (i: number, e: number) => (i >= 7 ? 9000 : e);
    // GET /me at 15 s and 75 s, delivery withheld throughout (resumed at 80 s): its own loop came round without a replay.
    const looped = [...journal, me(15_000), me(75_000)];
    const g = gradeCrashRestart(drill({ resumedAt: T0 + 80_000, waitedMs: 66_000, beforeResume: reads('before', skipped) }), null, looped, [], true);
    expect(g.outcome).toBe('fail');
    expect(g.summary).toMatch(/^Received: after the restart it read GET \/events #\d+ after_sequence 0 limit 1, #\d+ after_sequence 66 limit 1 \(no replay page, only peeks\); it read GET \/me #\d+ and #\d+ while delivery was withheld \(status paused\) with no replay page between them, and no page or snapshot covered sequence 60, 61, .* \(recorded after its last acknowledgement, 58, and withheld from the webhook\): it resumed past its stored cursor/);
    // However long the wait, without those calls it is no evidence: a slow partner and a broken one look alike on the clock.
    for (const waitedMs of [5_000, CRASH_REPLAY_WAIT_MS * 4]) {
      expect(gradeCrashRestart(drill({ resumedAt: T0 + 80_000, waitedMs, beforeResume: reads('before', skipped) }), null, [...journal, me(15_000)], [], true))
        .toMatchObject({ outcome: 'not_observed', summary: expect.stringMatching(/sequence 60, 61, .* was not read: neither a replay covering it nor one going past it, nor the pause read twice by GET \/me, was seen/) });
    }
  });

  it('a cold start from snapshots covers what it did not replay (§4.8: included up to the watermark)', () => {
    const snapshot = call(14_600, { operation: 'getRatesSnapshot', path: '/api/integrations/v1/properties/101/rates', query: { from: '2026-11-21', to: '2027-03-20' }, watermark: 66 });
    const g = gradeCrashRestart(drill({ waitedMs: CRASH_REPLAY_WAIT_MS }), null, [snapshot, page(14_700, 66, 66, false, '1')], [], true);
    expect(g.outcome, g.summary).toBe('pass');
    // A snapshot of other nights covers nothing of the drill's.
    const elsewhere = { ...snapshot, query: { from: '2027-06-01', to: '2027-06-30' } };
    expect(gradeCrashRestart(drill({ waitedMs: CRASH_REPLAY_WAIT_MS }), null, [elsewhere], [], true).outcome).toBe('not_observed');
    expect(gradeCrashRestart(drill({ waitedMs: CRASH_REPLAY_WAIT_MS }), null, [elsewhere, me(15_000), me(19_000)], [], true).outcome).toBe('fail');
  });

  it('fails an older value applied over a newer one between replay pages, even when the end state is right', () => {
    const g = gradeCrashRestart(drill({ duringReplay: [read('before GET /events call 1 after the restart', 0, 5020), read('before GET /events call 2 after the restart', 0, 5010)] }), null, cleanJournal(), [], true);
    expect(g.outcome).toBe('fail');
    expect(g.summary).toMatch(/^Received: after holding base_rate 5020 for 2027-01-10 it held the older 5010 again \(before GET \/events call 2 after the restart\)/);
  });

  it('without a state probe a good replay is not a pass, and a bad one still fails', () => {
    expect(gradeCrashRestart(drill({ duringReplay: [], beforeResume: [], final: [] }), null, cleanJournal(), [], false))
      .toMatchObject({ outcome: 'not_observed', summary: expect.stringMatching(/replay started at after_sequence 58 .* not observable without a state probe/) });
    expect(gradeCrashRestart(drill({ duringReplay: [], beforeResume: [], final: [] }), null, [page(14_700, 0, 66, false)], [], false).outcome).toBe('fail');
  });

  it('without the journal (a running simulator) the replay is judged on the state: held is a pass, not yet held is not observed (its calls cannot be seen)', () => {
    expect(gradeCrashRestart(drill({ waitedMs: CRASH_REPLAY_WAIT_MS }), null, null, [], true).outcome).toBe('pass');
    const skipped = (i: number, e: number) => (i >= 7 ? 9000 : e);
    const g = gradeCrashRestart(drill({ waitedMs: CRASH_REPLAY_WAIT_MS, beforeResume: reads('before', skipped) }), null, null, [], true);
    expect(g.outcome).toBe('not_observed');
    expect(g.summary).toMatch(/did not hold 8 of the 8 events recorded after its last acknowledgement and withheld from the webhook yet/);
  });

  it('superseded sequences need no replay', () => {
    const journal = [page(14_600, 58, 63, false)];
    expect(gradeCrashRestart(drill({ waitedMs: CRASH_REPLAY_WAIT_MS }), null, journal, [64, 65, 66], true).outcome).toBe('pass');
    expect(gradeCrashRestart(drill({ waitedMs: CRASH_REPLAY_WAIT_MS }), null, journal, [], true).outcome).toBe('not_observed');
    expect(gradeCrashRestart(drill({ waitedMs: CRASH_REPLAY_WAIT_MS }), null, [me(14_500), ...journal, me(15_000), me(19_000)], [], true).outcome).toBe('fail');
  });
});

describe('the crash drill and the other requirements', () => {
  const o = (over: Partial<Observations>): Observations => ({ ...emptyObservations(), stateProbe: true, ...over });
  const grade = (id: string, over: Partial<Observations>) => gradeAll(o(over)).find((r) => r.id === id)!;
  const delivered = (sequence: number, at: number, status: number | null = 200, error?: string): DeliveryEvidence =>
    ({ source: 'platform', name: 'delivery', at: new Date(T0 + at).toISOString(), type: 'event', sequence, status, ...(error ? { error } : {}) });

  it('receiver.accepts-valid leaves out the deliveries the kill cut off or that met the partner down, not the others', () => {
    const crash = drill();
    const deliveries = [delivered(58, 9_900), delivered(59, 9_950, null, 'socket hang up'), delivered(60, 10_500, null, 'ECONNREFUSED 127.0.0.1:8787'), delivered(59, 20_100)];
    const r = grade('receiver.accepts-valid', { crash, platformDeliveries: deliveries, probes: [] });
    expect(r.outcome, r.summary).toBe('pass');
    expect(r.summary).toMatch(/2 more met the partner while the crash drill had it killed/);
    expect(grade('receiver.accepts-valid', { crash, platformDeliveries: [...deliveries, delivered(61, 21_000, null, 'ECONNREFUSED 127.0.0.1:8787')] }).outcome).toBe('fail');
    expect(grade('receiver.accepts-valid', { crash: null, platformDeliveries: deliveries }).outcome).toBe('fail');
  });

  it('usage.me-interval lets the restarted partner make GET /me its first call', () => {
    const journal = [me(-55_000), me(9_000), me(14_500), me(75_000)];
    expect(grade('usage.me-interval', { journal, crash: drill() }).outcome).toBe('pass');
    // A restart the run did not cause looks the same: once in a run it is taken as one; twice is polling too often.
    expect(grade('usage.me-interval', { journal, crash: null }).summary).toMatch(/taken as the first call of a restarted partner/);
    expect(grade('usage.me-interval', { journal: [...journal, me(80_000)], crash: null }).outcome).toBe('fail');
    expect(grade('usage.me-interval', { journal: [...journal, me(80_000)], crash: drill() }).outcome).toBe('pass');
  });

  it('usage.replay-walk: a walk the kill cut short is resumed from the stored cursor', () => {
    const journal = [page(9_000, 20, 40, true), page(14_600, 30, 66, false)];
    expect(grade('usage.replay-walk', { journal, crash: drill() }).outcome).toBe('pass');
    // Without the drill's record the same re-read is what a restart certify did not cause looks like: taken as one, once.
    const unseen = grade('usage.replay-walk', { journal, crash: null });
    expect(unseen.outcome, unseen.summary).toBe('pass');
    expect(unseen.evidence.notes.join('\n')).toMatch(/not below 20 where that walk began: taken as a restart certify did not cause/);
    expect(grade('usage.replay-walk', { journal: [...journal, page(15_000, 30, 66, false)], crash: null }).outcome).toBe('pass');
    expect(grade('usage.replay-walk', { journal: [page(9_000, 20, 40, true), page(9_500, 40, 60, true), page(14_600, 40, 66, false)], crash: null }).outcome).toBe('pass');
    // Below where the walk began (the cursor it had stored then) no restart explains, known or not; nor a second re-read.
    expect(grade('usage.replay-walk', { journal: [page(9_000, 20, 40, true), page(14_600, 0, 66, false)], crash: null }).outcome).toBe('fail');
    expect(grade('usage.replay-walk', { journal: [page(9_000, 20, 40, true), page(14_600, 30, 50, true), page(15_000, 30, 66, false)], crash: null }).outcome).toBe('fail');
  });

  it('usage.updated-since: the first poll after the restart may read again from the mark the partner had stored, not below it', () => {
    const bookings = (at: number, since: string | null, highest: string | null) =>
      call(at, { operation: 'listBookings', path: '/api/integrations/v1/bookings', query: { ...(since ? { updated_since: since } : {}), page: '1' }, max_updated_at: highest });
    const [h0, h1] = ['2026-11-21T11:00:00.000+05:30', '2026-11-21T11:05:00.000+05:30'];
    // #2 read up to h1 and was killed (at 10 s) before it stored it: the restarted partner polls from h0 again.
    const journal = [bookings(0, null, h0), bookings(6_000, h0, h1), bookings(14_000, h0, h1), bookings(40_000, h1, h1)];
    const known = grade('usage.updated-since', { journal, crash: drill() });
    expect(known.outcome, known.summary).toBe('pass');
    expect(known.evidence.notes.join('\n')).toMatch(/the first poll after the crash drill's restart, from the mark it had stored/);
    expect(grade('usage.updated-since', { journal: [bookings(0, null, h0), bookings(6_000, h0, h1), bookings(14_000, null, h1)], crash: drill() }).summary)
      .toMatch(/^Received: poll #\d+, the first after the crash drill's restart, read with no updated_since \(from the beginning\)/);
  });

  it('the verdict without --partner-command has a gap: certified-with-gaps at best', () => {
    const r = grade('recovery.crash-restart', { crashNotRun: NEEDS_PARTNER_COMMAND });
    expect(r.outcome).toBe('not_observed');
    expect(r.clauses).toEqual(expect.arrayContaining(['6.R2', '6.R8', '4.6.Q1']));
  });
});
