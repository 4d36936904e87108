/**
 * Grading: pure functions from what a run observed to one result per
 * requirement. Nothing here does I/O or reads a clock, so every rule is
 * tested table by table (grade.test.ts) on hand-made journals.
 *
 * A failure says what was received against what the document says
 * ("Received: ... / Documented: ..."); a requirement the run gave no
 * evidence for is `not_observed`, never passed.
 */
import type { DeliveryEvidence, Evidence, JournalEntry, Outcome, RequirementResult, StateCheck } from './types.ts';
import { REQUIREMENTS, requirement } from './requirements.ts';
import { acrossCrash, cutOffByCrash, gradeCrashRestart, type CrashRestartDrill } from './crash-restart.ts';
import { regressed } from './shown.ts';
import { isWalkPage, pauseSeenWithoutReplay } from './pause-seen.ts';

/** GET /me calls closer than this are a breach of §5.7 (a minute, less clock jitter). */
export const ME_INTERVAL_MS = 60_000;
export const ME_TOLERANCE_MS = 500;
/** Retry-After is whole seconds rounded up; a call this close to its end is not early. */
export const RETRY_AFTER_TOLERANCE_MS = 100;
/** A partner that learns of a paused webhook from GET /me needs this long to notice (§5.7 once a minute, plus the replay). */
export const OUTAGE_FAIR_WAIT_MS = 65_000;
/**
 * The outage drill's cap on its wait for a replay once the gap is revealed, counted from the partner's last GET
 * /events: room for two of its minute GET /me polls and a replay on a slow machine. Running out is not observed.
 */
export const OUTAGE_REPLAY_WAIT_MS = 150_000;
/** A GET /bookings poll this soon after the partner started (the run's start, the crash drill's restart) is its start-up's, not its timer's. */
export const START_POLL_MS = 15_000;
/** Evidence lists are cut at this many journal entries. */
export const EVIDENCE_LIMIT = 24;

/** Answers of a create after which the partner must retry (with the same key and body). */
export function retryable(e: JournalEntry): boolean {
  return e.status === 429 || e.status >= 500 || (e.status === 409 && e.code === 'IN_PROGRESS');
}

export interface OutageDrill {
  /** When delivery was withheld (platform ms). */
  pausedAt: number;
  /**
   * When the drill's changes were all recorded (platform ms): a GET /events sent before it was held until then, so a
   * GET /me read meanwhile is no pause seen without a replay (absent in older evidence: pausedAt).
   */
  recordedAt?: number;
  /** When it was given back. */
  resumedAt: number;
  /** The highest sequence the partner had been sent before the outage. */
  before: number;
  /** The newest sequence recorded during the outage (revealed by one delivery). */
  latest: number;
  /** The property every outage event is about. */
  propertyId: number;
  /** How long the partner was given to replay. */
  waitedMs: number;
}

export interface UnavailableDrill {
  /** When the order for blocked nights was handed to the partner. */
  issuedAt: number;
  /** Journal entries (n) that existed before it: the order's attempt is a create after them with a new body. */
  afterN: number;
}

/**
 * The snapshot-watermark drill (§4.8): the answer of the partner's first rates
 * snapshot was held after it was built, while one night of its window
 * changed, so an event above the snapshot's watermark exists before the
 * partner can read any "now". Nothing delivers it by webhook until the
 * partner's replay after the snapshot has run.
 */
export interface SnapshotWatermarkDrill {
  /** The journal entry of the held snapshot, and the watermark (`data.sequence`) it carried. */
  snapshotN: number;
  watermark: number;
  propertyId: number;
  window: { from: string; to: string };
  /** The night changed while the answer was held (inside the window). */
  night: string;
  /** The night's base_rate in the snapshot, and the one the change set. */
  before: unknown;
  after: number;
  /** The rates event the change recorded: above the watermark, so not in the snapshot. */
  changeSequence: number;
  /** The partner's copy of the night once its replay after the snapshot had ended (expected: `after`, older: `before`). */
  state: StateCheck[];
}

export interface Observations {
  /** The partner's API calls during the run, oldest first; null when the journal cannot be read (a running simulator). */
  journal: JournalEntry[] | null;
  /** Deliveries the certifier crafted and posted straight to the partner. */
  probes: DeliveryEvidence[];
  /** The platform's own event deliveries to the partner. */
  platformDeliveries: DeliveryEvidence[];
  /** Sequences the platform superseded (never delivered, §3.3). */
  superseded: number[];
  /** Journal entries whose answer the certifier withheld on purpose (the lost-answer drill). */
  lostAnswers: number[];
  /** When the API key was rotated (platform ms), or null when the drill did not run. */
  keyRotatedAt: number | null;
  /** When the webhook secret was rotated, or null. */
  secretRotatedAt: number | null;
  outage: OutageDrill | null;
  unavailable: UnavailableDrill | null;
  /** Reads of the partner's state; empty when it exposes none. */
  state: StateCheck[];
  /** Raw-body drill: the partner's copy of each night a raw-body delivery changed (expected: the new rate). */
  rawBody: StateCheck[];
  /** Whether the partner exposes a state probe at all. */
  stateProbe: boolean;
  /** The crash-and-restart drill's record, or null when it did not run (`crashNotRun` says why). */
  crash: CrashRestartDrill | null;
  crashNotRun: string | null;
  /** The snapshot-watermark drill, or null when it did not run. */
  snapshotWatermark: SnapshotWatermarkDrill | null;
  /**
   * The platform's delivery record (answered 2xx) of the event the redelivery
   * probe re-sent, as read when it was re-sent: a running simulator's log keeps
   * only its last 200 deliveries, so the end of the run may no longer show it.
   */
  duplicateOf?: DeliveryEvidence | null;
}

export function emptyObservations(): Observations {
  return {
    journal: [], probes: [], platformDeliveries: [], superseded: [], lostAnswers: [], keyRotatedAt: null, secretRotatedAt: null,
    outage: null, unavailable: null, state: [], rawBody: [], stateProbe: false, crash: null, crashNotRun: null,
    snapshotWatermark: null, duplicateOf: null,
  };
}

/** Every requirement graded, in catalogue order. */
export function gradeAll(o: Observations, drills: Record<string, string[]> = {}): RequirementResult[] {
  return REQUIREMENTS.map((r) => ({ ...GRADERS[r.id]!(o), drills: drills[r.id] ?? [] }));
}

type Graded = Omit<RequirementResult, 'drills'>;
type Grader = (o: Observations) => Graded;

const GRADERS: Record<string, Grader> = {
  'receiver.accepts-valid': acceptsValid,
  'receiver.refuses-bad-signature': refusesBadSignature,
  'receiver.raw-body-signature': rawBodySignature,
  'receiver.checks-integration': checksIntegration,
  'receiver.rotation': rotation,
  'receiver.redelivery': redelivery,
  'receiver.no-regression': noRegression,
  'usage.idempotency-key': idempotencyKey,
  'usage.retry-same-key': retrySameKey,
  'usage.new-key-per-booking': newKeyPerBooking,
  'usage.me-interval': meInterval,
  'usage.retry-after': retryAfter,
  'usage.replay-walk': replayWalk,
  'usage.snapshot-watermark': snapshotWatermark,
  'usage.updated-since': updatedSince,
  'usage.rotated-key': rotatedKey,
  'usage.unavailable-final': unavailableFinal,
  'recovery.outage-replay': outageReplay,
  'recovery.crash-restart': crashRestart,
};

// ------------------------------------------------------------ helpers

