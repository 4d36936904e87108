/**
 * The platform side of traffic judged against the API document: every answer
 * against spec/openapi.yaml (the suite's ResponseCheck), and the rules of
 * streams and histories no single message shows — sequences never reused,
 * replay byte-identical to delivery, replay pages contiguous along
 * next_after_sequence, superseded events out of default replay and never
 * delivered, deliveries one at a time in order (the suite's deliveryProblems),
 * idempotent replay byte for byte, duplicates answered 200, records shown
 * only to their integration, the snapshot watermark.
 */
import { INTEGRATION_HEADER, SIGNATURE_HEADER, verifySignature, type Verdict } from '../protocol/signature.ts';
import { DELIVERY_BREACHES, deliveryProblems } from '../protocol/delivery-problems.ts';
import { conflictBodyProblems } from '../protocol/conflict-body.ts';
import { listPageProblems } from '../protocol/list-page.ts';
import { digest, fingerprintOf } from './body-digest.ts';
import { answeredBy, endOf, splitPath, startOf, type WatchedExchange } from './exchange.ts';
import type { Judgement } from './judgement.ts';
import type { IntegrationStream, Omission } from './stream-state.ts';

/** §4.5 rule 1: keys are remembered 24 hours; watch compares only well inside them (a clock between two machines drifts). */
const KEY_MEMORY_MS = 24 * 3_600_000 - 5 * 60_000;
/** Two deliveries overlapping by less than this are one after the other, as far as timestamps tell. */
const OVERLAP_SLACK_MS = 2;
/** A gap wider than this is not kept (a cursor far ahead of the log, or a log past retention). */
const WIDEST_GAP = 10_000;
/**
 * An event a replay row showed less than this before a page is taken as still retained, and every event after it
 * (§6.7 keeps 30 days; the oldest go first): a page from its sequence that starts further on left events out.
 */
const SHOWN_RETAINED_MS = 24 * 3_600_000;

/** Judges one API answer the platform gave. */
export function judgePlatformAnswer(j: Judgement): void {
  const { e } = j;
  if (e.status === null) return;
  const { pathname, query } = splitPath(e.path);
  judgeResponse(j, pathname);
  if (e.status < 200 || e.status >= 300) {
    if (e.method === 'POST' && pathname === '/bookings') judgeCreate(j);
    if (e.method === 'POST' && pathname === '/bookings' && e.status === 409 && j.response?.code === 'UNAVAILABLE' && !e.truncated) judgeConflict(j);
    if (e.method === 'GET' && e.status === 422 && j.response?.code === 'VALIDATION_FAILED') judgeValidQuery(j, pathname, query);
    if (e.method === 'POST' && pathname === '/sync' && e.status === 422 && j.response?.code === 'VALIDATION_FAILED' && !e.truncated) judgeValidSync(j);
    return;
  }
  if (e.method === 'GET' && pathname === '/events') judgeReplayPage(j, query);
  else if (e.method === 'POST' && pathname === '/bookings') judgeCreate(j);
  else if (e.method === 'GET' && /^\/properties\/[^/]+\/(availability|rates|restrictions)$/.test(pathname)) judgeSnapshot(j);
  else if (e.method === 'GET' && pathname === '/me') knowFromMe(j);
  if (e.method === 'GET' && pathname.startsWith('/bookings')) judgeBookingsShown(j);
  if (e.method === 'GET' && pathname === '/bookings' && !e.truncated) judgeListPage(j, query);
}

/** §4.4, §8: a list page against its query (the suite's judgement, protocol/list-page.ts). */
function judgeListPage(j: Judgement, query: URLSearchParams): void {
  const asked: { page?: number; per_page?: number } = {};
  for (const name of ['page', 'per_page'] as const) {
    if (!query.has(name)) continue;
    const value = Number(query.get(name));
    // A value the contract refuses was answered 200: the response check and valid-query rules are the ones to say so.
    if (!Number.isInteger(value) || value < 1) return;
    asked[name] = value;
  }
  const rows = Array.isArray(j.response?.data) ? j.response.data.length : null;
  j.judged('platform.list-page');
  for (const p of listPageProblems(asked, j.response?.pagination, rows, `GET ${j.e.path}`)) j.breach('platform.list-page', p.clause, p.kind, p.received, p.documented);
}

