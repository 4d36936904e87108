/**
 * The grading rules, table by table on hand-made journals: for each
 * requirement a pass case, a fail case and a case without evidence (or a
 * journal that cannot be read), as the house style asks of every check.
 */
import { describe, expect, it } from 'vitest';
import { NEEDS_PARTNER_COMMAND, type CrashRestartDrill } from './crash-restart.ts';
import { emptyObservations, gradeAll, verdictOf, type Observations } from './grade.ts';
import { REQUIREMENTS } from './requirements.ts';
import type { DeliveryEvidence, JournalEntry, Outcome, StateCheck } from './types.ts';

const T0 = Date.parse('2026-11-21T06:00:00Z');
let counter = 0;

function call(at: number, partial: Partial<JournalEntry>): JournalEntry {
  counter += 1;
  return {
    n: counter, integration_id: 4, at: T0 + at, operation: 'getMe', method: 'GET', path: '/api/integrations/v1/me', query: {},
    idempotency_key: null, body_fingerprint: null, status: 200, code: null, credential: 'current', retry_after: null, ...partial,
  };
}

const create = (at: number, key: string | null, fp: string | null, status = 201, code: string | null = null) =>
  call(at, { operation: 'createBooking', method: 'POST', path: '/api/integrations/v1/bookings', idempotency_key: key, body_fingerprint: fp, status, code });
const me = (at: number, status = 200) => call(at, { operation: 'getMe', status });
const events = (at: number, after: number, next: number, hasMore: boolean, limit = '100', extra: Record<string, string> = {}) =>
  call(at, { operation: 'listEvents', path: '/api/integrations/v1/events', query: { after_sequence: String(after), limit, ...extra }, cursor: { after_sequence: after, next_after_sequence: next, has_more: hasMore, first: after + 1, last: next } });
/** updated_at marks, 5 minutes apart. */
const H0 = '2026-11-21T11:00:00.000+05:30';
const H1 = '2026-11-21T11:05:00.000+05:30';
const snapshot = (at: number, watermark: number) => call(at, { operation: 'getRatesSnapshot', path: '/api/integrations/v1/properties/101/rates', watermark });
const bookings = (at: number, since: string | undefined, maxUpdated: string | null, page = '1') =>
  call(at, { operation: 'listBookings', path: '/api/integrations/v1/bookings', query: { ...(since ? { updated_since: since } : {}), page }, max_updated_at: maxUpdated });

function probe(name: string, status: number | null, sequence: number | null = 3): DeliveryEvidence {
  return { source: 'probe', name, at: new Date(T0).toISOString(), type: 'rates.changed', sequence, status };
}

function night(when: string, expected: number, held: number | undefined): StateCheck {
  return { when, property_id: 101, type: 'rates', date: '2027-03-04', field: 'base_rate', expected, older: null, held };
}

function delivered(sequence: number, at: number, status: number | null = 200): DeliveryEvidence {
  return { source: 'platform', name: 'delivery', at: new Date(T0 + at).toISOString(), type: 'event', sequence, status };
}

/**
 * The snapshot-watermark drill: snapshot #n (watermark 7) held while event 8
 * changed 2027-01-10 from 6000 to 5120; then a replay from `replayAfter`
 * (none when null) and the partner's copy of the night (not read when undefined).
 */
function heldSnapshot(replayAfter: number | null, heldRate?: number, peekFrom?: number): Partial<Observations> {
  const snap = snapshot(0, 7);
  const peek = peekFrom === undefined ? [] : [events(5, peekFrom, peekFrom + 1, false, '1')];
  const journal = [snap, snapshot(2, 8), ...peek, ...(replayAfter === null ? [] : [events(10, replayAfter, Math.max(replayAfter, 8), false)])];
  const state: StateCheck[] = heldRate === undefined ? [] : [{ when: 'after the replay', property_id: 101, type: 'rates', date: '2027-01-10', field: 'base_rate', expected: 5120, older: 6000, held: heldRate }];
  return {
    journal,
    stateProbe: heldRate !== undefined,
    snapshotWatermark: { snapshotN: snap.n, watermark: 7, propertyId: 101, window: { from: '2026-11-21', to: '2027-02-20' }, night: '2027-01-10', before: 6000, after: 5120, changeSequence: 8, state },
  };
}

function grade(id: string, o: Partial<Observations>): { outcome: Outcome; summary: string } {
  const r = gradeAll({ ...emptyObservations(), ...o }).find((x) => x.id === id)!;
  return { outcome: r.outcome, summary: r.summary };
}

