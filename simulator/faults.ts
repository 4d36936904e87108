/**
 * Fault injection for mutation testing (`--fault NAME`, refused unless
 * faults are explicitly enabled): the response-level breaches, as one Koa
 * middleware. Domain-level breaches are asked for in the domain itself
 * (simulator/domain/faults.ts names them all).
 */
import type { Context, Middleware } from 'koa';
import { DomainError } from './domain/errors.ts';
import { FAULT_NAMES, type FaultName, type Faults } from './domain/faults.ts';

/** What each fault breaks, for `--fault` help and the mutation report. */
export const FAULT_DESCRIPTIONS: Record<FaultName, string> = {
  'replay-not-byte-identical': 'a replayed create is re-serialised, not byte-identical (§4.5 rule 1)',
  'fingerprint-key-order': 'the fingerprint depends on key order (§4.5 rule 1)',
  'key-reuse-accepted': 'a key reused with a different body creates a new booking (§4.5 rule 1)',
  'refusal-not-stored': 'refusals are not stored under their key (§4.5 rule 1)',
  'duplicate-creates-booking': 'an existing external_booking_id creates a second booking (§4.5 rule 4)',
  'foreign-booking-403': "another integration's booking answers 403 (§1 visibility)",
  'pagination-inside-data': 'GET /bookings nests pagination inside data (§4.4)',
  'per-page-201-accepted': 'per_page 201 is accepted (§4.4, §8)',
  'bad-body-500': 'a malformed JSON body answers 500 (bad input is never 5xx)',
  'no-ratelimit-headers-on-429': '429 RATE_LIMITED lacks the X-RateLimit-* headers (§7)',
  'archived-wrong-code': 'an archived property answers PROPERTY_NOT_MAPPED (§4.5, §7)',
  'envelope-without-errors': 'error envelopes lack `errors` (§7)',
  'unauthenticated-403': 'a missing key answers 403 instead of 401 (§5.5)',
  'list-newest-first': 'GET /bookings is ordered newest first (§4.4)',
  'sequence-reuse': 'every fifth event reuses the previous sequence (§2.5, §6)',
  'cursor-off-by-one': 'a full replay page skips one event via next_after_sequence (§4.6)',
  'superseded-in-replay': 'superseded events appear in default replay (§3.3, §4.6)',
  'supersede-delivered': 'delivered events get superseded too (§3.3)',
  'watermark-after-payload': 'the snapshot watermark is read after the payload, one event too far (§4.8)',
  'snapshot-differs-from-event': 'snapshot data.data is not byte-identical to the event data (§2.7)',
  'sync-charged-before-validation': 'POST /sync charges the interval before validating (§4.7)',
  'chunk-straddles-months': 'sync windows are 30-day chunks straddling calendar months (§4.7)',
  'webhook-overtakes': 'a later event is delivered while an earlier one waits for a retry (§6.2)',
  'signature-wrong-secret': 'deliveries are signed with the wrong secret (§5.4)',
  'ping-consumes-sequence': 'a ping consumes a sequence number (§6.6)',
  'updated-since-ignored': 'GET /bookings ignores updated_since and returns every booking (§4.4)',
  'webhook-pair-swapped': "a create's booking.changed is delivered before its availability.changed (§6.2)",
  'integration-header-missing': 'deliveries lack the X-Service-Integration header (§6.3)',
  'no-retry-after-on-429': '429 RATE_LIMITED lacks the Retry-After header (§7)',
  'balance-ignores-advance': 'pricing.balance is the total, ignoring the advance collected (§2.3)',
  'total-rounded': 'pricing.total is stored in whole rupees, dropping the paise (§4.5: stored as given)',
  'breakdown-keys-sorted': 'pricing.breakdown comes back with its keys sorted, as a normalising JSON column stores it (§4.5: verbatim)',
  'origin-not-partner': 'bookings created through the API carry origin platform (§2.3, §4.5 rule 9)',
  'create-emits-no-availability': 'a create emits booking.changed but no availability.changed (§4.5 rule 9)',
  'check-in-yesterday-refused': 'check_in yesterday is refused; only today onwards is accepted (§4.5)',
  'pinned-unit-swapped': 'a pinned unit that is taken is swapped for a free one (§4.5 rule 6)',
  'conflict-window-includes-checkout': 'the 409 window ends on check_out instead of the last night (§4.5 rule 7)',
  'stay-price-ignored': 'units[].stay_price is ignored: the total is always split evenly (§4.5 rule 5)',
  'snapshot-alias-not-found': 'a snapshot by the partner alias of a property answers 404 (§4.8: platform id or alias)',
  'snapshot-ref-parse-int': 'a snapshot\'s property is read with parseInt, so `101abc` names property 101 instead of 404 (§4.8: the platform id or the alias, nothing else)',
  'event-version-wrong': 'event envelopes carry version 2026-08 (§9)',
  'failures-not-reset': 'webhook.consecutive_failures is not reset by a success (§2.1)',
  'delivered-at-on-failure': 'a failed delivery stamps delivered_at on its event row (§2.6)',
  'manual-pause-recorded-auto': 'a staff pause is recorded with paused_reason auto (§3.1)',
  'replay-acknowledges': 'GET /events marks the undelivered rows it returns as delivered, so they are never pushed (§4.6: processing is not tracked)',
  'booking-id-not-numeric-422': 'GET /bookings/{non-numeric} answers 422 VALIDATION_FAILED, an error part 7 does not map to get (§4.2, §7)',
  'snapshot-unknown-property-422': 'a snapshot of an unknown property answers 422 PROPERTY_NOT_MAPPED instead of 404 NOT_FOUND (§4.8, §7)',
  'content-type-ignored': 'POST /bookings reads the body as JSON whatever its Content-Type (§4.5 headers)',
  'auto-pause-without-six-hours': 'delivery auto-pauses after five consecutive failures, without the six hours of no success (§3.1, §8)',
  'probe-never-resumes': 'a probe answered 2xx leaves delivery paused (§3.1: it resumes automatically)',
  'horizon-ignored': 'availability, rates and restrictions events are pushed for dates beyond horizon_days (§2.1)',
  'max-stay-off-by-one': 'a stay one night over the platform maximum is accepted (§4.5: refused on check_out)',
  'event-id-reused': 'events recorded in the same second share one id (ids made from the clock\'s seconds, no randomness; §2.5)',
  'cap-not-applied': 'availability reports units_cap but counts every free unit as sellable (§2.4)',
  'sync-property-cap-100': 'POST /sync refuses more than 100 properties instead of 500 (§8)',
  'disabled-records-events': 'a disabled integration still gets events recorded for the changes it covers (§3.1: no events are recorded)',
  'subscription-ignored': 'events of every type are recorded whatever webhook.event_types says (§2.1, §6: subscription is by webhook.event_types)',
  'booking-changed-ignores-subscription': 'booking.changed is recorded for an integration whose webhook.event_types leaves it out; the other types follow the subscription (§6: subscription is by webhook.event_types)',
  'booking-changed-window-to-checkout': 'a booking.changed\'s window ends on check_out, not on the last night (spec x-assumption of booking.changed: the stay, check-in to the last night)',
  'unconfigured-events-dropped': 'with no webhook URL the queue is marked delivered, so nothing reaches the endpoint registered later (§2.1: nothing is delivered until one is)',
  'sync-events-log-only': "a full sync's events are written to the log as delivered but never posted to the webhook (§1, §4.7: delivered through the normal webhook path)",
  'sync-reposts-old-events': "a full sync re-posts the property's already-delivered events under their old ids and sequences (§4.6: a redelivery is always a new event with a new sequence)",
  'sync-omits-inventory-and-property': 'a full sync answers all five types but emits only availability, rates and restrictions events (§1: six event types pushed; §4.7)',
  'sync-default-types-availability-only': 'a sync with types omitted syncs availability only (§4.7: omit for all five)',
  'covered-count-brand-wide': "covered_properties counts every property of the brand, uncovered and cohosted ones too (§2.1, §1 coverage)",
  'sync-changed-spelling-refused': 'POST /sync accepts only the short type names: a .changed spelling is 422 VALIDATION_FAILED (§4.7: also accepted)',
  'previous-secret-dropped-early': 'after a webhook secret rotation the previous secret stops signing after 23 hours (§5.4, §8: 24 hours)',
  'previous-secret-kept-late': 'after a webhook secret rotation the previous secret keeps signing for 25 hours (§5.4, §8: 24 hours)',
  'in-progress-as-reused': 'an identical create while the first is still being processed answers 422 IDEMPOTENCY_KEY_REUSED (§4.5 rule 3: 409 IN_PROGRESS)',
  'supersede-partial-overlap': 'an undelivered event is superseded by a newer one that overlaps its window only in part (§3.3: fully covers)',
  'staff-change-not-pushed': 'a booking cancelled or moved by staff records no booking.changed (§6.1: every change to a booking is pushed)',
  'superseded-still-waiting': 'webhook.undelivered_events keeps counting a superseded event as waiting (§2.1, §3.3: it is never delivered)',
  'external-id-129-accepted': 'an external_booking_id of 129 characters is accepted (a length check of <= 129; §4.5, §8: max 128)',
  'api-version-wrong': 'GET /me answers api_version 2026-08 (§2.1, §9: currently 2026-09)',
  'disabled-is-401': "a disabled integration's key answers 401 UNAUTHENTICATED instead of 403 INTEGRATION_DISABLED (§3.1, §5.5)",
  'idempotency-memory-23h': 'idempotency keys are remembered 23 hours, not 24 (§4.5 rule 1, §8)',
  'retention-29-days': 'events are retained 29 days, while retention_days still says 30 (§6.7, §8)',
  'auto-pause-after-5h': 'delivery auto-pauses after five failures with no success for five hours, not six (§3.1, §8)',
  'auto-pause-after-7h': 'delivery auto-pauses only after seven hours of failures, not six (§3.1, §8)',
  'sync-interval-23h': 'a full sync is accepted again 23 hours after the last one, not 24 (§8: one per 24 hours)',
  'sync-cap-7': 'POST /sync allows seven calls a day, not six (§8)',
  'sync-chunks-half-months': 'sync windows are half months (1st-15th, 16th-end): two events per type, property and calendar month (§4.7: one per month)',
  'per-page-200-refused': 'GET /bookings refuses per_page 200 with 422: the maximum is read as exclusive (§4.4, §8: 1 to 200)',
  'per-page-clamped-100': 'GET /bookings clamps per_page above 100 to 100, a framework page-size cap (§4.4, §8: up to 200)',
  'per-page-default-25': 'GET /bookings without per_page serves pages of 25 (§4.4, §8: default 50)',
  'events-default-limit-50': 'GET /events without limit serves pages of 50 (§4.6, §8: default 100)',
  'events-limit-clamped-100': 'GET /events clamps limit above 100 to 100 rows (§4.6, §8: up to 200)',
  'snapshot-731-accepted': 'a snapshot with `to` 731 days ahead is accepted: the horizon is counted one day long (§4.8, §8: at most 730)',
  'idempotency-key-max-127': 'an Idempotency-Key of exactly 128 characters is 422 IDEMPOTENCY_KEY_REQUIRED (§4.5, §8: 8 to 128)',
  'units-max-19': 'a create with 20 units is 422 VALIDATION_FAILED on units (§4.5, §8: 1 to 20)',
  'adults-max-49': 'a unit with 50 adults is 422 VALIDATION_FAILED on its adults (§4.5, §8: 1 to 50)',
  'external-id-max-127': 'an external_booking_id of exactly 128 characters is 422 VALIDATION_FAILED (§4.5, §8: max 128)',
  'guest-name-max-254': 'a guest.name of exactly 255 characters is 422 VALIDATION_FAILED (§4.5, §8: max 255)',
  'notes-2000-refused': 'notes of exactly 2000 characters are 422 VALIDATION_FAILED (§4.5, §8: max 2000)',
  'children-default-1': 'a unit without children counts one child (§4.5: children default 0)',
  'status-default-pending': 'a create without status makes a pending booking (§3.2, §4.5: default confirmed)',
  'currency-default-null': 'a create without pricing.currency stores currency null (§2.3: pricing.currency INR)',
  'phone-code-default-empty': 'a create without guest.phone_code stores an empty phone_code (§4.5: default +91)',
  'phone-code-always-default': 'guest.phone_code is stored as +91 whatever was sent: the default applied over a value (§4.5: default +91 when omitted)',
  'pending-holds-nothing': 'a pending create holds no inventory and emits no availability.changed (§3.2: inventory held; same events)',
  'filter-check-in-to-exclusive': 'GET /bookings check_in_to leaves out bookings checking in on that date (§4.4: the latest check-in, inclusive)',
  'status-filter-ignored': 'GET /bookings ignores the status filter (§4.4)',
  'conflict-emits-availability': 'a create refused 409 UNAVAILABLE still records an availability.changed event for its stay (§4.5 rule 7: nothing written)',
  'unit-alias-any-property': "a unit alias is looked up across the integration's properties, so another property's unit is booked instead of 422 UNIT_NOT_MAPPED (§4.5, §7)",
  'watermark-unset': "snapshots carry data.sequence 0, the watermark never read, so a partner re-applies every event (\u00a74.8)",
  'errors-text-plain': "error envelopes are answered with Content-Type text/plain, a hand-written error path, so a client going by the media type cannot read them (\u00a74, \u00a77)",
  'updated-since-offset-dropped': "updated_since drops a timestamp's UTC offset and reads it as UTC, so +05:30 selects bookings five and a half hours off (\u00a74.4)",
  'external-lookup-max-127': "GET /bookings/external/{id} answers 404 for an external id of 128 characters, which a create accepts (\u00a74.3, \u00a78)",
  'supersede-across-types': "a newer event supersedes an undelivered event of another type on the same property and nights, so restrictions are lost under a rates change (\u00a73.3)",
  'supersede-across-bookings': "a newer booking.changed supersedes an undelivered booking.changed of another booking whose stay it covers, so that booking's change is never delivered (\u00a73.3, x-assumption on booking.changed)",
  'sync-cap-retry-after-1s': "the sync cap's 429 RATE_LIMITED says Retry-After 1 whatever is left of the day, so a partner that honours it is refused again (\u00a77, \u00a78)",
  'webhook-put': "webhooks are sent with PUT instead of POST, so an endpoint that takes POST only never gets them (\u00a72.6)",
  'unanswered-delivered': "a post the endpoint never answers (time-out) is taken as delivered, so the next event goes out and the unanswered one is never sent again (\u00a76)",
  'delivered-at-never-shown': "replay shows delivered_at null on every row, delivered ones included, so a partner cannot tell when an event was accepted (\u00a72.6)",
  'retention-sweeps-one': "the retention sweep lets one expired event go per read, so older ones stay replayable past 30 days (\u00a76, \u00a78)",
  'sync-types-ignored': "POST /sync queues all five types whatever the body names, and says so in data.types (\u00a74.7)",
  'split-remainder-misplaced': 'the even split gives the rounding remainder to every unit but the last, so from three units the parts no longer add up to the total (§4.5 rule 5)',
  'key-expiry-left-to-sweep': 'an idempotency key past its 24 hours is honoured until a sweep removes its record; a clock step sweeps only at its start (§4.5 rule 1, §8: keys are remembered 24 hours)',
  'retention-uncounts-delivered': 'every event leaving retention is taken off webhook.undelivered_events, delivered ones too, so after a healthy month the count is below 0 (§2.1: events waiting or being retried, 0 when healthy)',
  'in-flight-escapes-supersession': 'an event in flight when a newer event covering it is recorded leaves the supersedable set, so when its attempt fails it is delivered after all instead of superseded (§3.3)',
  'webhook-secret-unprefixed': 'a rotated webhook secret is minted without its whsec_ prefix (§2.2: a string with prefix whsec_)',
  'auto-pause-on-six-hours-alone': 'delivery auto-pauses at any failure six hours after the first, whatever the count: after a stretch with no webhook URL it pauses at the second failure (§3.1, §8: five consecutive failures)',
  'beyond-horizon-clipped': "a change wholly beyond the horizon is pushed with its window clipped to the horizon's last day, so it ends before it starts (\u00a72.1)",
  'dot-segments-resolved': 'the request path is normalised as a URL parser and a non-strict router do before routing: `.` and `..` segments (and %2E spellings) are removed, so GET /bookings/external/.. answers the booking list (\u00a74.2, \u00a74.3, \u00a74.8: the segment is the id)',
  'stepped-clock-fails-unsent': 'when the control plane moves the clock past an attempt by more than the delivery time-out, the attempt is recorded failed (timed out) without being posted (\u00a72.1, \u00a76.2: a failed delivery is one the endpoint did not answer 2xx)',
  'snapshot-alias-any-integration': "a snapshot's partner alias is looked up among every property, so another integration's alias answers that property's snapshot instead of 404 (\u00a71, \u00a74.8)",
  'create-alias-any-integration': "a create's property.external_id is looked up among every property, so another integration's alias books that property instead of 422 PROPERTY_NOT_MAPPED (\u00a71, \u00a74.5, \u00a77)",
  'idempotency-key-global': "Idempotency-Keys are one namespace for every integration, so another integration's key replays its answer or is 422 IDEMPOTENCY_KEY_REUSED (\u00a71, \u00a74.5 rule 1)",
  'external-id-global': "external_booking_id is unique platform-wide, so a create reusing another integration's id answers 200 duplicate with that integration's booking (\u00a71, \u00a72.3, \u00a74.5 rule 4: unique within the integration)",
  'sync-foreign-property-accepted': "POST /sync accepts any platform property in property_ids, another integration's too, instead of 422 PROPERTY_NOT_MAPPED (\u00a71, \u00a74.7: each covered by the integration)",
  'events-filter-any-integration': "GET /events?property_id= of a property the integration does not cover reads the events every integration holds for it (\u00a71, \u00a74.6)",
  'refs-disagree-accepted': "POST /bookings books the property named by property.doorloom_id when property.external_id names another: one of the two references is ignored (spec x-assumption on BookingCreateRequest: both given must name the same property, else 422 PROPERTY_NOT_MAPPED)",
  'per-page-200-short-by-one': "GET /bookings at per_page 200 serves 199 bookings while more follow: the page is read with a look-ahead row under a hard LIMIT 200, which eats the last booking (\u00a74.4, \u00a78: 1 to 200)",
};