/** §4 every response is the envelope of its operation and status (the suite's ResponseCheck); §7 429 RATE_LIMITED carries its headers. */
function judgeResponse(j: Judgement, pathname: string): void {
  const { e } = j;
  const verdict = j.responses.judge(e.method, pathname, e.status!, e.truncated ? '' : e.responseBody, e.responseHeaders, e.truncated ? undefined : j.response);
  if (!verdict) return;
  const rateLimited = e.status === 429 && j.response?.code === 'RATE_LIMITED';
  const headerProblems = rateLimited ? verdict.problems.filter((p) => p.startsWith('required header')) : [];
  if (rateLimited) {
    j.judged('platform.rate-limit-headers');
    if (headerProblems.length > 0) j.breach('platform.rate-limit-headers', '7.E16', 'RateLimitHeadersMissing', headerProblems.join('; '), 'Retry-After and X-RateLimit-* headers on 429 RATE_LIMITED');
  }
  // A truncated body cannot be judged for its schema; its status and headers still were above.
  if (e.truncated) return;
  j.judged('platform.response-conforms');
  const rest = verdict.problems.filter((p) => !headerProblems.includes(p));
  if (rest.length > 0) j.breach('platform.response-conforms', '4.R2', 'ResponseSchemaViolation', `${verdict.operation} answered ${e.status}: ${rest.join('; ')}`, 'every response matches spec/openapi.yaml for its operation and status');
}

/**
 * §4.6 (4.6.R11): reading events changes nothing. A row shown waiting, then delivered, was delivered by a post the
 * partner answered 2xx; judged only where this integration's deliveries pass through watch (it has seen one).
 */
function judgeShownDelivered(j: Judgement, sequence: number): void {
  const info = j.stream.sequence(sequence);
  if (info.shownWaiting === undefined || j.stream.highestDelivered === null) return;
  j.judged('platform.reading-changes-nothing');
  if (!info.posted) j.breach('platform.reading-changes-nothing', '4.6.R11', 'ReadingAcknowledged', `event ${sequence}, shown waiting on GET ${info.shownWaiting.path}, now shown delivered with no delivery of it answered 2xx`, 'reading events changes nothing: delivered only by a post the partner answered 2xx');
  info.shownWaiting = undefined;
}

/** §4.5 rule 7: the refusal names the property and the stay's nights (the suite's judgement, protocol/conflict-body.ts). */
function judgeConflict(j: Judgement): void {
  j.judged('platform.conflict-body');
  for (const p of conflictBodyProblems(j.request, j.response?.errors?.availability)) j.breach('platform.conflict-body', p.clause, p.kind, p.received, p.documented);
}

/** Query parameters whose whole rule is their schema (a number in a range, a switch), with the clause of each. */
const SCHEMA_ONLY: Record<string, string> = { page: '4.4.Q6', per_page: '8.L1', limit: '8.L2', after_sequence: '4.6.Q1', include_superseded: '4.6.Q5' };