/** The crash drill's record (crash-restart.test.ts has the full table): sequence 58 acknowledged before the kill, 59..60 not. */
function crashDrill(held: number): CrashRestartDrill {
  const r = (when: string): StateCheck => ({ when, property_id: 101, type: 'rates', date: '2027-01-10', field: 'base_rate', expected: 5020, older: 5010, held });
  return {
    propertyId: 101, floor: 50, killedAt: T0 + 10_000, acknowledged: 58, latest: 60, restartedAt: T0 + 11_000, readyAt: T0 + 14_000, resumedAt: T0 + 20_000, waitedMs: 3_000,
    events: [{ sequence: 58, date: '2027-01-10', base_rate: 5020, acknowledged: true }, { sequence: 60, date: '2027-01-11', base_rate: 5030, acknowledged: false }],
    duringReplay: [], beforeResume: [r('before delivery resumed')], final: [r('at the end')],
  };
}

type Case = [string, { id: string; given: Partial<Observations>; want: Outcome; says?: RegExp }];

const cases: Case[] = [
  // receiver
  ['valid deliveries all 2xx', { id: 'receiver.accepts-valid', given: { probes: [probe('valid-ping', 200, null)], platformDeliveries: [delivered(1, 0), delivered(2, 10)] }, want: 'pass' }],
  ['a platform delivery refused', { id: 'receiver.accepts-valid', given: { probes: [probe('valid-ping', 200, null)], platformDeliveries: [delivered(1, 0), delivered(2, 10, 401)] }, want: 'fail', says: /sequence 2\) answered 401/ }],
  ['a platform delivery cut off', { id: 'receiver.accepts-valid', given: { probes: [probe('valid-ping', 200, null)], platformDeliveries: [delivered(1, 0), { ...delivered(2, 10, null), error: 'socket hang up' }] }, want: 'fail', says: /socket hang up/ }],
  // The document shows no delivery time-out (§6 gaps): lateness is not a refusal, and on a loaded machine it is the machine's (issue 38).
  ['a platform delivery timed out, never delivered', { id: 'receiver.accepts-valid', given: { probes: [probe('valid-ping', 200, null)], platformDeliveries: [delivered(1, 0), { ...delivered(2, 10, null), error: 'no answer within 10000 ms', timedOut: true }] }, want: 'not_observed', says: /sequence 2\) answered no answer .*does not show/ }],
  ['a platform delivery timed out, delivered on a later attempt', { id: 'receiver.accepts-valid', given: { probes: [probe('valid-ping', 200, null)], platformDeliveries: [delivered(1, 0), { ...delivered(2, 10, null), error: 'no answer within 10000 ms', timedOut: true }, delivered(2, 70_000)] }, want: 'pass', says: /1 more got no answer within the platform's time-out/ }],
  ['a crafted probe timed out', { id: 'receiver.accepts-valid', given: { probes: [{ ...probe('valid-ping', null, null), error: 'no answer within 10000 ms', timedOut: true }], platformDeliveries: [delivered(1, 0)] }, want: 'not_observed' }],
  ['a timed-out probe beside a refusal fails', { id: 'receiver.refuses-bad-signature', given: { probes: [{ ...probe('wrong-signature', null), error: 'no answer within 10000 ms', timedOut: true }, probe('missing-signature', 200)] }, want: 'fail', says: /missing-signature/ }],
  ['no valid delivery sent', { id: 'receiver.accepts-valid', given: {}, want: 'not_observed' }],
  ['bad signatures refused', { id: 'receiver.refuses-bad-signature', given: { probes: [probe('wrong-signature', 400), probe('missing-signature', 401), probe('stale-timestamp', 403)] }, want: 'pass' }],
  ['a stale timestamp accepted', { id: 'receiver.refuses-bad-signature', given: { probes: [probe('wrong-signature', 400), probe('missing-signature', 400), probe('stale-timestamp', 200)] }, want: 'fail', says: /stale-timestamp .* answered 200/ }],
  ['refused with a 5xx is not a 4xx', { id: 'receiver.refuses-bad-signature', given: { probes: [probe('wrong-signature', 500)] }, want: 'fail' }],
  ['signature probes not sent', { id: 'receiver.refuses-bad-signature', given: { probes: [probe('redelivery', 200)] }, want: 'not_observed' }],
  ['another integration refused', { id: 'receiver.checks-integration', given: { probes: [probe('wrong-integration', 400)] }, want: 'pass' }],
  ['another integration accepted', { id: 'receiver.checks-integration', given: { probes: [probe('wrong-integration', 204)] }, want: 'fail' }],
  ['the integration probe not sent', { id: 'receiver.checks-integration', given: { probes: [probe('wrong-signature', 400)] }, want: 'not_observed' }],
  ['rotation: every delivery accepted', { id: 'receiver.rotation', given: { secretRotatedAt: T0, probes: [probe('rotation-new-old', 200), probe('rotation-old-new', 200), probe('rotation-new-only', 200)], platformDeliveries: [delivered(9, 5)] }, want: 'pass' }],
  ['rotation: only the first v1 checked', { id: 'receiver.rotation', given: { secretRotatedAt: T0, probes: [probe('rotation-new-old', 200), probe('rotation-old-new', 400), probe('rotation-new-only', 200)] }, want: 'fail', says: /rotation-old-new/ }],
  ['rotation: a platform delivery after it refused', { id: 'receiver.rotation', given: { secretRotatedAt: T0, probes: [probe('rotation-new-old', 200)], platformDeliveries: [delivered(8, -5, 400), delivered(9, 5, 400)] }, want: 'fail', says: /sequence 9/ }],
  ['rotation drill not run', { id: 'receiver.rotation', given: { probes: [probe('rotation-new-old', 200)] }, want: 'not_observed' }],
  ['raw-body deliveries accepted and applied', { id: 'receiver.raw-body-signature', given: { probes: [probe('raw-body-whitespace', 200), probe('raw-body-escapes', 204)], rawBody: [night('raw-body-whitespace', 8100, 8100)], stateProbe: true }, want: 'pass', says: /held for 1 of 1 nights/ }],
  ['raw-body deliveries accepted, no state probe', { id: 'receiver.raw-body-signature', given: { probes: [probe('raw-body-key-order', 200)] }, want: 'pass', says: /not observable without a state probe/ }],
  ['a raw-body delivery refused (HMAC over re-serialised JSON)', { id: 'receiver.raw-body-signature', given: { probes: [probe('raw-body-whitespace', 200), probe('raw-body-escapes', 400)] }, want: 'fail', says: /^Received: raw-body-escapes \(sequence 3\) answered 400/ }],
  ['a raw-body delivery acknowledged but not applied', { id: 'receiver.raw-body-signature', given: { probes: [probe('raw-body-decimal-numbers', 200)], rawBody: [night('raw-body-decimal-numbers', 9100, 6000)], stateProbe: true }, want: 'fail', says: /holds base_rate 6000 for 2027-03-04, not 9100/ }],
  ['a night outside the partner\'s window is no evidence against it', { id: 'receiver.raw-body-signature', given: { probes: [probe('raw-body-decimal-numbers', 200)], rawBody: [night('raw-body-decimal-numbers', 9100, undefined)], stateProbe: true }, want: 'pass', says: /1 not readable/ }],
  ['raw-body drill not run', { id: 'receiver.raw-body-signature', given: { probes: [probe('redelivery', 200)] }, want: 'not_observed' }],
  ["redelivery of an event the platform's log shows answered 2xx, accepted", { id: 'receiver.redelivery', given: { probes: [probe('redelivery', 200)], platformDeliveries: [delivered(3, -100)] }, want: 'pass', says: /^Sequence 3, which the platform's delivery log shows the partner answered 200 at .*, re-sent as a duplicate: answered 200\.$/ }],
  ['redelivery refused as a duplicate (500)', { id: 'receiver.redelivery', given: { probes: [probe('redelivery', 500)], platformDeliveries: [delivered(3, -100)] }, want: 'fail', says: /sequence 3, which the platform's delivery log shows the partner answered 200 .* answered 500/ }],
  ['the re-sent event was new to the partner (delivery stuck on sequence 1): not a duplicate, not observed', { id: 'receiver.redelivery', given: { probes: [probe('redelivery', 200)], platformDeliveries: [delivered(1, -300, 500), delivered(1, -200, 500)] }, want: 'not_observed', says: /had not been answered 2xx .* delivery was stuck/ }],
  ['delivery stuck: the crash drill skipped for it is said next to redelivery', { id: 'receiver.redelivery', given: { probes: [probe('redelivery', 200)], crashNotRun: 'Not run: the partner did not acknowledge the drill\'s first 1 deliveries within 8 s.', platformDeliveries: [delivered(1, -300, 500)] }, want: 'not_observed', says: /delivery was stuck\. The crash drill did not run for the same reason \(the partner did not acknowledge the drill's first 1 deliveries within 8 s\)/ }],
  ['the delivery record kept when it was re-sent (a running simulator\'s log, cut to its last 200, lost it by the end)', { id: 'receiver.redelivery', given: { probes: [probe('redelivery', 200)], duplicateOf: delivered(3, -100), platformDeliveries: [] }, want: 'pass' }],
  ['the record read before the re-send, stamped later than the probe by another clock (a running simulator\'s): a duplicate all the same', { id: 'receiver.redelivery', given: { probes: [probe('redelivery', 200)], duplicateOf: delivered(3, 40), platformDeliveries: [delivered(3, 40)] }, want: 'pass' }],
  ['a record read before the re-send that was refused (500) proves no earlier acknowledgement', { id: 'receiver.redelivery', given: { probes: [probe('redelivery', 200)], duplicateOf: delivered(3, -100, 500), platformDeliveries: [delivered(3, -100, 500)] }, want: 'not_observed' }],
  ['a record read before the re-send of another sequence proves nothing about this one', { id: 'receiver.redelivery', given: { probes: [probe('redelivery', 200)], duplicateOf: delivered(2, -100), platformDeliveries: [delivered(3, 100)] }, want: 'not_observed' }],
  ['answered 2xx only after it was re-sent: not a duplicate', { id: 'receiver.redelivery', given: { probes: [probe('redelivery', 200)], platformDeliveries: [delivered(3, 100)] }, want: 'not_observed' }],
  ['nothing delivered to re-send', { id: 'receiver.redelivery', given: {}, want: 'not_observed', says: /delivered no event/ }],
  ['no regression, probe says newest', { id: 'receiver.no-regression', given: { stateProbe: true, probes: [probe('older-event', 200)], state: [{ when: 'after', property_id: 101, type: 'rates', date: '2026-12-01', field: 'base_rate', expected: 7500, older: 7000, held: 7500 }] }, want: 'pass' }],
  ['superseded value held', { id: 'receiver.no-regression', given: { stateProbe: true, probes: [probe('older-event', 200)], state: [{ when: 'after the replay', property_id: 101, type: 'rates', date: '2026-12-01', field: 'base_rate', expected: 7500, older: 7000, held: 7000 }] }, want: 'fail', says: /holds base_rate 7000/ }],
  ['superseded value held between replay pages, repaired by the end', { id: 'receiver.no-regression', given: { stateProbe: true, probes: [probe('older-event', 200)], state: [
    { when: 'before GET /events call 2 of the outage (every page before it applied)', property_id: 101, type: 'rates', date: '2026-12-01', field: 'base_rate', expected: 7500, older: 7000, held: 7000 },
    { when: 'after the replay', property_id: 101, type: 'rates', date: '2026-12-01', field: 'base_rate', expected: 7500, older: 7000, held: 7500 },
  ] }, want: 'fail', says: /holds base_rate 7000 for 2026-12-01 before GET \/events call 2/ }],
  ['older event refused', { id: 'receiver.no-regression', given: { stateProbe: true, probes: [probe('older-event', 400)] }, want: 'fail' }],
  ['no state probe', { id: 'receiver.no-regression', given: { probes: [probe('older-event', 200)] }, want: 'not_observed', says: /state probe/ }],
  ['not caught up is no regression', { id: 'receiver.no-regression', given: { stateProbe: true, probes: [probe('older-event', 200)], state: [{ when: 'after', property_id: 101, type: 'rates', date: '2026-12-01', field: 'base_rate', expected: 7500, older: 7000, held: 6000 }] }, want: 'not_observed', says: /not caught up/ }],
  ['state probe holds nothing', { id: 'receiver.no-regression', given: { stateProbe: true, probes: [probe('older-event', 200)], state: [{ when: 'after', property_id: 101, type: 'rates', date: '2026-12-01', field: 'base_rate', expected: 7500, older: 7000, held: undefined }] }, want: 'not_observed' }],
  // usage: idempotency keys
  ['every create keyed', { id: 'usage.idempotency-key', given: { journal: [create(0, 'k-000001', 'a'), create(5, 'k-000002', 'b')] }, want: 'pass' }],
  ['a create without a key', { id: 'usage.idempotency-key', given: { journal: [create(0, 'k-000001', 'a'), create(5, null, 'b', 422, 'IDEMPOTENCY_KEY_REQUIRED')] }, want: 'fail' }],
  ['no creates', { id: 'usage.idempotency-key', given: { journal: [me(0)] }, want: 'not_observed' }],
  ['journal unreadable', { id: 'usage.idempotency-key', given: { journal: null }, want: 'not_observed', says: /in-process/ }],
  ['429 then the same key and body', { id: 'usage.retry-same-key', given: { journal: [create(0, 'k-1', null, 429, 'RATE_LIMITED'), create(2000, 'k-1', 'a')] }, want: 'pass' }],
  ['lost answer retried with the same key', { id: 'usage.retry-same-key', given: { lostAnswers: [counter + 1], journal: [create(0, 'k-1', 'a'), create(1000, 'k-1', 'a')] }, want: 'pass' }],
  ['lost answer retried under a new key', { id: 'usage.retry-same-key', given: { lostAnswers: [counter + 1], journal: [create(0, 'k-1', 'a'), create(1000, 'k-2', 'a', 200)] }, want: 'fail', says: /2 Idempotency-Keys/ }],
  ['retry changed its body', { id: 'usage.retry-same-key', given: { journal: [create(0, 'k-1', 'a', 409, 'IN_PROGRESS'), create(1000, 'k-1', 'b', 422, 'IDEMPOTENCY_KEY_REUSED')] }, want: 'fail', says: /changed the body/ }],
  ['nothing ever failed', { id: 'usage.retry-same-key', given: { journal: [create(0, 'k-1', 'a'), create(1000, 'k-2', 'b')] }, want: 'not_observed' }],
  ['keys kept apart', { id: 'usage.new-key-per-booking', given: { journal: [create(0, 'k-1', 'a'), create(1000, 'k-2', 'b')] }, want: 'pass' }],
  ['a key reused for another booking', { id: 'usage.new-key-per-booking', given: { journal: [create(0, 'k-1', 'a'), create(1000, 'k-1', 'b', 422, 'IDEMPOTENCY_KEY_REUSED')] }, want: 'fail' }],
  ['one booking only', { id: 'usage.new-key-per-booking', given: { journal: [create(0, 'k-1', 'a')] }, want: 'not_observed' }],
  // usage: polling and limits
  ['GET /me a minute apart', { id: 'usage.me-interval', given: { journal: [me(0), me(60_000), me(125_000)] }, want: 'pass' }],
  ['GET /me every second', { id: 'usage.me-interval', given: { journal: [me(0), me(1_000), me(2_000)] }, want: 'fail', says: /1\.0 s apart/ }],
  ['GET /me every 30 s', { id: 'usage.me-interval', given: { journal: [me(0), me(30_000), me(60_000), me(90_000)] }, want: 'fail', says: /30\.0 s apart/ }],
  ['one GET /me soon after another, once: a restart\'s first call', { id: 'usage.me-interval', given: { journal: [me(0), me(61_000), me(64_000), me(125_000)] }, want: 'pass', says: /taken as the first call of a restarted partner/ }],
  ['a once-a-minute timer whose calls reached a loaded platform late, then on time: not polling too often', { id: 'usage.me-interval', given: { journal: [me(0), me(60_000), me(135_000), me(180_000), me(254_000), me(300_000)] }, want: 'pass', says: /no more often than once a minute on average/ }],
  ['a 401 retried at once is not a poll', { id: 'usage.me-interval', given: { journal: [me(0, 401), me(5)] }, want: 'pass' }],
  ['GET /me never called', { id: 'usage.me-interval', given: { journal: [create(0, 'k-1', 'a')] }, want: 'not_observed' }],
  ['Retry-After waited out', { id: 'usage.retry-after', given: { journal: [call(0, { status: 429, code: 'RATE_LIMITED', retry_after: 2 }), me(2_001)] }, want: 'pass' }],
  ['Retry-After ignored', { id: 'usage.retry-after', given: { journal: [call(0, { status: 429, code: 'RATE_LIMITED', retry_after: 2 }), me(300)] }, want: 'fail', says: /0\.30 s later/ }],
  ['never rate limited', { id: 'usage.retry-after', given: { journal: [me(0)] }, want: 'not_observed' }],
  // usage: replay, snapshots, polling by updated_since
  ['replay follows next_after_sequence', { id: 'usage.replay-walk', given: { journal: [events(0, 0, 1, true, '1'), events(10, 5, 105, true), events(20, 105, 205, true), events(30, 205, 212, false)] }, want: 'pass' }],
  // Once in a run a re-read is what a restart certify did not cause looks like (it resumes from its stored cursor); twice is a breach.
  ['replay re-reads a page twice', { id: 'usage.replay-walk', given: { journal: [events(0, 5, 105, true), events(10, 5, 105, true), events(20, 5, 105, true)] }, want: 'fail', says: /^Received: call #\d+ re-read from after_sequence 5 where #\d+ handed out next_after_sequence 105, a second time \(#\d+ was taken as a restart resuming\)/ }],
  ['a walk cut short by a restart certify did not cause, resumed from its stored cursor', { id: 'usage.replay-walk', given: { journal: [events(0, 5, 105, true), events(10, 105, 205, true), events(20, 105, 205, true), events(30, 205, 212, false)] }, want: 'pass', says: /#\d+ started again from the stored cursor after a restart/ }],
  ['a re-read below where the walk began, even once', { id: 'usage.replay-walk', given: { journal: [events(0, 5, 105, true), events(10, 105, 205, true), events(20, 0, 100, true)] }, want: 'fail', says: /re-read from after_sequence 0 where #\d+ handed out next_after_sequence 205, below 5 where that walk began/ }],
  ['replay skips events', { id: 'usage.replay-walk', given: { journal: [events(0, 5, 105, true), events(10, 150, 212, false)] }, want: 'fail', says: /skipping sequence 106/ }],
  ['a jump over delivered events is no gap', { id: 'usage.replay-walk', given: { platformDeliveries: [delivered(106, 5), delivered(107, 6)], journal: [events(0, 5, 105, true), events(10, 107, 150, false)] }, want: 'pass' }],
  ['only peeks', { id: 'usage.replay-walk', given: { journal: [events(0, 0, 1, true, '1')] }, want: 'not_observed' }],
  ['replay from the watermark', { id: 'usage.snapshot-watermark', given: { journal: [snapshot(0, 7), snapshot(5, 9), events(10, 7, 20, false)] }, want: 'pass' }],
  ['replay from past the watermark', { id: 'usage.snapshot-watermark', given: { journal: [snapshot(0, 7), events(10, 12, 20, false)] }, want: 'fail', says: /skipping sequence 8/ }],
  ['replays with nothing above the watermark prove nothing', { id: 'usage.snapshot-watermark', given: { journal: [snapshot(0, 7), events(10, 7, 7, false)] }, want: 'not_observed', says: /look alike/ }],
  ['drill: the change made while the snapshot was held is replayed and held', { id: 'usage.snapshot-watermark', given: heldSnapshot(7, 5120), want: 'pass', says: /event 8 .* the replay #\d+ from after_sequence 7 read it, and its copy holds the new base_rate 5120/ }],
  ['drill: the change replayed, no state probe', { id: 'usage.snapshot-watermark', given: heldSnapshot(7), want: 'pass' }],
  ['drill: cursor set to "now" after the snapshot', { id: 'usage.snapshot-watermark', given: heldSnapshot(8, 6000), want: 'fail', says: /replay #\d+ started at after_sequence 8, skipping it; afterwards the partner still held base_rate 6000/ }],
  ['drill: cursor "now" read by a peek that held the change', { id: 'usage.snapshot-watermark', given: heldSnapshot(8, undefined, 7), want: 'fail', says: /skipping it/ }],
  ['drill: cursor "now", no state probe', { id: 'usage.snapshot-watermark', given: heldSnapshot(8), want: 'fail', says: /watermark 7.*skipping it \// }],
  ['drill: replayed, but the snapshot\'s value kept', { id: 'usage.snapshot-watermark', given: heldSnapshot(7, 6000), want: 'fail', says: /holds base_rate 6000 for 2027-01-10, the snapshot's value, not 5120/ }],
  ['drill: the change delivered before the replay skipped it is no gap', { id: 'usage.snapshot-watermark', given: { ...heldSnapshot(8, 5120), platformDeliveries: [delivered(8, 5)] }, want: 'not_observed' }],
  ['drill: no replay after the held snapshot', { id: 'usage.snapshot-watermark', given: heldSnapshot(null), want: 'not_observed', says: /sent no GET \/events covering it/ }],
  ['no snapshot', { id: 'usage.snapshot-watermark', given: { journal: [events(10, 12, 20, false)] }, want: 'not_observed' }],
  ['updated_since moves forward', { id: 'usage.updated-since', given: { journal: [bookings(0, undefined, '2026-11-21T11:00:00.000+05:30'), bookings(3000, '2026-11-21T11:00:00.000+05:30', '2026-11-21T11:05:00.000+05:30'), bookings(6000, '2026-11-21T11:05:00.000+05:30', null)] }, want: 'pass' }],
  // Never advancing goes back on every poll after one that read something new: once is taken as a restart's re-read, twice is a breach.
  ['polls from the beginning every time', { id: 'usage.updated-since', given: { journal: [bookings(0, undefined, H0), bookings(3000, undefined, H0), bookings(6000, undefined, H0)] }, want: 'fail', says: /^Received: poll #\d+ read with no updated_since \(from the beginning\) although #\d+ had read up to 2026-11-21T05:30:00\.000Z, going back a second time/ }],
  ['later pages count towards the highest read', { id: 'usage.updated-since', given: { journal: [bookings(0, undefined, H0), bookings(1, undefined, '2026-11-21T11:09:00.000+05:30', '2'), bookings(3000, '2026-11-21T11:05:00.000+05:30', null)] }, want: 'not_observed', says: /re-read from its stored mark after a restart \(1\)/ }],
  ['one poll back to the mark it was made from, once, while running: a restart certify did not cause, re-reading', { id: 'usage.updated-since', given: { journal: [bookings(0, undefined, H0), bookings(3000, H0, H1), bookings(6000, H0, H1), bookings(9000, H1, H1)] }, want: 'pass', says: /^4 polls \(2 from its timer\); each started at or after the highest updated_at read before it, but for 1 re-read from the mark it had stored, after a restart\.$/ }],
  ['back below the mark the poll before was made from: no restart explains it', { id: 'usage.updated-since', given: { journal: [bookings(0, undefined, H0), bookings(3000, H0, H1), bookings(6000, undefined, H1)] }, want: 'fail', says: /^Received: poll #\d+ read with no updated_since \(from the beginning\) although #\d+ had read up to 2026-11-21T05:35:00\.000Z \// }],
  ['one poll', { id: 'usage.updated-since', given: { journal: [bookings(0, undefined, null)] }, want: 'not_observed' }],
  ['two polls, the second the crash drill\'s restart: the timer never fired', { id: 'usage.updated-since', given: { crash: crashDrill(5020), journal: [bookings(0, undefined, '2026-11-21T11:00:00.000+05:30'), bookings(11_500, '2026-11-21T11:00:00.000+05:30', null)] }, want: 'not_observed', says: /each the first call of its kind after it started .*timer never fired/ }],
  ['the same two polls and one from the timer after the restart', { id: 'usage.updated-since', given: { crash: crashDrill(5020), journal: [bookings(0, undefined, '2026-11-21T11:00:00.000+05:30'), bookings(11_500, '2026-11-21T11:00:00.000+05:30', null), bookings(40_000, '2026-11-21T11:00:00.000+05:30', null)] }, want: 'pass', says: /3 polls \(1 from its timer\)/ }],
  // Issue 38 item 2: killed after reading a page and before storing its new mark, the partner polls again from the mark it had stored.
  ['after the crash drill\'s restart, a poll from the mark it had stored, re-reading what the killed poll read', { id: 'usage.updated-since', given: { crash: crashDrill(5020), journal: [bookings(0, undefined, H0), bookings(6000, H0, H1), bookings(11_500, H0, H1), bookings(40_000, H1, H1)] }, want: 'pass', says: /^4 polls \(2 from its timer\); .* but for 1 re-read from the mark it had stored, after a restart\.$/ }],
  ['after the crash drill\'s restart, a poll below the mark it had polled from before the kill', { id: 'usage.updated-since', given: { crash: crashDrill(5020), journal: [bookings(0, undefined, H0), bookings(6000, H0, H1), bookings(11_500, undefined, H1), bookings(40_000, H1, H1)] }, want: 'fail', says: /^Received: poll #\d+, the first after the crash drill's restart, read with no updated_since \(from the beginning\) although #\d+ before the kill was made from updated_since 2026-11-21T11:00:00\.000\+05:30, so that mark was stored/ }],
  // usage: rotation and refusals
  ['one call discovers the rotation', { id: 'usage.rotated-key', given: { keyRotatedAt: T0 + 100, journal: [me(0), call(200, { credential: 'retired', status: 401, code: 'UNAUTHENTICATED' }), create(210, 'k-9', 'z')] }, want: 'pass' }],
  ['the old key kept in use', { id: 'usage.rotated-key', given: { keyRotatedAt: T0 + 100, journal: [call(200, { credential: 'retired', status: 401 }), call(300, { credential: 'retired', status: 401 })] }, want: 'fail', says: /2 calls with the rotated-out key/ }],
  ['no call after the rotation', { id: 'usage.rotated-key', given: { keyRotatedAt: T0 + 100, journal: [me(0)] }, want: 'not_observed' }],
  ['UNAVAILABLE is final', { id: 'usage.unavailable-final', given: { unavailable: { issuedAt: T0, afterN: 0 }, journal: [create(10, 'k-5', 'e', 409, 'UNAVAILABLE')] }, want: 'pass' }],
  ['UNAVAILABLE sent again', { id: 'usage.unavailable-final', given: { unavailable: { issuedAt: T0, afterN: 0 }, journal: [create(10, 'k-5', 'e', 409, 'UNAVAILABLE'), create(1010, 'k-6', 'e', 409, 'UNAVAILABLE')] }, want: 'fail' }],
  ['the order never placed', { id: 'usage.unavailable-final', given: { unavailable: { issuedAt: T0, afterN: 1_000_000 }, journal: [] }, want: 'not_observed' }],
  // recovery
  ['the outage replayed', { id: 'recovery.outage-replay', given: { outage: { pausedAt: T0, resumedAt: T0 + 5_000, before: 9, latest: 221, propertyId: 101, waitedMs: 300 }, journal: [events(100, 9, 109, true), events(120, 109, 209, true), events(140, 209, 221, false)] }, want: 'pass' }],
  // Under load the platform's delivery lags: events written before the pause may reach the partner by its own GET /events
  // before they are pushed, so the drill's "before" sequence is below what the partner already read (seen in CI, four workers).
  ['events the partner read by GET /events just before the pause need no second read', { id: 'recovery.outage-replay', given: { outage: { pausedAt: T0 + 1_000, resumedAt: T0 + 80_000, before: 9, latest: 221, propertyId: 101, waitedMs: 75_000 }, journal: [events(500, 9, 50, false), events(2_000, 50, 221, false)] }, want: 'pass' }],
  ['a read after the outage ended covers nothing of it', { id: 'recovery.outage-replay', given: { outage: { pausedAt: T0 + 1_000, resumedAt: T0 + 80_000, before: 9, latest: 221, propertyId: 101, waitedMs: 75_000 }, journal: [events(2_000, 50, 221, false), events(81_000, 9, 50, false)] }, want: 'fail', says: /sequence 10/ }],
  ['replayed only part, given long enough', { id: 'recovery.outage-replay', given: { outage: { pausedAt: T0, resumedAt: T0 + 80_000, before: 9, latest: 221, propertyId: 101, waitedMs: 75_000 }, journal: [events(100, 221, 221, false)] }, want: 'fail', says: /sequence 10/ }],
  ['crash: restarted at its cursor, nothing lost', { id: 'recovery.crash-restart', given: { stateProbe: true, crash: crashDrill(5020), journal: [events(14_700, 58, 60, false)] }, want: 'pass' }],
  ['crash: an acknowledged event lost', { id: 'recovery.crash-restart', given: { stateProbe: true, crash: crashDrill(4000), journal: [events(14_700, 58, 60, false)] }, want: 'fail', says: /answered 2xx before the SIGKILL are missing/ }],
  ['crash: no --partner-command', { id: 'recovery.crash-restart', given: { crashNotRun: NEEDS_PARTNER_COMMAND }, want: 'not_observed', says: /--partner-command/ }],
  ['no replay, but too short a wait to tell', { id: 'recovery.outage-replay', given: { outage: { pausedAt: T0, resumedAt: T0 + 5_000, before: 9, latest: 221, propertyId: 101, waitedMs: 5_000 }, journal: [] }, want: 'not_observed', says: /--duration/ }],
  // Issue 38: how long a partner takes is its machine's business; only what it read can breach §6.8.
  ['no replay however long the wait: not observed, never failed on time alone', { id: 'recovery.outage-replay', given: { outage: { pausedAt: T0, resumedAt: T0 + 200_000, before: 9, latest: 221, propertyId: 101, waitedMs: 190_000 }, journal: [] }, want: 'not_observed', says: /made no GET \/events/ }],
  ['the pause read twice by GET /me with no replay between: a breach by its own calls, whatever the wait', { id: 'recovery.outage-replay', given: { outage: { pausedAt: T0, resumedAt: T0 + 200_000, before: 9, latest: 221, propertyId: 101, waitedMs: 3_000 }, journal: [me(1_000), events(1_500, 0, 1, true, '1'), me(61_000)] }, want: 'fail', says: /read GET \/me #\d+ and #\d+ \(status paused\) with no replay page between them/ }],
  ['a replay page between the two reads of the pause: not that breach', { id: 'recovery.outage-replay', given: { outage: { pausedAt: T0, resumedAt: T0 + 200_000, before: 9, latest: 221, propertyId: 101, waitedMs: 190_000 }, journal: [me(1_000), events(1_500, 0, 9, false), me(61_000)] }, want: 'not_observed' }],
  ['a replay still short of the withheld events, past none of them: not observed', { id: 'recovery.outage-replay', given: { outage: { pausedAt: T0, resumedAt: T0 + 200_000, before: 9, latest: 221, propertyId: 101, waitedMs: 190_000 }, journal: [events(100, 0, 9, true)] }, want: 'not_observed' }],
];

describe('grading', () => {
  it.each(cases)('%s', (_name, { id, given, want, says }) => {
    const got = grade(id, given);
    expect(got.outcome, got.summary).toBe(want);
    if (says) expect(got.summary).toMatch(says);
    if (want === 'fail') expect(got.summary).toMatch(/^Received: .* \/ Documented: /);
  });

  it('has a pass, a fail and a no-evidence case for every requirement', () => {
    for (const r of REQUIREMENTS) {
      const outcomes = new Set(cases.filter(([, c]) => c.id === r.id).map(([, c]) => c.want));
      expect([...outcomes].sort(), r.id).toEqual(['fail', 'not_observed', 'pass']);
    }
  });

  it('the verdict: any fail is not certified; not observed leaves gaps', () => {
    const all = gradeAll(emptyObservations());
    expect(verdictOf(all)).toBe('certified-with-gaps');
    expect(verdictOf(all.map((r) => ({ ...r, outcome: 'pass' as const })))).toBe('certified');
    expect(verdictOf(all.map((r, i) => ({ ...r, outcome: i === 3 ? 'fail' as const : 'pass' as const })))).toBe('not-certified');
  });
});