function result(id: string, outcome: Outcome, summary: string, evidence: Partial<Evidence> = {}): Graded {
  const calls = evidence.calls ?? [];
  return {
    ...requirement(id),
    outcome,
    summary,
    evidence: {
      calls: calls.slice(0, EVIDENCE_LIMIT),
      deliveries: evidence.deliveries ?? [],
      state: evidence.state ?? [],
      notes: evidence.notes ?? [],
      omitted: Math.max(0, calls.length - EVIDENCE_LIMIT) + (evidence.omitted ?? 0),
    },
  };
}

const NO_JOURNAL = 'The call journal is kept inside the simulator process: run certify with its in-process simulator to grade API usage.';

function is2xx(d: DeliveryEvidence): boolean {
  return d.status !== null && d.status >= 200 && d.status < 300;
}

function is4xx(d: DeliveryEvidence): boolean {
  return d.status !== null && d.status >= 400 && d.status < 500;
}

function answered(d: DeliveryEvidence): string {
  return d.status === null ? `no answer (${d.error ?? 'none'})` : String(d.status);
}

function probes(o: Observations, ...names: string[]): DeliveryEvidence[] {
  return o.probes.filter((p) => names.includes(p.name));
}

/** Probes of `names`: fail when one was answered other than `want`, pass when all were, not observed when none was sent. */
function gradeProbes(id: string, o: Observations, names: string[], want: '2xx' | '4xx', documented: string, extra: DeliveryEvidence[] = []): Graded {
  const sent = [...probes(o, ...names), ...extra];
  if (sent.length === 0) return result(id, 'not_observed', 'The run ended before these deliveries were sent.');
  const ok = want === '2xx' ? is2xx : is4xx;
  const bad = sent.filter((d) => !ok(d));
  // Every crafted probe and every bad answer; of the platform's good deliveries, the first few.
  const good = sent.filter((d) => ok(d));
  const shown = [...bad, ...good.filter((d) => d.source === 'probe'), ...good.filter((d) => d.source === 'platform').slice(0, 10)];
  const evidence = { deliveries: shown, notes: shown.length < sent.length ? [`${sent.length - shown.length} more platform deliveries, all answered ${want}, left out.`] : [] };
  const refused = bad.filter((d) => !d.timedOut);
  const listed = (some: DeliveryEvidence[]) =>
    `${some.slice(0, 5).map((d) => `${d.name}${d.sequence !== null ? ` (sequence ${d.sequence})` : ''} answered ${answered(d)}`).join('; ')}${some.length > 5 ? ` and ${some.length - 5} more` : ''}`;
  if (refused.length > 0) return result(id, 'fail', `Received: ${listed(refused)} / Documented: ${documented}`, evidence);
  // The document shows no delivery time-out (§6 gaps): an answer that came too late for the sender is no answer
  // either way, and on a loaded machine the lateness is the machine's (issue 38).
  if (bad.length > 0) {
    return result(id, 'not_observed', `${listed(bad)}: no answer within the sender's time-out, which the document does not show (§6 gaps), so neither the answer ${want} asks for nor a refusal. A loaded machine answers late: certify again when it is quieter.`, evidence);
  }
  return result(id, 'pass', `${sent.length} deliver${sent.length === 1 ? 'y' : 'ies'} (${[...new Set(sent.map((d) => d.name))].join(', ')}), each answered ${want}.`, evidence);
}

function query(e: JournalEntry, name: string): string | undefined {
  const v = e.query[name];
  return Array.isArray(v) ? v.join(',') : v;
}

/** The filter a replay or list call reads under (pages of one walk share it). */
function filterKey(e: JournalEntry, names: string[]): string {
  return names.map((n) => `${n}=${query(e, n) ?? query(e, `${n}[]`) ?? ''}`).join('&');
}

/**
 * Sequences the partner had been given by `at`: delivered to it with a 2xx,
 * read in a replay page, or superseded (never to be delivered or applied).
 */
export function seenBy(o: Observations, at: number): (sequence: number) => boolean {
  const seen = new Set<number>(o.superseded);
  for (const d of o.platformDeliveries) if (d.sequence !== null && is2xx(d) && Date.parse(d.at) <= at) seen.add(d.sequence);
  const pages = (o.journal ?? []).filter((e) => e.operation === 'listEvents' && e.cursor && e.at <= at);
  return (s) => seen.has(s) || pages.some((e) => s > e.cursor!.after_sequence && s <= e.cursor!.next_after_sequence);
}

function missingBetween(from: number, to: number, seen: (s: number) => boolean): number[] {
  const out: number[] = [];
  for (let s = from + 1; s <= to && out.length < 20; s++) if (!seen(s)) out.push(s);
  return out;
}

// ------------------------------------------------------------ receiver

function acceptsValid(o: Observations): Graded {
  const id = 'receiver.accepts-valid';
  // Deliveries that met the partner killed by the crash drill (or were cut off by it) are the drill's, not the receiver's.
  const cutOff = cutOffByCrash(o.crash);
  const reached = o.platformDeliveries.filter((d) => !cutOff(d));
  // §6 rule 2: the platform sends an event again until it is answered 2xx. An attempt that got no answer within the
  // platform's time-out, of an event a later attempt delivered, was late, then accepted: not a refusal (issue 38).
  const acknowledged = new Set(reached.filter(is2xx).map((d) => d.sequence));
  const platform = reached.filter((d) => !(d.timedOut && d.sequence !== null && acknowledged.has(d.sequence)));
  const graded = gradeProbes(id, o, ['valid-ping', 'valid-event'], '2xx', 'a correctly signed delivery is answered 2xx (§6 rule 2)', platform);
  if (graded.outcome !== 'pass') return graded;
  const skipped = o.platformDeliveries.length - reached.length;
  const late = reached.length - platform.length;
  const notes = [
    ...(skipped > 0 ? [`${skipped} more met the partner while the crash drill had it killed`] : []),
    ...(late > 0 ? [`${late} more got no answer within the platform's time-out, and a later attempt delivered each of their events`] : []),
  ];
  return { ...graded, summary: `${probes(o, 'valid-ping', 'valid-event').length} crafted and ${platform.length} platform deliveries, every one answered 2xx${notes.length > 0 ? ` (${notes.join('; ')})` : ''}.` };
}

function refusesBadSignature(o: Observations): Graded {
  return gradeProbes('receiver.refuses-bad-signature', o, ['wrong-signature', 'missing-signature', 'stale-timestamp'], '4xx',
    'refused with a 4xx: the signature does not verify (§5.4; scheme and 5-minute tolerance per spec x-assumption)');
}

function rawBodySignature(o: Observations): Graded {
  const id = 'receiver.raw-body-signature';
  const sent = o.probes.filter((p) => p.name.startsWith('raw-body-'));
  const graded = gradeProbes(id, o, sent.map((p) => p.name), '2xx',
    'the signature is an HMAC over "<t>.<raw body>", the bytes as received (spec x-assumption); any valid JSON form of a correctly signed delivery is accepted');
  if (graded.outcome !== 'pass') return graded;
  const evidence = { deliveries: sent, state: o.rawBody };
  // A night the partner holds nothing for may lie outside the window it keeps: not evidence either way.
  const notApplied = o.rawBody.filter((s) => s.error === undefined && s.held !== undefined && s.held !== s.expected);
  if (notApplied.length > 0) {
    const r = notApplied[0]!;
    return result(id, 'fail', `Received: ${r.when} was answered 2xx, but the partner holds ${r.field} ${JSON.stringify(r.held)} for ${r.date}, not ${JSON.stringify(r.expected)} / Documented: an acknowledged event is applied: its full state replaces what is held (§6.2, §6.4)`, evidence);
  }
  const applied = o.rawBody.filter((s) => s.error === undefined && s.held === s.expected).length;
  const unread = o.rawBody.length - applied;
  return result(id, 'pass', `${sent.length} deliveries in forms JSON.stringify never writes (${sent.map((p) => p.name.slice('raw-body-'.length)).join(', ')}), each answered 2xx; ${o.stateProbe
    ? `the new rate held for ${applied} of ${o.rawBody.length} nights${unread > 0 ? ` (${unread} not readable: ${o.rawBody.find((s) => s.error)?.error ?? 'the partner holds nothing for the night'})` : ''}`
    : 'whether they were applied is not observable without a state probe (--state-url)'}.`, evidence);
}