export { FAULT_NAMES };

export function faultMiddleware(faults: Faults): Middleware {
  return async (ctx, next) => {
    // A release behind a URL-normalising, non-strict router: dot segments (WHATWG: `.`, `..`, `%2e` in any case and mix)
    // resolved before routing, and the trailing slash that leaves ignored.
    if (faults.has('dot-segments-resolved')) ctx.path = new URL(ctx.path, 'http://platform.invalid').pathname.replace(/(.)\/$/, '$1');
    if (faults.has('per-page-201-accepted') && ctx.method === 'GET' && ctx.path.endsWith('/bookings') && ctx.query.per_page === '201') {
      ctx.query = { ...ctx.query, per_page: '200' };
    }
    rewriteQuery(faults, ctx);
    if (faults.has('content-type-ignored') && ctx.method === 'POST' && ctx.path.endsWith('/bookings')) ctx.req.headers['content-type'] = 'application/json';
    try {
      await next();
    } catch (e) {
      if (faults.has('bad-body-500') && e instanceof DomainError && JSON.stringify(e.errors).includes('not valid JSON')) {
        ctx.status = 500;
        ctx.body = '{"success":false,"code":"SERVER_ERROR","message":"Server error.","errors":{}}';
        return;
      }
      throw e;
    }
    if (typeof ctx.body !== 'string' || ctx.body === '') return;
    let body: any;
    try {
      body = JSON.parse(ctx.body);
    } catch {
      return;
    }
    const before = ctx.body;
    if (faults.has('bad-body-500') && ctx.status === 422 && JSON.stringify(body.errors ?? {}).includes('not valid JSON')) {
      ctx.status = 500;
      body = { success: false, code: 'SERVER_ERROR', message: 'Server error.', errors: {} };
    }
    if (faults.has('pagination-inside-data') && body.pagination && Array.isArray(body.data)) {
      body = { success: true, message: body.message, data: { items: body.data, pagination: body.pagination } };
    }
    if (faults.has('list-newest-first') && ctx.method === 'GET' && ctx.path.endsWith('/bookings') && Array.isArray(body.data)) body.data.reverse();
    if (faults.has('no-ratelimit-headers-on-429') && ctx.status === 429) {
      for (const h of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) ctx.remove(h);
    }
    if (faults.has('no-retry-after-on-429') && ctx.status === 429) ctx.remove('Retry-After');
    if (faults.has('archived-wrong-code') && body.code === 'PROPERTY_ARCHIVED') body.code = 'PROPERTY_NOT_MAPPED';
    if (faults.has('envelope-without-errors') && body.success === false) delete body.errors;
    if (faults.has('unauthenticated-403') && ctx.status === 401) ctx.status = 403;
    if (faults.has('booking-id-not-numeric-422') && ctx.status === 404 && /\/bookings\/[^/]*[^0-9/][^/]*$/.test(ctx.path) && !ctx.path.includes('/bookings/external/')) {
      ctx.status = 422;
      body = { success: false, code: 'VALIDATION_FAILED', message: 'The request failed validation.', errors: { doorloom_id: ['Must be an integer.'] } };
    }
    if (faults.has('snapshot-unknown-property-422') && ctx.status === 404 && /\/properties\/[^/]+\/(availability|rates|restrictions)$/.test(ctx.path)) {
      ctx.status = 422;
      body = { success: false, code: 'PROPERTY_NOT_MAPPED', message: 'The property is not mapped to this integration.', errors: {} };
    }
    const after = JSON.stringify(body);
    if (after !== JSON.stringify(JSON.parse(before))) {
      const status = ctx.status;
      ctx.body = after;
      ctx.status = status;
    }
    if (faults.has('errors-text-plain') && body.success === false) ctx.type = 'text/plain';
  };
}