/** A 422 that names only such parameters, each valid by the contract (or omitted: they are optional), refused a valid query. */
function judgeValidQuery(j: Judgement, pathname: string, query: URLSearchParams): void {
  const op = j.responses.operation('GET', pathname);
  const named = Object.keys(j.response?.errors ?? {});
  if (!op || named.length === 0 || !named.every((n) => n in SCHEMA_ONLY && op.parameters.some((p) => p.in === 'query' && p.name === n))) return;
  const input: Record<string, unknown> = {};
  for (const name of new Set(query.keys())) {
    const values = query.getAll(name);
    input[name] = values.length === 1 && !name.endsWith('[]') ? values[0] : values;
  }
  j.judged('platform.valid-query-accepted');
  const errors = j.responses.contract.checkParameters(op, { query: input }) ?? {};
  for (const name of named.filter((n) => !(n in errors))) {
    const sent = query.has(name) ? `${name}=${query.get(name)}` : `${name} omitted`;
    j.breach('platform.valid-query-accepted', SCHEMA_ONLY[name]!, 'ValidQueryRefused', `422 VALIDATION_FAILED on ${sent}: ${JSON.stringify(j.response.errors[name])}`, `${sent} is within spec/openapi.yaml (${name}: ${JSON.stringify(op.parameters.find((p) => p.name === name)?.schema)}): answered, not refused`);
  }
}

/**
 * §4.7: a sync body's whole rule is its schema (property ids in range, the type names in either spelling); what the
 * schema cannot say is PROPERTY_NOT_MAPPED, not VALIDATION_FAILED. A body the contract accepts refused with it is a breach.
 */
function judgeValidSync(j: Judgement): void {
  const op = j.responses.operation('POST', '/sync');
  if (!op) return;
  j.judged('platform.valid-query-accepted');
  // A body that is not JSON is rightly refused: judged only what parsed (or no body, which §4.7 allows).
  if (j.e.requestBody !== '' && j.request === undefined) return;
  const body = j.e.requestBody === '' ? undefined : j.request;
  if (body !== undefined && j.responses.contract.checkBody(op, body) !== null) return;
  const named = Object.keys(j.response?.errors ?? {});
  const clause = named.some((n) => n.startsWith('types')) ? '4.7.Q3a' : named.some((n) => n.startsWith('property_ids')) ? '4.7.Q2' : '4.7.Q1';
  j.breach('platform.valid-query-accepted', clause, 'ValidSyncRefused', `422 VALIDATION_FAILED on POST /sync ${j.e.requestBody || '(no body)'}: ${JSON.stringify(j.response.errors)}`, 'a body spec/openapi.yaml accepts (§4.7: either spelling of each type, up to 500 covered ids): queued, or refused for the window or the cap, not invalid');
}

/** An event seen in a delivery or a replay row: the same sequence always names the same event, byte for byte (§2.5, §2.6). */
function seeEvent(j: Judgement, event: any, bytes: string | null, source: 'delivery' | 'replay'): void {
  const { stream } = j;
  const sequence = event?.sequence;
  if (!Number.isInteger(sequence)) return;
  stream.knowSequence(sequence, source === 'delivery' ? startOf(j.e) : endOf(j.e));
  const info = stream.sequence(sequence);
  const id = typeof event.id === 'string' ? event.id : undefined;
  j.judged('platform.sequence-never-reused');
  if (id !== undefined && info.eventId !== undefined && info.eventId !== id) {
    j.breach('platform.sequence-never-reused', '1.R3a', 'SequenceReused', `sequence ${sequence} now holds event ${id}, earlier ${info.eventId}`, 'a sequence is never reused across deliveries and replays');
    return;
  }
  if (id !== undefined) {
    const other = stream.eventIds.get(id);
    if (other !== undefined && other !== sequence) j.breach('platform.sequence-never-reused', '2.5.R2', 'EventIdReused', `event id ${id} on sequence ${sequence}, earlier on ${other}`, 'one id per event');
    stream.eventIds.set(id, sequence);
    info.eventId = id;
  }
  if (typeof event.type === 'string') info.type = event.type;
  if (Number.isInteger(event.property?.doorloom_id)) info.property = event.property.doorloom_id;
  if (bytes === null) return;
  const hash = digest(bytes);
  if (info.bytes !== undefined) {
    j.judged('platform.replay-bytes');
    if (info.bytes !== hash) {
      j.breach('platform.replay-bytes', '2.6.R1', source === 'delivery' ? 'DeliveryNotReplayBytes' : 'ReplayNotByteIdentical', `the ${source} of sequence ${sequence} differs from its earlier delivery or replay row`, 'the exact envelope, byte for byte');
    }
  } else info.bytes = hash;
}

