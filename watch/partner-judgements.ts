/**
 * The partner side of traffic: what an integration must do, judged from its
 * calls and its answers to deliveries — a retry reuses its Idempotency-Key
 * with the same body and a new booking gets a new key (§4.5), Retry-After is
 * honoured (§7), 409 UNAVAILABLE is not retried as if transient (§4.5 rule 7),
 * GET /me at most once a minute (§5.7), a replay walk follows
 * next_after_sequence (§4.6, §6.8), and a delivery whose signature does not
 * verify is never accepted (§5.4). Runs before the platform judgements of
 * the same exchange, so it reads the stream as it was before this exchange.
 */
import { SIGNATURE_HEADER, verifySignature } from '../protocol/signature.ts';
import { retryAfterSeconds } from '../conformance/client.ts';
import { fingerprintOf } from './body-digest.ts';
import { endOf, splitPath, startOf } from './exchange.ts';
import type { Judgement } from './judgement.ts';

/** §4.5 rule 1: keys are remembered 24 hours; a retry later than that is a new request anyway. */
const DAY_MS = 24 * 3_600_000;
/** §5.7: GET /me no more than once a minute (a second of slack for the partner's timer). */
const ME_INTERVAL_MS = 59_000;
/** Slack for Retry-After: the partner's clock and watch's differ by a little. */
const RETRY_SLACK_MS = 500;

/** Judges one API call the partner made (with the answer it got). */
export function judgePartnerCall(j: Judgement): void {
  const { e } = j;
  const { pathname, query } = splitPath(e.path);
  // Keyed by the contract's operation, so the Retry-After kept per integration is one per operation at most.
  const operation = j.responses.operation(e.method, pathname)?.id ?? `${e.method} (no operation)`;
  judgeRetryAfter(j, operation);
  if (e.method === 'GET' && pathname === '/me') judgeHealthCheck(j);
  if (e.method === 'POST' && pathname === '/bookings') judgeCreateKey(j);
  if (e.method === 'GET' && pathname === '/events') judgeReplayCursor(j, query);
  if (e.method === 'GET' && /^\/properties\/[^/]+\/(availability|rates|restrictions)$/.test(pathname)) judgePartnerSnapshot(j);
  if (e.status === 429) {
    const wait = retryAfterSeconds(e.responseHeaders['retry-after'], endOf(e));
    const sync = j.response?.code === 'SYNC_TOO_SOON' && Number.isFinite(j.response?.errors?.retry_after) ? Number(j.response.errors.retry_after) : null;
    const seconds = wait ?? sync;
    if (seconds !== null) j.stream.retryAfter.set(operation, { until: endOf(e) + seconds * 1000, exchange: e });
  }
}

/** §7: after 429 with Retry-After, the same call is not made again before the time it gave. */
function judgeRetryAfter(j: Judgement, operation: string): void {
  const { e, stream } = j;
  const told = stream.retryAfter.get(operation);
  if (!told) return;
  j.judged('partner.retry-after-honoured');
  if (startOf(e) < told.until - RETRY_SLACK_MS) {
    j.breach('partner.retry-after-honoured', '7.E16', 'RetryAfterIgnored', `${operation} again ${((told.until - startOf(e)) / 1000).toFixed(1)} s before Retry-After allowed`, 'wait as long as Retry-After says before calling again');
  }
  stream.retryAfter.delete(operation);
}

/** §5.7: GET /me, the health check, no more than once a minute. */
function judgeHealthCheck(j: Judgement): void {
  const { e, stream } = j;
  if (e.status !== 200) return;
  j.judged('partner.health-check-polling');
  if (stream.lastMe !== null && startOf(e) - stream.lastMe < ME_INTERVAL_MS) {
    j.breach('partner.health-check-polling', '8.C1', 'HealthCheckTooOften', `GET /me ${((startOf(e) - stream.lastMe) / 1000).toFixed(1)} s after the previous one`, 'GET /me polled no more than once a minute');
  }
  stream.lastMe = startOf(e);
}

/** §4.5: one key per create attempt — its retries reuse it with the same body, a new booking never does. */
function judgeCreateKey(j: Judgement): void {
  const { e, stream, request } = j;
  const key = e.requestHeaders['idempotency-key'];
  if (key === undefined || e.truncated) return;
  const print = fingerprintOf(e.requestBody, request);
  const start = startOf(e);
  const record = stream.keys.get(key);
  j.judged('partner.key-per-attempt');
  if (record !== undefined && record.stored && start - record.endedAt < DAY_MS) {
    if (record.fingerprint !== print) {
      j.breach('partner.key-per-attempt', '4.5.Q2', 'KeyReusedForAnotherBody', `Idempotency-Key ${key} sent again with a different body${record.externalId !== undefined ? ` (first for external_booking_id ${record.externalId})` : ''}`, 'a key is unique per create attempt: a new booking gets a new key');
    } else if (record.status === 409 && record.code === 'UNAVAILABLE') {
      j.judged('partner.unavailable-not-retried');
      j.breach('partner.unavailable-not-retried', '7.E6', 'UnavailableRetried', `the create refused 409 UNAVAILABLE under key ${key} sent again`, '409 UNAVAILABLE: nothing free for the stay; not a transient error to retry');
    }
  }
  const external: unknown = request?.external_booking_id;
  if (typeof external !== 'string') return;
  const attempt = stream.attempts.get(external);
  if (attempt && attempt.key !== key && attempt.fingerprint === print && start - attempt.at < DAY_MS) {
    j.breach('partner.key-per-attempt', '4.5.Q2', 'RetryWithFreshKey', `the create of external_booking_id ${external} retried under a new Idempotency-Key ${key} (first ${attempt.key})`, 'a retry of a create reuses its Idempotency-Key');
  }
}