function checksIntegration(o: Observations): Graded {
  return gradeProbes('receiver.checks-integration', o, ['wrong-integration'], '4xx', 'refused with a 4xx: X-Service-Integration names another integration (§6.3)');
}

function rotation(o: Observations): Graded {
  const id = 'receiver.rotation';
  if (o.secretRotatedAt === null) return result(id, 'not_observed', 'The secret rotation drill did not run.');
  const after = o.platformDeliveries.filter((d) => Date.parse(d.at) >= o.secretRotatedAt!);
  return gradeProbes(id, o, ['rotation-new-old', 'rotation-old-new', 'rotation-new-only'], '2xx',
    'during the 24 hours after a rotation a delivery is accepted if any v1= matches any secret (§5.4); the new secret is in the credentials file', after);
}

/**
 * §6.4 on a real duplicate: the re-sent event must be one the platform's
 * delivery log shows the partner had already answered 2xx, before it was
 * re-sent. An event new to the partner proves nothing about duplicates: not
 * observed, never passed.
 */
function redelivery(o: Observations): Graded {
  const id = 'receiver.redelivery';
  const sent = probes(o, 'redelivery');
  // The run read `duplicateOf` from the log before it posted the re-send: that order is causal. The two `at`s are
  // not comparable there: a platform in another process stamps by its clock, the probe by certify's estimate of it
  // (off by the round trip it was read in), so a re-send posted right after the answer can look earlier than it.
  const readBefore = (p: DeliveryEvidence) => (o.duplicateOf && o.duplicateOf.sequence !== null && o.duplicateOf.sequence === p.sequence && is2xx(o.duplicateOf) ? o.duplicateOf : undefined);
  const acknowledged = (p: DeliveryEvidence) => readBefore(p)
    ?? o.platformDeliveries.find((d) => d.sequence !== null && d.sequence === p.sequence && is2xx(d) && Date.parse(d.at) <= Date.parse(p.at));
  const duplicates = sent.filter((p) => acknowledged(p));
  if (duplicates.length === 0) {
    const stuck = o.platformDeliveries.filter((d) => !is2xx(d));
    const why = sent.length > 0
      ? `The re-sent event (sequence ${sent[0]!.sequence ?? '?'}) had not been answered 2xx by the partner before, per the platform's delivery log: it was new to the partner, so it shows nothing about duplicates.`
      : 'No event the platform\'s delivery log shows answered 2xx existed to re-send, so no duplicate was sent.';
    const delivery = o.platformDeliveries.length === 0
      ? ' The platform delivered no event to the partner.'
      : o.platformDeliveries.some(is2xx) ? '' : ` The platform's ${o.platformDeliveries.length} deliver${o.platformDeliveries.length === 1 ? 'y was' : 'ies were'} never answered 2xx (sequence ${stuck[0]!.sequence} answered ${answered(stuck[0]!)}): delivery was stuck.`;
    // The same stuck delivery keeps the crash drill from running: said here too, where the reader looks.
    const crash = delivery !== '' && o.crashNotRun && /acknowledge/.test(o.crashNotRun) ? ` The crash drill did not run for the same reason (${o.crashNotRun.replace(/^Not run: /, '').replace(/\.$/, '')}).` : '';
    return result(id, 'not_observed', `${why}${delivery}${crash} To show it: answer the platform's deliveries 2xx (§6.2), then the run re-sends one.`, { deliveries: [...sent, ...stuck.slice(0, 3)] });
  }
  const evidence = duplicates.flatMap((p) => [acknowledged(p)!, p]);
  const bad = duplicates.filter((p) => !is2xx(p));
  if (bad.length > 0) {
    const p = bad[0]!;
    return result(id, 'fail', `Received: sequence ${p.sequence}, which the platform's delivery log shows the partner answered ${acknowledged(p)!.status} at ${acknowledged(p)!.at}, re-sent as a duplicate and answered ${answered(p)} / Documented: re-applying a full-state event is a no-op: acknowledged with a 2xx (§6.4)`, { deliveries: evidence });
  }
  const p = duplicates[0]!;
  return result(id, 'pass', `Sequence ${p.sequence}, which the platform's delivery log shows the partner answered ${acknowledged(p)!.status} at ${acknowledged(p)!.at}, re-sent as a duplicate: answered ${p.status}.`, { deliveries: evidence, notes: ['The duplicate is an event the platform had delivered and the partner had answered 2xx (the platform\'s delivery log), not merely the newest event.'] });
}

function noRegression(o: Observations): Graded {
  const id = 'receiver.no-regression';
  const sent = probes(o, 'older-event');
  const refused = sent.filter((d) => !is2xx(d));
  // §3.3, §6.4: older than what the partner had already been shown, not merely equal to an older event's value.
  const verdicts = o.state.map((s) => ({ s, ...regressed(o, s) }));
  const regressions = verdicts.filter((v) => v.regressed);
  const deliveries = sent;
  if (refused.length > 0) {
    return result(id, 'fail', `Received: the older event (sequence ${refused[0]!.sequence}) answered ${answered(refused[0]!)} / Documented: an event older than what is held is acknowledged and dropped (§6.4)`, { deliveries, state: o.state });
  }
  if (regressions.length > 0) {
    const { s: r, why } = regressions[0]!;
    return result(id, 'fail', `Received: the partner holds ${r.field} ${JSON.stringify(r.held)} for ${r.date} ${r.when}, although ${why} / Documented: the newest value ${JSON.stringify(r.expected)}; superseded and older events must not be applied (§3.3, §6.4)`, { deliveries, state: o.state });
  }
  // Readings of the older value taken before the partner could have known better: said, never held against it.
  const early = verdicts.filter((v) => !v.regressed && v.s.error === undefined && v.s.held !== undefined && v.s.held === v.s.older && v.s.held !== v.s.expected);
  const earlyNote = early.length > 0 ? ` (${early.length} read${early.length === 1 ? '' : 's'} of the older value ${JSON.stringify(early[0]!.s.older)} came before the partner had been shown the newer event or the older one as superseded: it had rightly applied event ${early[0]!.s.olderSequence ?? '?'} while it was the newest)` : '';
  if (!o.stateProbe) {
    return result(id, 'not_observed', sent.length > 0
      ? 'The older event was acknowledged (2xx), but whether it was applied is not observable: the partner exposes no state probe (--state-url).'
      : 'Not observable: no older event was sent and the partner exposes no state probe.', { deliveries });
  }
  // Holding neither value is not a regression: the partner had not caught up yet when it was read.
  const readable = o.state.filter((s) => s.error === undefined && s.held === s.expected);
  if (readable.length === 0) {
    const why = o.state.find((s) => s.error)?.error
      ?? (o.state.some((s) => s.held !== undefined) ? `it held ${o.state.map((s) => JSON.stringify(s.held)).join(' and ')}, neither the newest nor the superseded value (not caught up)` : 'the partner holds nothing for the night checked');
    return result(id, 'not_observed', `The partner's state could not be compared: ${why}.`, { deliveries, state: o.state });
  }
  const behind = o.state.length - readable.length;
  return result(id, 'pass', `No older value over one it had been shown: ${readable.length} read${readable.length === 1 ? '' : 's'} of the partner's copy (between replay pages, after the replay with superseded rows, after the older event was re-sent) show${readable.length === 1 ? 's' : ''} the newest value${behind ? `, ${behind} show${behind === 1 ? 's' : ''} it not caught up yet` : ''}${earlyNote}.`, { deliveries, state: o.state });
}