/** A sequence is known delivered: never superseded (§3.3); a replay page that left it out skipped it (§4.6). */
function markDelivered(j: Judgement, sequence: number): void {
  const info = j.stream.sequence(sequence);
  if (info.delivered) return;
  info.delivered = true;
  if (info.supersededAt !== undefined) {
    j.judged('platform.superseded-never-delivered');
    j.breach('platform.superseded-never-delivered', '3.3.R3', 'SupersededDelivered', `event ${sequence}, shown superseded in replay, is delivered`, 'a superseded event is never delivered');
  }
  judgeOmissions(j, sequence);
}

function matches(o: Omission, info: { type?: string; property?: number }): boolean {
  if (o.types !== null && (info.type === undefined || !o.types.includes(info.type))) return false;
  if (o.property !== null && info.property !== o.property) return false;
  return true;
}

/** §4.6: a sequence known never superseded that a default page's gap covers, matching its filters, was skipped. */
function judgeOmissions(j: Judgement, sequence: number): void {
  const { stream } = j;
  const info = stream.sequence(sequence);
  const hit = stream.omissions.find((o) => sequence >= o.from && sequence <= o.to && matches(o, info));
  if (!hit) return;
  stream.omissions = stream.omissions.filter((o) => o !== hit);
  j.breach('platform.replay-contiguous', '4.6.R4', 'ReplayPageSkipped', `event ${sequence} (${info.type ?? 'an event'}, delivered, so never superseded) is missing from the replay page that covered ${hit.from}..${hit.to}`, 'paging along next_after_sequence visits every event that is not superseded exactly once', hit.exchange);
}

function queryNumber(query: URLSearchParams, name: string, fallback: number): number {
  const v = query.get(name);
  return v === null || v === '' ? fallback : Number(v);
}