/** The filters of a replay request: a walk is the pages read with the same ones. */
function walkKey(query: URLSearchParams): string {
  return JSON.stringify([query.getAll('types[]').sort(), query.get('property_id'), query.get('include_superseded')]);
}

/** The partner has taken in everything through `sequence`. */
function seenThrough(j: Judgement, sequence: number): void {
  j.stream.partnerSeenThrough = Math.max(j.stream.partnerSeenThrough ?? 0, sequence);
}

/**
 * §4.6, §6.8: within a walk, the next page asks from the previous page's
 * next_after_sequence; a new catch-up walk starts no further on than what the
 * partner has taken in (its 2xx deliveries, its pages, its snapshots'
 * watermarks), else the events between were skipped. A cursor that goes back
 * is judged only within a walk: after snapshots a partner rightly resumes from
 * the lowest watermark (§4.8 rule 9), which traffic cannot tell from a lost
 * cursor. The `after_sequence=0&limit=1` probe of latest_sequence is no walk.
 */
function judgeReplayCursor(j: Judgement, query: URLSearchParams): void {
  const { e, stream, response } = j;
  const key = walkKey(query);
  const after = Number(query.get('after_sequence') ?? 0);
  const walk = stream.walks.get(key);
  const catchUp = !(after === 0 && query.get('limit') === '1');
  if (walk?.hasMore) {
    j.judged('partner.replay-cursor');
    if (after > walk.next) {
      j.breach('partner.replay-cursor', '4.6.R4', 'CursorSkipped', `after_sequence ${after} after a page whose next_after_sequence was ${walk.next} with has_more`, 'the next page asks from next_after_sequence');
    } else if (after < walk.next && after !== walk.after) {
      j.breach('partner.replay-cursor', '4.6.R4', 'CursorWentBackwards', `after_sequence ${after} after a page from ${walk.after} whose next_after_sequence was ${walk.next}`, 'the cursor only moves forward, to next_after_sequence');
    }
  } else if (catchUp && stream.partnerSeenThrough !== null && e.status === 200) {
    const cursor = stream.partnerSeenThrough;
    const latest = response?.cursor?.latest_sequence;
    j.judged('partner.replay-cursor');
    if (after > cursor && Number.isInteger(latest) && latest > cursor) {
      j.breach('partner.replay-cursor', '6.R8', 'CursorSkipped', `a catch-up replay from after_sequence ${after}, while the partner had taken in events only through ${cursor}`, 'catch up with GET /events from the stored cursor');
    }
  }
  const cursor = response?.cursor;
  if (e.status === 200 && Number.isInteger(cursor?.next_after_sequence)) {
    stream.walks.set(key, { after, next: cursor.next_after_sequence, hasMore: cursor.has_more === true });
    if (catchUp && (stream.partnerSeenThrough === null || after <= stream.partnerSeenThrough)) seenThrough(j, cursor.next_after_sequence);
  }
}

/** §4.8 rule 9: after a snapshot the partner's cursor is the snapshot's watermark. */
export function judgePartnerSnapshot(j: Judgement): void {
  const watermark = j.response?.data?.sequence;
  if (j.e.status === 200 && Number.isInteger(watermark)) seenThrough(j, watermark);
}

/** §5.4: the partner answered 2xx to a delivery whose signature does not verify with the webhook secret: it accepted a forgery. */
export function judgePartnerAnswer(j: Judgement): void {
  const { e } = j;
  const sequence = j.request?.sequence;
  if (e.status !== null && e.status >= 200 && e.status < 300 && Number.isInteger(sequence)) seenThrough(j, sequence);
  if (j.secrets.length === 0 || e.status === null) return;
  j.judged('partner.forgery-refused');
  const verdict = verifySignature(e.requestHeaders[SIGNATURE_HEADER.toLowerCase()], e.requestBody, j.secrets, Math.floor(startOf(e) / 1000), j.toleranceSeconds);
  if (!verdict.ok && e.status >= 200 && e.status < 300) {
    j.breach('partner.forgery-refused', '5.R4', 'ForgeryAccepted', `a delivery whose signature is ${verdict.reason} answered ${e.status}`, 'verify X-Service-Signature and refuse what does not verify');
  }
}