// ------------------------------------------------------------ usage

function creates(o: Observations): JournalEntry[] {
  return (o.journal ?? []).filter((e) => e.operation === 'createBooking');
}

function idempotencyKey(o: Observations): Graded {
  const id = 'usage.idempotency-key';
  if (o.journal === null) return result(id, 'not_observed', NO_JOURNAL);
  const all = creates(o);
  if (all.length === 0) return result(id, 'not_observed', 'The partner sent no POST /bookings.');
  const bad = all.filter((e) => e.idempotency_key === null || e.code === 'IDEMPOTENCY_KEY_REQUIRED');
  if (bad.length > 0) {
    return result(id, 'fail', `Received: ${bad.length} of ${all.length} creates without a usable Idempotency-Key (call #${bad[0]!.n}: ${bad[0]!.status} ${bad[0]!.code ?? ''}) / Documented: Idempotency-Key is required, 8 to 128 characters (§4.5 rule 2)`, { calls: bad });
  }
  return result(id, 'pass', `All ${all.length} creates carried an Idempotency-Key.`, { calls: all });
}

interface KeyAnalysis {
  /** Bodies (fingerprints) sent under more than one key. */
  bodyUnderKeys: Array<{ fingerprint: string; entries: JournalEntry[] }>;
  /** A key whose first answer called for a retry, sent again with another body. */
  retryChangedBody: Array<{ key: string; entries: JournalEntry[] }>;
  /** A key whose first answer was final, sent again with another body: a new booking reusing it. */
  keyReused: Array<{ key: string; entries: JournalEntry[] }>;
  /** Creates that were retried (a body sent more than once) or answered in a way that calls for a retry. */
  retries: JournalEntry[];
  bodies: number;
}

/** Links create attempts by body fingerprint and by key (the journal holds no bodies; identical bodies are one booking). */
export function analyseKeys(all: JournalEntry[], lostAnswers: number[]): KeyAnalysis {
  const lost = new Set(lostAnswers);
  const byFingerprint = new Map<string, JournalEntry[]>();
  const byKey = new Map<string, JournalEntry[]>();
  for (const e of all) {
    if (e.body_fingerprint) byFingerprint.set(e.body_fingerprint, [...(byFingerprint.get(e.body_fingerprint) ?? []), e]);
    if (e.idempotency_key) byKey.set(e.idempotency_key, [...(byKey.get(e.idempotency_key) ?? []), e]);
  }
  const out: KeyAnalysis = { bodyUnderKeys: [], retryChangedBody: [], keyReused: [], retries: [], bodies: byFingerprint.size };
  for (const [fingerprint, entries] of byFingerprint) {
    if (new Set(entries.map((e) => e.idempotency_key)).size > 1) out.bodyUnderKeys.push({ fingerprint, entries });
    if (entries.length > 1) out.retries.push(...entries);
  }
  for (const [key, entries] of byKey) {
    // A create refused before its body was read (429, 401) has no fingerprint: it cannot differ.
    const known = entries.filter((e) => e.body_fingerprint !== null);
    const first = known[0];
    const other = known.find((e) => e.body_fingerprint !== first?.body_fingerprint);
    if (!first || !other) continue;
    // Every answer before the different body called for a retry: a retry that changed its body; else a new booking reusing the key.
    const before = entries.filter((e) => e.n < other.n);
    const needsRetry = before.every((e) => retryable(e) || lost.has(e.n) || e.status === 401);
    (needsRetry ? out.retryChangedBody : out.keyReused).push({ key, entries: [...before, other] });
  }
  for (const entries of byKey.values()) if (entries.length > 1) out.retries.push(...entries.filter((e) => !out.retries.includes(e)));
  for (const e of all) if ((retryable(e) || lost.has(e.n)) && !out.retries.includes(e)) out.retries.push(e);
  out.retries.sort((a, b) => a.n - b.n);
  return out;
}

function retrySameKey(o: Observations): Graded {
  const id = 'usage.retry-same-key';
  if (o.journal === null) return result(id, 'not_observed', NO_JOURNAL);
  const a = analyseKeys(creates(o), o.lostAnswers);
  const notes = o.lostAnswers.length > 0 ? [`The certifier withheld the answer of call${o.lostAnswers.length === 1 ? '' : 's'} #${o.lostAnswers.join(', #')} (the booking was made; the partner saw the connection drop).`] : [];
  if (a.bodyUnderKeys.length > 0) {
    const g = a.bodyUnderKeys[0]!;
    return result(id, 'fail', `Received: the same create body was sent under ${new Set(g.entries.map((e) => e.idempotency_key)).size} Idempotency-Keys (calls #${g.entries.map((e) => e.n).join(', #')}) / Documented: a retry reuses its key with the identical body, so the platform replays the original answer (§4.5 rule 1)`, { calls: g.entries, notes });
  }
  if (a.retryChangedBody.length > 0) {
    const g = a.retryChangedBody[0]!;
    return result(id, 'fail', `Received: a retry under key ${g.key} changed the body (calls #${g.entries.map((e) => e.n).join(', #')}) / Documented: the identical body, or the platform answers IDEMPOTENCY_KEY_REUSED (§4.5 rule 1)`, { calls: g.entries, notes });
  }
  const all = creates(o);
  const sameKeyAgain = (e: JournalEntry) => all.some((x) => x.n > e.n && x.idempotency_key !== null && x.idempotency_key === e.idempotency_key);
  const retried = a.retries.filter((e) => sameKeyAgain(e));
  // A refused create whose key never comes back: abandoned, or retried under a key the journal cannot link (a 429 is refused before its body is read).
  const dropped = a.retries.filter((e) => (retryable(e) || o.lostAnswers.includes(e.n)) && !sameKeyAgain(e) && e.n !== all.at(-1)?.n);
  const dropNotes = dropped.map((e) => `call #${e.n} (${e.status}${e.code ? ` ${e.code}` : ''}, key ${e.idempotency_key}) was not sent again under its key.`);
  if (retried.length === 0) {
    return result(id, 'not_observed', a.retries.length > 0
      ? `${a.retries.length} create${a.retries.length === 1 ? ' was' : 's were'} answered in a way that calls for a retry (or lost), but the partner never sent ${a.retries.length === 1 ? 'it' : 'them'} again under the same key.`
      : 'No create failed or timed out, so no retry was observed.', { calls: a.retries, notes: [...notes, ...dropNotes] });
  }
  return result(id, 'pass', `${retried.length} failed or lost create${retried.length === 1 ? ' was' : 's were'} retried, each with its key and the identical body.`, { calls: a.retries, notes: [...notes, ...dropNotes] });
}

function newKeyPerBooking(o: Observations): Graded {
  const id = 'usage.new-key-per-booking';
  if (o.journal === null) return result(id, 'not_observed', NO_JOURNAL);
  const all = creates(o);
  const a = analyseKeys(all, o.lostAnswers);
  if (a.keyReused.length > 0) {
    const g = a.keyReused[0]!;
    return result(id, 'fail', `Received: key ${g.key} was used again for another booking after a final answer (calls #${g.entries.map((e) => e.n).join(', #')}: ${g.entries.map((e) => `${e.status}${e.code ? ` ${e.code}` : ''}`).join(', ')}) / Documented: each new booking has its own key (§4.5)`, { calls: g.entries });
  }
  if (a.bodies < 2) return result(id, 'not_observed', `The partner created ${a.bodies === 0 ? 'no booking' : 'one booking'}; at least two are needed to see keys kept apart.`, { calls: all });
  return result(id, 'pass', `${a.bodies} different bookings, each under its own key.`, { calls: all });
}