/** §4.6 GET /events: the cursor, the rows and what the page left out. */
function judgeReplayPage(j: Judgement, query: URLSearchParams): void {
  const { e, stream, response } = j;
  const rows = response?.data;
  const cursor = response?.cursor;
  if (!Array.isArray(rows) || cursor === null || typeof cursor !== 'object') return;
  const after = queryNumber(query, 'after_sequence', 0);
  const limit = queryNumber(query, 'limit', 100);
  const includeSuperseded = ['true', '1'].includes(query.get('include_superseded') ?? '');
  const types = [...query.getAll('types[]'), ...query.getAll('types')];
  const property = query.get('property_id');
  j.judged('platform.replay-page');
  if (cursor.after_sequence !== after) j.breach('platform.replay-page', '4.6.R3', 'CursorEchoWrong', `cursor.after_sequence ${cursor.after_sequence}`, `the echo of after_sequence ${after}`);
  if (rows.length > limit) j.breach('platform.replay-page', '4.6.Q2', 'PageTooLong', `${rows.length} rows`, `at most limit = ${limit}`);
  const sequences = rows.map((r: any) => r?.sequence).filter((s: unknown): s is number => Number.isInteger(s));
  const disorder = sequences.findIndex((s: number, i: number) => s <= (i === 0 ? after : sequences[i - 1]!));
  if (disorder >= 0) j.breach('platform.replay-page', '4.6.Q1', 'ReplayOutOfOrder', `rows ${sequences.join(',')} after ${after}`, `events with sequence greater than ${after}, in order`);
  const newest = Math.max(0, ...sequences);
  const before = stream.knownBy(startOf(e));
  if (Number.isInteger(cursor.latest_sequence) && (cursor.latest_sequence < newest || cursor.latest_sequence < before)) {
    j.breach('platform.replay-page', '4.6.R6', 'LatestSequenceBehind', `latest_sequence ${cursor.latest_sequence} with sequence ${Math.max(newest, before)} already issued`, 'latest_sequence: the newest sequence of the integration');
  }
  if (Number.isInteger(cursor.latest_sequence)) {
    judgeWatermarksAgainst(j, cursor.latest_sequence);
    stream.knowSequence(cursor.latest_sequence, endOf(e));
  }
  for (const row of rows) {
    const event = row?.event;
    if (event === undefined || !Number.isInteger(row.sequence)) continue;
    if (stream.slug !== undefined && typeof event?.integration?.slug === 'string' && event.integration.slug !== stream.slug) {
      j.breach('platform.own-records-only', '1.V2', 'ForeignEventServed', `replay of ${stream.slug} holds sequence ${row.sequence} of integration ${event.integration.slug}`, 'replayed events belong to the calling integration');
    }
    j.judged('platform.own-records-only');
    seeEvent(j, event, e.truncated ? null : JSON.stringify(event), 'replay');
    const info = stream.sequence(row.sequence);
    if (row.status === 'superseded') {
      if (!includeSuperseded) {
        j.breach('platform.superseded-omitted', '3.3.R2', 'SupersededInReplay', `superseded ${row.sequence} on a default replay page`, 'omitted unless include_superseded');
      }
      if (info.supersededAt === undefined) info.supersededAt = endOf(e);
      if (info.delivered) {
        j.judged('platform.superseded-never-delivered');
        j.breach('platform.superseded-never-delivered', '3.3.T1a', 'DeliveredSuperseded', `event ${row.sequence}, seen delivered, is now superseded`, 'supersession applies only to an event still undelivered');
      }
    } else if (row.status === 'delivered' || (typeof row.delivered_at === 'string' && row.status !== 'failed')) {
      judgeShownDelivered(j, row.sequence);
      markDelivered(j, row.sequence);
    } else if (row.status === 'pending' || row.status === 'failed') info.shownWaiting ??= e;
  }
  if (!includeSuperseded) {
    j.judged('platform.superseded-omitted');
    j.judged('platform.replay-contiguous');
    recordGaps(j, after, sequences, cursor, types.length > 0 ? types : null, property === null ? null : Number(property));
  } else if (types.length === 0 && property === null) judgeCompletePage(j, after, sequences, cursor);
  for (const s of sequences) stream.sequence(s).shownAt = endOf(e);
  // The next page of a walk starts where this one said (§4.6 next_after_sequence).
}

/**
 * §4.6, §3.3 (issue 41 item 2): with include_superseded and no filter, a page holds every event above after_sequence
 * up to its next_after_sequence; nothing may be left out, so a gap is a breach when the page shows it, no later
 * evidence needed. Before the first row only when the event at after_sequence was shown lately (SHOWN_RETAINED_MS):
 * from a cursor the log no longer holds, the page rightly starts at the oldest retained event (§6.7).
 */
function judgeCompletePage(j: Judgement, after: number, sequences: number[], cursor: any): void {
  const { e, stream } = j;
  const shown = after > 0 ? stream.sequences.get(after)?.shownAt : undefined;
  const fromAfter = shown !== undefined && startOf(e) - shown < SHOWN_RETAINED_MS;
  const gaps: [number, number][] = [];
  let lower = after;
  for (const s of sequences) {
    if (s > lower + 1 && (lower !== after || fromAfter)) gaps.push([lower + 1, s - 1]);
    lower = Math.max(lower, s);
  }
  const next = cursor.next_after_sequence;
  if (Number.isInteger(next) && next > lower && (sequences.length > 0 || fromAfter)) gaps.push([lower + 1, next]);
  j.judged('platform.replay-contiguous');
  for (const [from, to] of gaps) {
    const left = from === to ? `sequence ${from}` : `sequences ${from} to ${to}`;
    j.breach('platform.replay-contiguous', '4.6.R4', 'ReplayGap', `${left} left out of GET ${e.path} (rows ${sequences.join(',') || 'none'}; next_after_sequence ${next}, latest_sequence ${cursor.latest_sequence})`, 'with include_superseded every event above after_sequence is a row, up to next_after_sequence: nothing is left out (§4.6, §3.3)');
  }
}