/**
 * Create-body limits one short of the contract's (spec/openapi.yaml holds
 * the rule; this is the refusal a release with a smaller column or a stricter
 * validator adds to it). Asked for where the body is validated.
 */
export function bodyLimitFault(faults: Faults, body: unknown): { code: 'VALIDATION_FAILED'; errors: Record<string, string[]> } | null {
  if (body === null || typeof body !== 'object') return null;
  const b = body as { external_booking_id?: unknown; units?: unknown; guest?: { name?: unknown }; notes?: unknown };
  const errors: Record<string, string[]> = {};
  const longest = (value: unknown, max: number) => typeof value === 'string' && value.length > max;
  if (faults.has('units-max-19') && Array.isArray(b.units) && b.units.length > 19) errors.units = ['Must have at most 19 items.'];
  if (faults.has('adults-max-49') && Array.isArray(b.units)) {
    b.units.forEach((u: { adults?: unknown }, i) => {
      if (typeof u?.adults === 'number' && u.adults > 49) errors[`units.${i}.adults`] = ['Must be at most 49.'];
    });
  }
  if (faults.has('external-id-max-127') && longest(b.external_booking_id, 127)) errors.external_booking_id = ['Must be at most 127 characters.'];
  if (faults.has('guest-name-max-254') && longest(b.guest?.name, 254)) errors['guest.name'] = ['Must be at most 254 characters.'];
  if (faults.has('notes-2000-refused') && longest(b.notes, 1999)) errors.notes = ['Must be shorter than 2000 characters.'];
  return Object.keys(errors).length > 0 ? { code: 'VALIDATION_FAILED', errors } : null;
}

/** Query limits and defaults off by a little: the query is rewritten before the contract reads it. */
function rewriteQuery(faults: Faults, ctx: Context): void {
  if (ctx.method !== 'GET') return;
  const q = ctx.query;
  const within = (v: unknown, low: number, high: number) => typeof v === 'string' && /^[0-9]+$/.test(v) && Number(v) > low && Number(v) <= high;
  if (ctx.path.endsWith('/bookings')) {
    // Read as `per_page < 200`: the validator refuses 200 as it refuses 201.
    if (faults.has('per-page-200-refused') && q.per_page === '200') ctx.query = { ...q, per_page: '201' };
    if (faults.has('per-page-clamped-100') && within(q.per_page, 100, 200)) ctx.query = { ...q, per_page: '100' };
    if (faults.has('per-page-default-25') && q.per_page === undefined) ctx.query = { ...q, per_page: '25' };
  }
  if (ctx.path.endsWith('/events')) {
    if (faults.has('events-default-limit-50') && q.limit === undefined) ctx.query = { ...q, limit: '50' };
    if (faults.has('events-limit-clamped-100') && within(q.limit, 100, 200)) ctx.query = { ...q, limit: '100' };
  }
}