function meInterval(o: Observations): Graded {
  const id = 'usage.me-interval';
  if (o.journal === null) return result(id, 'not_observed', NO_JOURNAL);
  // A call refused before it was served (401 after a rotation, 429) is not a poll.
  const polls = o.journal.filter((e) => e.operation === 'getMe' && e.status !== 401 && e.status !== 429);
  if (polls.length === 0) return result(id, 'not_observed', 'The partner never called GET /me. To show it: poll GET /me during the run, at most once a minute (§5.7).');
  const closePairs: Array<[JournalEntry, JournalEntry]> = [];
  for (let i = 1; i < polls.length; i++) {
    // §5.7 calls GET /me the first call: a partner started again after the crash drill's SIGKILL may make it at once.
    if (acrossCrash(o.crash, polls[i - 1]!, polls[i]!)) continue;
    if (polls[i]!.at - polls[i - 1]!.at < ME_INTERVAL_MS - ME_TOLERANCE_MS) closePairs.push([polls[i - 1]!, polls[i]!]);
  }
  // One close pair is what a restart the run did not cause looks like (its first call is GET /me, §5.7); polling more
  // often than once a minute shows in every minute, so twice or more.
  const restart = closePairs.length === 1 ? closePairs[0]! : null;
  // The journal stamps a call when it reaches the platform: on a loaded machine a once-a-minute timer's call can arrive
  // seconds late and the next one on time, a pair closer than a minute that the partner never made (issue 38). So a
  // close pair fails only where the partner also polled more often than once a minute over the run, one call to spare.
  const span = polls.at(-1)!.at - polls[0]!.at;
  const tooOften = polls.length - 1 > span / ME_INTERVAL_MS + 1;
  const close = restart || !tooOften ? [] : closePairs.flat();
  if (close.length > 0) {
    const gaps = [];
    for (let i = 1; i < polls.length; i++) gaps.push(polls[i]!.at - polls[i - 1]!.at);
    const shortest = Math.min(...gaps);
    return result(id, 'fail', `Received: ${polls.length} GET /me calls, the closest ${(shortest / 1000).toFixed(1)} s apart / Documented: polled no more than once a minute (§5.7)`, { calls: [...new Set(close)] });
  }
  const jittered = !restart && closePairs.length > 0
    ? ` on average over ${(span / 1000).toFixed(0)} s (${closePairs.length} pairs closer, each as a late call followed by one on time looks: never more calls than once a minute allows, one to spare)`
    : '';
  const restarted = restart ? ` (but #${restart[1].n}, ${((restart[1].at - restart[0].at) / 1000).toFixed(1)} s after #${restart[0].n}, taken as the first call of a restarted partner, §5.7; polling more often than once a minute would show more than once)` : '';
  return result(id, 'pass', polls.length === 1 ? 'One GET /me during the run.' : `${polls.length} GET /me calls, ${jittered ? `no more often than once a minute${jittered}` : 'never closer than a minute'}${restarted}.`, { calls: polls, notes: restart ? [`GET /me #${restart[1].n} came ${((restart[1].at - restart[0].at) / 1000).toFixed(1)} s after #${restart[0].n}: once in a run, the first call of a restarted partner.`] : [] });
}

function retryAfter(o: Observations): Graded {
  const id = 'usage.retry-after';
  if (o.journal === null) return result(id, 'not_observed', NO_JOURNAL);
  const limited = o.journal.filter((e) => e.status === 429 && e.retry_after !== null);
  if (limited.length === 0) return result(id, 'not_observed', 'The partner was never answered 429 with a Retry-After.');
  const early: Array<{ refusal: JournalEntry; call: JournalEntry }> = [];
  for (const r of limited) {
    const until = r.at + r.retry_after! * 1000 - RETRY_AFTER_TOLERANCE_MS;
    const call = o.journal.find((e) => e.n > r.n && e.at < until);
    if (call) early.push({ refusal: r, call });
  }
  if (early.length > 0) {
    const { refusal, call } = early[0]!;
    return result(id, 'fail', `Received: after 429 (call #${refusal.n}, Retry-After ${refusal.retry_after} s) the next call #${call.n} came ${((call.at - refusal.at) / 1000).toFixed(2)} s later; ${early.length} of ${limited.length} refusals were not waited out / Documented: no call before Retry-After has passed (§7)`, { calls: early.flatMap((x) => [x.refusal, x.call]) });
  }
  const around = o.journal.filter((e) => limited.some((r) => e.n >= r.n && e.n <= r.n + 1));
  return result(id, 'pass', `${limited.length} refusal${limited.length === 1 ? '' : 's'} with Retry-After, each waited out before the next call.`, { calls: around });
}

/**
 * §4.6: while has_more, the next page is read with after_sequence =
 * next_after_sequence. A walk a restart cut short is not continued: the
 * partner starts again from its stored cursor (§6.8); after the crash drill's
 * restart, recovery.crash-restart judges where. A restart certify did not
 * cause cannot be seen (see updatedSince): once in a run, a page read again
 * from no lower than where its walk began (the cursor it had stored then) is
 * taken as such a restart resuming; a second re-read, or one below where the
 * walk began, is a breach.
 */
function replayWalk(o: Observations): Graded {
  const id = 'usage.replay-walk';
  if (o.journal === null) return result(id, 'not_observed', NO_JOURNAL);
  const pages = o.journal.filter((e) => e.operation === 'listEvents' && e.cursor && e.status === 200);
  // A page of one is how partners read latest_sequence (a peek), not a walk.
  const walks = pages.filter((e) => query(e, 'limit') !== '1');
  if (walks.length === 0) return result(id, 'not_observed', 'The partner read no replay page (GET /events with more than one row). To show it: replay from the cursor when a gap or a paused webhook is noticed (the outage drill gives both), within the run (§4.6, §6.8).');
  const problems: string[] = [];
  const notes: string[] = [];
  const involved: JournalEntry[] = [];
  const last = new Map<string, JournalEntry>();
  /** Per filter, the after_sequence the walk under way began at: the cursor the partner had stored then (§6.8). */
  const began = new Map<string, number>();
  let continued = 0;
  /** The one re-read taken as a restart certify did not cause. */
  let unseen: JournalEntry | null = null;
  for (const e of pages) {
    const key = filterKey(e, ['property_id', 'types']);
    const prev = last.get(key);
    last.set(key, e);
    // A walk the crash drill's SIGKILL cut short is resumed from the stored cursor, not from the page it never finished.
    if (!prev || !prev.cursor!.has_more || query(prev, 'limit') === '1' || acrossCrash(o.crash, prev, e)) {
      began.set(key, e.cursor!.after_sequence);
      continue;
    }
    const next = prev.cursor!.next_after_sequence;
    const after = e.cursor!.after_sequence;
    const start = began.get(key)!;
    if (after < next && after >= start && unseen === null) {
      unseen = e;
      began.set(key, after);
      notes.push(`call #${e.n} read from after_sequence ${after} again where #${prev.n} had handed out next_after_sequence ${next}, not below ${start} where that walk began: taken as a restart certify did not cause (a crash and its supervisor, a deploy; certify sees only the restarts it causes), resuming from its stored cursor (§6.8; reading again is harmless, §6.4). Once in a run: a second re-read is a breach.`);
      involved.push(prev, e);
      continue;
    }
    continued += 1;
    if (after < next) {
      const why = after < start ? `, below ${start} where that walk began` : unseen ? `, a second time (#${unseen.n} was taken as a restart resuming)` : '';
      problems.push(`call #${e.n} re-read from after_sequence ${after} where #${prev.n} handed out next_after_sequence ${next}${why}`);
      involved.push(prev, e);
    } else if (after > next) {
      const missing = missingBetween(next, after, seenBy(o, e.at));
      if (missing.length > 0) {
        problems.push(`call #${e.n} jumped to after_sequence ${after} past next_after_sequence ${next} of #${prev.n}, skipping sequence ${missing.join(', ')}`);
        involved.push(prev, e);
      }
    }
  }
  if (problems.length > 0) {
    return result(id, 'fail', `Received: ${problems[0]}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''} / Documented: while has_more, read the next page with after_sequence = next_after_sequence (§4.6)`, { calls: involved, notes: [...problems, ...notes] });
  }
  const restarted = unseen ? `; #${unseen.n} started again from the stored cursor after a restart` : '';
  return result(id, 'pass', continued > 0
    ? `${walks.length} replay pages; each of ${continued} continuation${continued === 1 ? '' : 's'} started at the previous next_after_sequence${restarted}.`
    : `${walks.length} replay page${walks.length === 1 ? '' : 's'}, each walk ended on has_more false (no continuation needed)${restarted}.`, { calls: walks, notes });
}