/** The sequences a default page passed over without showing, kept to judge against later evidence. */
function recordGaps(j: Judgement, after: number, sequences: number[], cursor: any, types: string[] | null, property: number | null): void {
  const { e, stream } = j;
  const gaps: [number, number][] = [];
  let lower = after;
  for (const s of sequences) {
    // From the start of the log (after_sequence 0), what precedes the first row may be past retention (§6.7).
    if (s > lower + 1 && !(after === 0 && lower === 0)) gaps.push([lower + 1, s - 1]);
    lower = Math.max(lower, s);
  }
  const next = cursor.next_after_sequence;
  if (Number.isInteger(next) && next > lower && !(after === 0 && sequences.length === 0)) gaps.push([lower + 1, next]);
  for (const [from, to] of gaps) {
    if (to - from > WIDEST_GAP) continue;
    const omission: Omission = { from, to, types, property, exchange: e };
    stream.addOmission(omission);
    for (let s = from; s <= to; s++) {
      const info = stream.sequences.get(s);
      if (info?.delivered && matches(omission, info)) judgeOmissions(j, s);
    }
  }
}

/** §4.5 rules 1 and 4: a create under a remembered key, and a create of an existing external_booking_id. */
function judgeCreate(j: Judgement): void {
  const { e, stream, request, response } = j;
  const key = e.requestHeaders['idempotency-key'];
  if (key === undefined || e.status === null || e.truncated) return;
  const print = fingerprintOf(e.requestBody, request);
  const record = stream.keys.get(key);
  const code: string | undefined = response?.code;
  const start = startOf(e);
  const remembered = record !== undefined && record.stored && start - record.endedAt < KEY_MEMORY_MS;
  if (remembered) {
    j.judged('platform.idempotent-replay');
    if (record.fingerprint === print) {
      if (e.status === 409 && code === 'IN_PROGRESS' && record.endedAt <= start) {
        j.breach('platform.idempotent-replay', '4.5.R1', 'NotReplayed', `409 IN_PROGRESS for key ${key}, whose create had answered ${record.status} before`, 'the original answer replayed byte for byte');
      } else if ([200, 201, 409, 422].includes(e.status) && (e.status !== record.status || digest(e.responseBody) !== record.body)) {
        j.breach('platform.idempotent-replay', '4.5.R1', 'ReplayNotByteIdentical', `${e.status}${code ? ` ${code}` : ''} with ${e.responseBody.length} bytes differing from the original ${record.status} under key ${key}`, 'same key and body: the original response replayed byte for byte');
      }
    } else if (e.status === 201 || e.status === 200 || (e.status === 409 && code === 'UNAVAILABLE')) {
      j.breach('platform.idempotent-replay', '4.5.R1d', 'KeyReuseAccepted', `${e.status}${code ? ` ${code}` : ''} for key ${key} reused with a different body`, '422 IDEMPOTENCY_KEY_REUSED');
    }
  }
  const external: unknown = request?.external_booking_id;
  const earlier = typeof external === 'string' ? stream.attempts.get(external) : undefined;
  if (!remembered && earlier?.bookingId !== undefined && earlier.key !== key && start - earlier.at < KEY_MEMORY_MS) {
    j.judged('platform.duplicate-external-id');
    if (e.status === 201) {
      j.breach('platform.duplicate-external-id', '4.5.R4', 'DuplicateCreatedBooking', `201 booking ${response?.data?.id} for external_booking_id ${String(external)}, already booking ${earlier.bookingId}`, '200 with the existing booking and data.duplicate = true');
    } else if (e.status === 200 && (response?.data?.duplicate !== true || response?.data?.id !== earlier.bookingId)) {
      j.breach('platform.duplicate-external-id', '4.5.R4', 'DuplicateNotMarked', `200 with id ${response?.data?.id} and duplicate ${JSON.stringify(response?.data?.duplicate)}`, `the existing booking ${earlier.bookingId} with data.duplicate = true`);
    }
  }
  const bookingId = (e.status === 201 || e.status === 200) && Number.isInteger(response?.data?.id) ? response.data.id as number : undefined;
  if (bookingId !== undefined) ownBooking(j, bookingId);
  // The first answer the platform stores under a key stays the one to replay while the key is remembered.
  if (!remembered) {
    const stored = e.status === 201 || e.status === 200 || (e.status === 409 && code === 'UNAVAILABLE');
    stream.keys.set(key, { fingerprint: print, status: e.status, code, body: digest(e.responseBody), startedAt: start, endedAt: endOf(e), stored, externalId: typeof external === 'string' ? external : undefined });
  }
  if (typeof external === 'string') {
    const attempt = stream.attempts.get(external);
    if (!attempt || start - attempt.at >= KEY_MEMORY_MS) stream.attempts.set(external, { key, fingerprint: print, at: start, bookingId });
    else if (bookingId !== undefined && attempt.bookingId === undefined) attempt.bookingId = bookingId;
  }
}