/** A replay page: GET /events answered 200 with more than one row asked for (a page of one is a peek at latest_sequence). */

function covers(e: JournalEntry, sequence: number): boolean {
  return sequence > e.cursor!.after_sequence && sequence <= e.cursor!.next_after_sequence;
}

const WATERMARK_DOCUMENTED = 'after a snapshot the cursor for its property and type is its data.sequence; events above it are not in the snapshot and are applied on top (§4.8)';

/**
 * §4.8 on the drill: the change made while the snapshot's answer was held is
 * above its watermark, so the replay after the snapshot must read it and the
 * partner's copy must end with it. A partner that set its cursor to "now"
 * (latest_sequence read after the snapshot) starts its replay past it, and
 * holds the snapshot's value.
 */
function watermarkDrill(o: Observations, d: SnapshotWatermarkDrill): { problem: string | null; proof: string | null; calls: JournalEntry[]; note: string } {
  const journal = o.journal ?? [];
  const held = journal.filter((e) => e.n === d.snapshotN);
  const replays = journal.filter((e) => e.n > d.snapshotN && isWalkPage(e));
  const first = replays[0];
  const change = `event ${d.changeSequence} (base_rate ${JSON.stringify(d.before)} → ${d.after} for ${d.night}, property ${d.propertyId}) was recorded while the answer of snapshot #${d.snapshotN} (watermark ${d.watermark}) was held`;
  const regressed = d.state.find((s) => s.error === undefined && s.held !== undefined && s.held === s.older);
  const applied = d.state.find((s) => s.error === undefined && s.held === s.expected);
  // Given before that replay: acknowledged by webhook, or read in a replay page. Not a peek (a page of one, how
  // latest_sequence is read): right after a snapshot at watermark W a peek from W holds the change itself, and a partner
  // reading "now" from it is the breach, whatever row came with it.
  const given = (at: number) => o.platformDeliveries.some((x) => x.sequence === d.changeSequence && is2xx(x) && Date.parse(x.at) <= at)
    || journal.some((e) => e.at <= at && isWalkPage(e) && covers(e, d.changeSequence));
  if (first && first.cursor!.after_sequence >= d.changeSequence && !given(first.at)) {
    const state = regressed ? `; afterwards the partner still held base_rate ${JSON.stringify(regressed.held)}` : '';
    return { problem: `${change}; the partner's next replay #${first.n} started at after_sequence ${first.cursor!.after_sequence}, skipping it${state}`, proof: null, calls: [...held, first], note: change };
  }
  if (regressed) {
    return { problem: `${change}; after its replay the partner holds base_rate ${JSON.stringify(regressed.held)} for ${d.night}, the snapshot's value, not ${d.after}`, proof: null, calls: [...held, ...replays.slice(0, 3)], note: change };
  }
  const covering = replays.find((e) => covers(e, d.changeSequence));
  if (!covering) {
    return { problem: null, proof: null, calls: held, note: `${change}; the partner sent no GET /events covering it afterwards (${replays.length} replay page${replays.length === 1 ? '' : 's'} after the snapshot)` };
  }
  const confirmed = applied ? `, and its copy holds the new base_rate ${d.after}` : o.stateProbe ? ' (its copy of the night could not be confirmed)' : '';
  return { problem: null, proof: `${change}; the replay #${covering.n} from after_sequence ${covering.cursor!.after_sequence} read it${confirmed}`, calls: [...held, covering], note: change };
}

function snapshotWatermark(o: Observations): Graded {
  const id = 'usage.snapshot-watermark';
  if (o.journal === null) return result(id, 'not_observed', NO_JOURNAL);
  const problems: string[] = [];
  const proofs: string[] = [];
  const notes: string[] = [];
  const involved: JournalEntry[] = [];
  const drill = o.snapshotWatermark;
  if (drill) {
    const r = watermarkDrill(o, drill);
    if (r.problem) problems.push(r.problem);
    if (r.proof) proofs.push(r.proof);
    if (!r.problem && !r.proof) notes.push(r.note);
    involved.push(...r.calls);
  }
  // Every other snapshot followed by a replay: the replay starts at or below the lowest watermark, or skips only events already given.
  let judged = 0;
  let batch: JournalEntry[] = [];
  for (const e of o.journal) {
    if (e.operation.endsWith('Snapshot') && e.status === 200 && typeof e.watermark === 'number') {
      batch.push(e);
      continue;
    }
    if (!isWalkPage(e) || batch.length === 0) continue;
    const lowest = Math.min(...batch.map((s) => s.watermark!));
    const after = e.cursor!.after_sequence;
    const from = batch.find((s) => s.watermark === lowest)!;
    judged += 1;
    if (after > lowest) {
      const missing = missingBetween(lowest, after, seenBy(o, e.at));
      if (missing.length > 0 && !(drill && batch.some((s) => s.n === drill.snapshotN) && problems.length > 0)) {
        problems.push(`after snapshots with watermark ${lowest} (call #${from.n}) the replay #${e.n} started at after_sequence ${after}, skipping sequence ${missing.join(', ')}`);
        involved.push(...batch, e);
      }
    } else if (e.cursor!.last !== null && e.cursor!.last > lowest) {
      // Only a replay that read events above the watermark tells a watermark cursor from a cursor set to "now".
      proofs.push(`replay #${e.n} from after_sequence ${after} read events above the watermark ${lowest} of snapshot #${from.n}`);
    }
    batch = [];
  }
  const evidence = { calls: [...new Set(involved)], state: drill?.state ?? [] };
  if (problems.length > 0) {
    return result(id, 'fail', `Received: ${problems[0]} / Documented: ${WATERMARK_DOCUMENTED}`, { ...evidence, notes: [...problems, ...notes] });
  }
  if (proofs.length > 0) {
    return result(id, 'pass', `${proofs[0]}${proofs.length > 1 ? ` (and ${proofs.length - 1} more replay${proofs.length === 2 ? '' : 's'} from at or below a watermark)` : ''}.`, { ...evidence, notes: [...proofs, ...notes] });
  }
  const what = drill ? `${notes[0] ?? 'the drill found nothing'}. ` : judged > 0 ? `${judged} replay${judged === 1 ? '' : 's'} after snapshots, but no event above a snapshot's watermark existed by then, so a cursor set to the watermark and one set to "now" look alike. ` : 'The partner took no snapshot followed by a replay. ';
  return result(id, 'not_observed', `${what.charAt(0).toUpperCase()}${what.slice(1)}To show it: rebuild from snapshots and replay from their watermark during the run (a cold start with an empty store does both, §4.8, §6.8); the drill holds the first rates snapshot taken before the webhook is registered.`, { ...evidence, notes });
}