/** §1 visibility: a booking belongs to the integration it was first created or served under. */
function ownBooking(j: Judgement, id: number): void {
  const { stream } = j;
  // Before an answer names the integration, two keys of one integration cannot be told apart from two integrations.
  if (stream.slug === undefined) return;
  const owner = j.owners.get(id);
  j.judged('platform.own-records-only');
  if (owner === undefined) j.owners.set(id, stream.slug);
  else if (owner !== stream.slug) j.breach('platform.own-records-only', '1.V2', 'ForeignBookingServed', `booking ${id} of integration ${owner} served to ${stream.slug}`, "another integration's booking is 404 NOT_FOUND, never shown");
}

/** GET /bookings… 200: every booking shown belongs to the caller. */
function judgeBookingsShown(j: Judgement): void {
  const data = j.response?.data;
  for (const booking of Array.isArray(data) ? data : [data]) if (Number.isInteger(booking?.id)) ownBooking(j, booking.id);
}

function knowFromMe(j: Judgement): void {
  const last = j.response?.data?.webhook?.last_sequence;
  if (Number.isInteger(last)) {
    judgeWatermarksAgainst(j, last);
    j.stream.knowSequence(last, endOf(j.e));
  }
}

/** §4.8 watermark rule: data.sequence is read before the payload, so it is neither behind what existed before nor ahead of what is read after. */
function judgeSnapshot(j: Judgement): void {
  const { e, stream, response } = j;
  const watermark = response?.data?.sequence;
  if (!Number.isInteger(watermark)) return;
  j.judged('platform.snapshot-watermark');
  const before = stream.knownBy(startOf(e));
  if (watermark < before) j.breach('platform.snapshot-watermark', '4.8.R7', 'WatermarkBehind', `data.sequence ${watermark} with sequence ${before} already issued before the request`, 'the sequence watermark read when the payload was built');
  // The watermark was read before the answer began: a read that starts after that reads a sequence at least as high.
  stream.watermarks.push({ at: answeredBy(e), sequence: watermark, exchange: e });
  if (stream.watermarks.length > 16) stream.watermarks.shift();
}

/** A latest sequence read after a snapshot was answered is never below that snapshot's watermark. */
function judgeWatermarksAgainst(j: Judgement, latest: number): void {
  const start = startOf(j.e);
  for (const w of j.stream.watermarks) {
    // Starts are whole milliseconds (an exchange's `at`), the answer's moment is not: a read sent on the answer's heels
    // starts in the answer's millisecond, written below it. Compared by the millisecond, it counts as after.
    if (Math.floor(w.at) <= start && latest < w.sequence) {
      j.breach('platform.snapshot-watermark', '4.8.R7', 'WatermarkAhead', `data.sequence ${w.sequence}, but the latest sequence read after it is ${latest}`, 'the sequence watermark read before the payload was built, never ahead', w.exchange);
      j.stream.watermarks = j.stream.watermarks.filter((x) => x !== w);
    }
  }
}

/** Judges one webhook delivery the platform made: order, header, signature, bytes, supersession (§2.6, §3.3, §5.4, §6.2, §6.3). */
export function judgeDelivery(j: Judgement): void {
  const { e, stream, request: envelope } = j;
  const sequence = Number.isInteger(envelope?.sequence) ? envelope.sequence as number : null;
  const header = e.requestHeaders[INTEGRATION_HEADER.toLowerCase()] ?? null;
  const slug = typeof envelope?.integration?.slug === 'string' ? envelope.integration.slug as string : stream.slug;
  const nowSeconds = Math.floor(startOf(e) / 1000);
  const signed = j.secrets.length > 0;
  const verdict: Verdict = signed ? verifySignature(e.requestHeaders[SIGNATURE_HEADER.toLowerCase()], e.requestBody, j.secrets, nowSeconds, j.toleranceSeconds) : { ok: true, t: nowSeconds };
  // §6.2 one at a time: this delivery began before the previous one ended (times are kept to the millisecond,
  // and the platform may start the next the instant it has read a 2xx, before watch has seen the answer end).
  // A ping carries no sequence and is no event (§6.6): it is not in the queue.
  if (sequence !== null) {
    j.judged('platform.delivery-order');
    if (startOf(e) < stream.deliveriesEnd - OVERLAP_SLACK_MS) j.breach('platform.delivery-order', '6.R2', 'DeliveriesOverlap', `delivery ${sequence} began while another delivery to the integration was unanswered`, 'one at a time, each waiting for the answer to the one before');
    stream.deliveriesEnd = Math.max(stream.deliveriesEnd, endOf(e));
  }
  // The suite's receiver judges a delivery by the same function (protocol/delivery-problems.ts).
  const problems = deliveryProblems(e.method, verdict, header, slug, sequence, stream.highestDelivered);
  if (sequence !== null) stream.highestDelivered = Math.max(stream.highestDelivered ?? sequence, sequence);
  j.judged('platform.delivery-integration-header');
  if (signed) j.judged('platform.delivery-signed');
  for (const p of problems) {
    const breach = DELIVERY_BREACHES[p.kind];
    const rule = p.kind === 'out-of-order' ? 'platform.delivery-order'
      : p.kind.endsWith('integration-header') ? 'platform.delivery-integration-header'
      : p.kind === 'not-posted' ? 'platform.replay-bytes'
      : 'platform.delivery-signed';
    j.breach(rule, breach.clause, breach.kind, `${envelope?.type ?? 'a'} delivery${sequence === null ? '' : ` of sequence ${sequence}`}: ${p.detail}`, breach.documented);
  }
  if (sequence === null) return;
  seeEvent(j, envelope, e.truncated ? null : e.requestBody, 'delivery');
  const info = stream.sequence(sequence);
  j.judged('platform.superseded-never-delivered');
  if (info.supersededAt !== undefined && info.supersededAt <= startOf(e)) {
    j.breach('platform.superseded-never-delivered', '3.3.R3', 'SupersededDelivered', `event ${sequence}, shown superseded in replay, delivered after`, 'a superseded event is never delivered');
    info.supersededAt = undefined;
  }
  if (e.status !== null && e.status >= 200 && e.status < 300) {
    info.posted = true;
    markDelivered(j, sequence);
  }
}