/**
 * §6.9: the partner stores the highest `updated_at` processed and polls from
 * it. What the journal shows of the stored mark: a poll made from
 * updated_since S had S stored (a partner polls from what it stored), and a
 * partner never stores lower. So, per filter, while the partner runs, a poll
 * starts at or after the highest updated_at the poll before it read. After a
 * restart it starts from the mark it had stored, anywhere from the updated_since
 * of its last poll before the restart up: killed after reading a page and
 * before storing its new mark, it reads that page again, which apply-if-newer
 * makes harmless (§6.4). Below that updated_since is a breach, restart or not.
 *
 * Which restarts are known: the crash drill's, the one restart certify causes.
 * A restart of the partner's own (its supervisor after a crash, a deploy) is a
 * process certify did not start, and nothing the platform records tells it
 * from the process before (one key, no process identity; GET /me is only the
 * suggested first call, §5.7). It is judged by what it looks like: once in a
 * run, a poll that goes back no lower than the updated_since of the poll
 * before it is taken as such a restart's re-read, judged neither way; a second
 * one is going back while running. Never advancing shows as going back on
 * every poll after one that read something new, so it stays a breach.
 */
function updatedSince(o: Observations): Graded {
  const id = 'usage.updated-since';
  if (o.journal === null) return result(id, 'not_observed', NO_JOURNAL);
  const lists = o.journal.filter((e) => e.operation === 'listBookings' && e.status === 200);
  // A poll is a first page; later pages of the same poll add to what it read.
  interface Poll { first: JournalEntry; since: number | null; highest: number | null }
  const polls = new Map<string, Poll[]>();
  for (const e of lists) {
    const key = filterKey(e, ['status', 'property_id', 'check_in_from', 'check_in_to']);
    const list = polls.get(key) ?? [];
    polls.set(key, list);
    const raw = query(e, 'updated_since');
    const since = raw === undefined ? null : Date.parse(raw);
    const page = Number(query(e, 'page') ?? '1');
    const seen = e.max_updated_at ? Date.parse(e.max_updated_at) : null;
    const current = list.at(-1);
    if (page > 1 && current) {
      if (seen !== null) current.highest = Math.max(current.highest ?? seen, seen);
      continue;
    }
    list.push({ first: e, since: since !== null && Number.isNaN(since) ? null : since, highest: seen });
  }
  // A poll that is the partner's first after it started (the run's start, the crash drill's restart) comes from its
  // start-up, not its timer: §6.9's polling is observed only when a later poll came from the timer.
  const starts = [o.journal[0]?.at ?? -Infinity, ...(o.crash ? [o.crash.restartedAt] : [])];
  const firsts = new Set(starts.map((t) => lists.find((e) => e.at >= t && e.at <= t + START_POLL_MS && Number(query(e, 'page') ?? '1') === 1)?.n).filter((n) => n !== undefined));
  const problems: string[] = [];
  const notes: string[] = [];
  const involved: JournalEntry[] = [];
  let judged = 0;
  let fromStarts = 0;
  let reread = 0;
  /** The one poll taken as the re-read of a restart certify did not cause. */
  let unseen: Poll | null = null;
  const iso = (ms: number) => new Date(ms).toISOString();
  for (const list of polls.values()) {
    for (let i = 1; i < list.length; i++) {
      const prev = list[i - 1]!;
      const poll = list[i]!;
      const since = poll.since ?? -Infinity;
      // The mark the poll before was made from: stored then, and never stored lower since.
      const stored = prev.since ?? -Infinity;
      const read = Math.max(stored, prev.highest ?? -Infinity);
      const from = poll.since === null ? 'no updated_since (from the beginning)' : `updated_since ${query(poll.first, 'updated_since')}`;
      const restarted = acrossCrash(o.crash, prev.first, poll.first);
      if (since < stored) {
        problems.push(restarted
          ? `poll #${poll.first.n}, the first after the crash drill's restart, read with ${from} although #${prev.first.n} before the kill was made from updated_since ${query(prev.first, 'updated_since')}, so that mark was stored: it did not resume from what it had stored`
          : `poll #${poll.first.n} read with ${from} although #${prev.first.n} had read up to ${iso(read)}`);
        involved.push(prev.first, poll.first);
        continue;
      }
      if (since < read) {
        const again = `poll #${poll.first.n} read with ${from}, below ${iso(read)} that #${prev.first.n} had read up to but not below the mark #${prev.first.n} was made from`;
        if (restarted) {
          reread += 1;
          notes.push(`${again}: the first poll after the crash drill's restart, from the mark it had stored (the new mark of #${prev.first.n} was not stored before the kill); reading again is harmless (§6.4).`);
          continue;
        }
        if (unseen === null) {
          unseen = poll;
          reread += 1;
          notes.push(`${again}: taken as the first poll of a restart certify did not cause (a crash and its supervisor, a deploy; certify sees only the restarts it causes), from the mark it had stored (§6.9; reading again is harmless, §6.4). Once in a run: a second such poll is going back while running.`);
          involved.push(prev.first, poll.first);
          continue;
        }
        problems.push(`poll #${poll.first.n} read with ${from} although #${prev.first.n} had read up to ${iso(read)}, going back a second time (#${unseen.first.n} was taken as a restart's re-read)`);
        involved.push(prev.first, poll.first);
        continue;
      }
      if (firsts.has(poll.first.n)) fromStarts += 1;
      else judged += 1;
    }
  }
  if (problems.length > 0) {
    return result(id, 'fail', `Received: ${problems[0]} / Documented: store the highest updated_at processed and poll from it (§6.9); after a restart, from the mark stored, never below one already polled from`, { calls: involved, notes: [...problems, ...notes] });
  }
  const total = [...polls.values()].reduce((n, list) => n + list.length, 0);
  if (judged === 0) {
    const when = 'a partner reconciling every N s needs a --duration above 2N s (the default, 240 s, fits every 90 s)';
    const rereads = reread > 0 ? `, or a re-read from its stored mark after a restart (${reread})` : '';
    const started = fromStarts + reread > 0
      ? `The partner polled GET /bookings ${total} times, each the first call of its kind after it started (the run's start${o.crash ? ', the crash drill\'s restart' : ''})${rereads}: its reconciliation timer never ${reread > 0 ? 'showed its mark moving forward' : 'fired'} during the run. To show it: poll by updated_since on a timer (§6.9); ${when}.`
      : null;
    return result(id, 'not_observed', started ?? (lists.length === 0
      ? `The partner never polled GET /bookings. To show it: poll by updated_since twice during the run (§6.9); ${when}.`
      : `The partner polled GET /bookings once; two polls are needed to see it move forward. To show it: poll again by updated_since before the run ends; ${when}.`), { calls: lists, notes });
  }
  const rereads = reread > 0 ? `, but for ${reread} re-read${reread === 1 ? '' : 's'} from the mark it had stored, after a restart` : '';
  return result(id, 'pass', `${total} polls (${judged} from its timer); each started at or after the highest updated_at read before it${rereads}.`, { calls: lists, notes });
}

function rotatedKey(o: Observations): Graded {
  const id = 'usage.rotated-key';
  if (o.keyRotatedAt === null) return result(id, 'not_observed', 'The API key rotation drill did not run.');
  if (o.journal === null) return result(id, 'not_observed', NO_JOURNAL);
  const after = o.journal.filter((e) => e.at >= o.keyRotatedAt!);
  const retired = after.filter((e) => e.credential === 'retired');
  const current = after.filter((e) => e.credential === 'current');
  if (retired.length > 1) {
    return result(id, 'fail', `Received: ${retired.length} calls with the rotated-out key after the rotation (#${retired.map((e) => e.n).join(', #')}) / Documented: the previous key stops working at once (§5.3); one call may discover it, the next carries the new key from the credentials file`, { calls: retired });
  }
  if (current.length === 0) {
    return result(id, 'not_observed', retired.length === 1
      ? 'The partner made one call with the old key and none after it, so taking the new key into use was not observed.'
      : 'The partner made no call after the rotation.', { calls: retired });
  }
  return result(id, 'pass', `${retired.length === 0 ? 'No call' : 'One call'} with the old key after the rotation, then ${current.length} with the new one.`, { calls: [...retired, ...current.slice(0, 3)] });
}

function unavailableFinal(o: Observations): Graded {
  const id = 'usage.unavailable-final';
  if (o.unavailable === null) return result(id, 'not_observed', 'The 409 UNAVAILABLE drill did not run.');
  if (o.journal === null) return result(id, 'not_observed', NO_JOURNAL);
  const before = new Set(creates(o).filter((e) => e.n <= o.unavailable!.afterN).map((e) => e.body_fingerprint));
  const attempt = creates(o).find((e) => e.n > o.unavailable!.afterN && !before.has(e.body_fingerprint));
  if (!attempt) return result(id, 'not_observed', 'The partner did not place the order for the blocked nights.');
  if (attempt.status !== 409 || attempt.code !== 'UNAVAILABLE') {
    return result(id, 'not_observed', `The order's create was answered ${attempt.status} ${attempt.code ?? ''}, not 409 UNAVAILABLE (the partner booked something else than the nights blocked?).`, { calls: [attempt] });
  }
  const again = creates(o).filter((e) => e.n > attempt.n && (e.body_fingerprint === attempt.body_fingerprint || e.idempotency_key === attempt.idempotency_key));
  if (again.length > 0) {
    return result(id, 'fail', `Received: after 409 UNAVAILABLE (call #${attempt.n}) the same create was sent ${again.length} more time${again.length === 1 ? '' : 's'} (#${again.map((e) => e.n).join(', #')}) / Documented: no free unit is a final answer; nothing was written and the refusal is stored under the key (§4.5 rules 1 and 7)`, { calls: [attempt, ...again] });
  }
  return result(id, 'pass', `The create for the blocked nights was refused 409 UNAVAILABLE (call #${attempt.n}) and not sent again.`, { calls: [attempt] });
}

// ------------------------------------------------------------ recovery

function outageReplay(o: Observations): Graded {
  const id = 'recovery.outage-replay';
  const d = o.outage;
  if (d === null) return result(id, 'not_observed', 'The webhook outage drill did not run.');
  if (o.journal === null) return result(id, 'not_observed', NO_JOURNAL);
  const gap = probes(o, 'gap-delivery');
  // Reads before the pause count too: an event written before it may reach the partner by GET /events before its push does (delivery
  // lags under load), and what the partner already read it need not read again. After the resume, delivery covers the gap instead.
  const pages = o.journal.filter((e) => e.operation === 'listEvents' && e.cursor && e.status === 200 && e.at <= d.resumedAt
    && [undefined, String(d.propertyId)].includes(query(e, 'property_id'))
    && (query(e, 'types') ?? query(e, 'types[]') ?? 'rates.changed').split(',').includes('rates.changed'));
  const covered = (s: number) => pages.some((e) => s > e.cursor!.after_sequence && s <= e.cursor!.next_after_sequence);
  const missing = missingBetween(d.before, d.latest, covered);
  if (missing.length === 0) {
    return result(id, 'pass', `While delivery was withheld the partner replayed sequence ${d.before + 1} to ${d.latest} by GET /events (${pages.length} page${pages.length === 1 ? '' : 's'}).`, { calls: pages, deliveries: gap });
  }
  const reached = pages.length === 0 ? null : Math.max(...pages.map((e) => e.cursor!.next_after_sequence));
  const read = reached === null ? 'no GET /events' : `GET /events covering up to ${reached} but not sequence ${missing.join(', ')}`;
  // A breach is what the partner read, never how long it took: pages that went past a withheld event without covering
  // it started from somewhere other than its stored cursor. Reading nothing (yet) is waited for, up to a cap, and then
  // not observed: a partner slowed by its machine is not failed.
  const skipped = reached === null ? [] : missing.filter((s) => s <= reached);
  if (skipped.length > 0) {
    return result(id, 'fail', `Received: while delivery was withheld (sequence ${d.before + 1} to ${d.latest}, one delivery of ${d.latest} revealing the gap, GET /me showing the pause) the partner made ${read}: its pages went past sequence ${skipped.slice(0, 10).join(', ')}${skipped.length > 10 ? ', …' : ''} without reading it / Documented: ordinary outage: GET /events from the stored cursor (§6.8)`, { calls: pages, deliveries: gap });
  }
  // It read the pause twice (its own GET /me loop, §5.7) and replayed nothing between: what it did, on its own clock.
  const ignored = pauseSeenWithoutReplay(o.journal, d.recordedAt ?? d.pausedAt, d.resumedAt);
  if (ignored) {
    return result(id, 'fail', `Received: while delivery was withheld (sequence ${d.before + 1} to ${d.latest}) the partner read GET /me #${ignored[0].n} and #${ignored[1].n} (status paused) with no replay page between them, and made ${read} / Documented: ordinary outage: GET /events from the stored cursor (§6.8); GET /me shows the paused webhook (§5.7)`, { calls: [...ignored, ...pages], deliveries: gap });
  }
  const short = d.waitedMs < OUTAGE_FAIR_WAIT_MS
    ? ` A partner that notices a pause only by GET /me (once a minute) needs at least ${OUTAGE_FAIR_WAIT_MS / 1000} s: run with a longer --duration.`
    : ` The drill waited for a replay until ${OUTAGE_REPLAY_WAIT_MS / 1000} s passed with no GET /events from the partner after the gap-revealing delivery; none reached the withheld events, none went past them, and the partner did not read the pause twice by GET /me.`;
  return result(id, 'not_observed', `Within the ${(d.waitedMs / 1000).toFixed(0)} s the drill waited, the partner made ${read}.${short}`, { calls: pages, deliveries: gap });
}

function crashRestart(o: Observations): Graded {
  const g = gradeCrashRestart(o.crash, o.crashNotRun, o.journal, o.superseded, o.stateProbe);
  return result('recovery.crash-restart', g.outcome, g.summary, { calls: g.calls, state: g.state, notes: g.notes });
}

export function summarise(results: RequirementResult[]): { total: number; pass: number; fail: number; not_observed: number } {
  return {
    total: results.length,
    pass: results.filter((r) => r.outcome === 'pass').length,
    fail: results.filter((r) => r.outcome === 'fail').length,
    not_observed: results.filter((r) => r.outcome === 'not_observed').length,
  };
}

export function verdictOf(results: RequirementResult[]): 'certified' | 'certified-with-gaps' | 'not-certified' {
  if (results.some((r) => r.outcome === 'fail')) return 'not-certified';
  return results.some((r) => r.outcome === 'not_observed') ? 'certified-with-gaps' : 'certified';
}
