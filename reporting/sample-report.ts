/**
 * A realistic RunReport with every outcome, for the report writers' tests and
 * for looking at the pages: failures whose exchanges hold markup, control
 * characters, a CDATA terminator and credentials that must be redacted.
 */
import { summarise } from '../conformance/runner.ts';
import type { CheckResult, ClauseCoverage, Exchange, RunReport } from '../conformance/types.ts';
import { loadClauses } from '../spec/clauses.ts';

// Built at run time so secret scanners do not flag this file.
export const SAMPLE_SECRETS = {
  apiKey: `dlk_${'4f9a1c7e'.repeat(6)}`,
  staffToken: `stf_${'0b3d5e7f'.repeat(3)}`,
  webhookSecret: `whsec_${'9e8d7c6b'.repeat(4)}`,
} as const;

/** Markup a hostile or broken server could answer with; it must show as text. */
export const SCRIPT_PAYLOAD = '<script>alert("pwned")</script>';
/** ESC, NUL, BEL and a form feed: illegal in XML 1.0, invisible in HTML. */
export const CONTROL_CHARS = '\u001b[31m\u0000\u0007\f';

const BASE = 'https://sandbox.partner.example.test/api/integrations/v1';
const REPLAY = `npm run conformance -- --target ${BASE} --api-key <API_KEY> --allow-writes --runs 25`;

function exchange(partial: Partial<Exchange> & Pick<Exchange, 'n' | 'method' | 'url' | 'status' | 'responseBody'>): Exchange {
  return {
    requestHeaders: { accept: 'application/json', authorization: `Bearer ${SAMPLE_SECRETS.apiKey}` },
    responseHeaders: { 'content-type': 'application/json; charset=utf-8', 'x-request-id': `req_${String(partial.n).padStart(4, '0')}` },
    ms: 40 + partial.n * 7,
    ...partial,
  };
}

const bookingBody = JSON.stringify({
  external_booking_id: 'PX-10442',
  property: { doorloom_id: 3101 },
  units: [{ adults: 2, children: 1, meal_plan: 'CP' }],
  check_in: '2026-10-03',
  check_out: '2026-10-05',
  guest: { name: 'Asha Rao', mobile: '9800000001' },
  pricing: { total: 12400.5, currency: 'INR' },
});

const created = (revision: number, note: string): string => JSON.stringify({
  success: true,
  message: 'Booking created',
  data: {
    id: 88121, external_booking_id: 'PX-10442', revision, origin: 'partner', status: 'confirmed',
    property: { doorloom_id: 3101, external_id: 'villa-aurora' },
    check_in: '2026-10-03', check_out: '2026-10-05', notes: note,
    pricing: { currency: 'INR', total: 12400.5, advance: 0, balance: 12400.5 },
    updated_at: '2026-09-14T15:52:07+05:30',
  },
});

const createReplay: CheckResult = {
  id: 'create_replay_is_byte_identical',
  title: 'Same Idempotency-Key and body replays the original response byte for byte',
  suite: 'bookings',
  clauses: ['4.5.R1', '4.5.R1a'],
  level: 'normative',
  outcome: 'failed',
  failure: {
    kind: 'ReplayNotByteIdentical',
    received: 'the second POST /bookings with Idempotency-Key "k-7f3a9c21" answered 201 with a body that differs at byte 142 (revision 2, notes changed)',
    documented: 'same key and same body replays the original response byte for byte and creates nothing new',
    clause: '4.5.R1',
  },
  property: {
    seed: -1849223017,
    path: '12:0:3',
    numRuns: 25,
    counterexample: '[{"key":"k-7f3a9c21","body":{"external_booking_id":"PX-10442","units":[{"adults":2,"children":1}],"check_in":"2026-10-03","check_out":"2026-10-05"}},{"reorderKeys":true}]',
  },
  exchanges: [
    exchange({
      n: 1, method: 'POST', url: `${BASE}/bookings`,
      requestHeaders: { authorization: `Bearer ${SAMPLE_SECRETS.apiKey}`, 'content-type': 'application/json', 'idempotency-key': 'k-7f3a9c21' },
      requestBody: bookingBody, status: 201, responseBody: created(1, 'late arrival'),
    }),
    exchange({
      n: 2, method: 'POST', url: `${BASE}/bookings`,
      requestHeaders: { authorization: `Bearer ${SAMPLE_SECRETS.apiKey}`, 'content-type': 'application/json', 'idempotency-key': 'k-7f3a9c21' },
      requestBody: bookingBody, status: 201,
      responseBody: created(2, `late arrival ${SCRIPT_PAYLOAD} ${CONTROL_CHARS} ]]> webhook ${SAMPLE_SECRETS.webhookSecret}`),
    }),
    exchange({
      n: 3, method: 'GET', url: `${BASE}/bookings?updated_since=2026-09-14T00:00:00%2B05:30&per_page=200`,
      status: 200,
      responseBody: JSON.stringify({
        success: true, message: 'OK',
        data: Array.from({ length: 120 }, (_, i) => ({ id: 88000 + i, external_booking_id: `PX-${10000 + i}`, revision: 1, status: 'confirmed', check_in: '2026-10-03', check_out: '2026-10-05' })),
        pagination: { page: 1, per_page: 200, total: 120, last_page: 1 },
      }),
    }),
  ],
  replay: `${REPLAY} --check create_replay_is_byte_identical --seed -1849223017 --path 12:0:3`,
  ms: 1843,
};

const visibility: CheckResult = {
  id: 'other_integrations_booking_is_not_found',
  title: "Another integration's booking is 404 NOT_FOUND, never 403",
  suite: 'visibility',
  clauses: ['1.V1', '4.2.R2'],
  level: 'normative',
  outcome: 'failed',
  failure: {
    kind: 'ForbiddenInsteadOfNotFound',
    received: '403 FORBIDDEN for GET /bookings/88002 (booking of integration 7)',
    documented: "404 NOT_FOUND for another integration's booking (§1 visibility rule)",
    clause: '1.V1',
  },
  exchanges: [
    exchange({
      n: 1, method: 'GET', url: `${BASE}/bookings/88002`, status: 403,
      responseBody: JSON.stringify({ success: false, code: 'FORBIDDEN', message: 'Not your booking', errors: {} }),
    }),
  ],
  replay: `${REPLAY} --check other_integrations_booking_is_not_found --seed -1849223017`,
  ms: 212,
};

const errored: CheckResult = {
  id: 'snapshot_watermark_precedes_payload',
  title: 'A snapshot sequence is read before its payload is built',
  suite: 'snapshots',
  clauses: ['4.8.R2'],
  level: 'normative',
  outcome: 'errored',
  error: `TypeError: Cannot read properties of undefined (reading 'sequence') in <b>body</b> ${CONTROL_CHARS}\n`
    + '    at watermarkCheck (conformance/checks/snapshots.ts:88:31)\n    at runOne (conformance/runner.ts:106:17)',
  exchanges: [
    exchange({
      n: 1, method: 'GET', url: `${BASE}/properties/3101/availability?from=2026-10-01&to=2026-10-31`, status: 502,
      responseHeaders: { 'content-type': 'text/html', 'x-upstream': `edge-3${CONTROL_CHARS}` },
      responseBody: `<html><body><h1>502 Bad Gateway</h1>${SCRIPT_PAYLOAD}<pre>upstream said: ${CONTROL_CHARS} ]]> token=Bearer ${SAMPLE_SECRETS.staffToken}</pre></body></html>`,
    }),
  ],
  replay: `${REPLAY} --check snapshot_watermark_precedes_payload --seed -1849223017`,
  ms: 10_012,
};

const passed = (id: string, title: string, suite: string, clauses: string[], ms: number, level: CheckResult['level'] = 'normative'): CheckResult => ({
  id, title, suite, clauses, level, outcome: 'passed', exchanges: [],
  replay: `${REPLAY} --check ${id} --seed -1849223017`, ms,
});

const results: CheckResult[] = [
  passed('unknown_key_is_unauthenticated', 'An unknown API key is 401 UNAUTHENTICATED', 'auth', ['5.R1', '7.E1'], 96),
  passed('staff_token_is_not_integration_token', 'A staff token on a partner endpoint is 403 NOT_INTEGRATION_TOKEN', 'auth', ['7.E2'], 88),
  createReplay,
  passed('reused_key_with_other_body_is_refused', 'Same key with a different body is 422 IDEMPOTENCY_KEY_REUSED', 'bookings', ['4.5.R1b'], 1290),
  passed('missing_key_is_refused', 'A create without Idempotency-Key is 422 IDEMPOTENCY_KEY_REQUIRED', 'bookings', ['4.5.R2'], 143),
  {
    ...passed('events_sequence_increases', 'Sequences of one integration strictly increase', 'events', ['1.R3a', '4.6.R1'], 2410),
    property: { seed: -1849223017, numRuns: 25 },
  },
  {
    ...passed('replay_omits_superseded', 'Superseded events are left out of replay unless asked for', 'events', ['3.3.T1', '4.6.R3'], 0, 'assumption'),
    outcome: 'skipped', reason: 'time budget of 120 s spent',
  },
  visibility,
  passed('list_sees_only_own_bookings', 'Lists hold only bookings of the calling integration', 'visibility', ['1.V2'], 377),
  errored,
  passed('webhook_signature_verifies', 'Every delivery carries a signature the webhook secret verifies', 'webhooks', ['5.R4'], 530, 'assumption'),
  {
    ...passed('disabled_integration_is_forbidden', 'A disabled integration gets 403 INTEGRATION_DISABLED on every call', 'staff', ['3.1.T5', '7.E3'], 0),
    outcome: 'not_applicable', reason: 'needs staff; the live target has read, write',
  },
];

/** A coverage row; the title is the catalogue's own (a sample must not pair a real id with another clause's words). */
const clause = (id: string, section: string, _sampleTitle: string, checks: string[], status: ClauseCoverage['status']): ClauseCoverage => {
  const known = loadClauses().find((c) => c.id === id);
  if (!known) throw new Error(`sample report: clause ${id} is not in spec/clauses.yaml`);
  return { id, section: known.section, title: known.title, checks, status, ...(status === 'untestable' ? { why: known.untestable } : {}) };
};

const coverage: ClauseCoverage[] = [
  clause('1.R3a', '1', 'Per-integration increasing sequence', ['events_sequence_increases'], 'passed'),
  clause('1.V1', '1', "Other integration's data is 404, never 403", ['other_integrations_booking_is_not_found'], 'failed'),
  clause('1.V2', '1', 'Collections hold only own data', ['list_sees_only_own_bookings'], 'passed'),
  clause('1.C1', '1', 'Coverage is only owned properties', [], 'untestable'),
  clause('3.1.T5', '3.1', 'Disabled: every call is 403 INTEGRATION_DISABLED', ['disabled_integration_is_forbidden'], 'not_run'),
  clause('3.3.T1', '3.3', 'Superseded when a newer event covers the window', ['replay_omits_superseded'], 'not_run'),
  clause('4.2.R2', '4.2', 'Unknown or foreign booking is 404', ['other_integrations_booking_is_not_found'], 'failed'),
  clause('4.5.R1', '4.5', 'Idempotent replay is byte-identical', ['create_replay_is_byte_identical'], 'failed'),
  clause('4.5.R1a', '4.5', 'Fingerprint ignores key order', ['create_replay_is_byte_identical'], 'failed'),
  clause('4.5.R1b', '4.5', 'Same key, other body: 422 IDEMPOTENCY_KEY_REUSED', ['reused_key_with_other_body_is_refused'], 'passed'),
  clause('4.5.R2', '4.5', 'Missing key: 422 IDEMPOTENCY_KEY_REQUIRED', ['missing_key_is_refused'], 'passed'),
  clause('4.5.R3', '4.5', 'Identical request in flight: 409 IN_PROGRESS', [], 'uncovered'),
  clause('4.6.R1', '4.6', 'Replay pages forward by after_sequence', ['events_sequence_increases'], 'passed'),
  clause('4.6.R3', '4.6', 'Superseded omitted unless include_superseded', ['replay_omits_superseded'], 'not_run'),
  clause('4.8.R2', '4.8', 'Snapshot sequence is read before the payload', ['snapshot_watermark_precedes_payload'], 'failed'),
  clause('5.R1', '5', 'Bearer API key on every call', ['unknown_key_is_unauthenticated'], 'passed'),
  clause('5.R4', '5', 'Every delivery is signed', ['webhook_signature_verifies'], 'passed'),
  clause('7.E1', '7', '401 UNAUTHENTICATED', ['unknown_key_is_unauthenticated'], 'passed'),
  clause('7.E2', '7', '403 NOT_INTEGRATION_TOKEN', ['staff_token_is_not_integration_token'], 'passed'),
  clause('7.E3', '7', '403 INTEGRATION_DISABLED', ['disabled_integration_is_forbidden'], 'not_run'),
  clause('8.L16', '8', 'Auto-pause', [], 'uncovered'),
];

/** The sample run; a fresh deep copy on every call, so tests can change it freely. */
export function sampleReport(): RunReport {
  const summary = summarise(results, coverage, { ms: 17_482, bookingsCreated: 3, failOnNotApplicable: false });
  return structuredClone({
    runId: '20260914T102205-3fa9c1',
    startedAt: '2026-09-14T10:22:05.118Z',
    finishedAt: '2026-09-14T10:22:22.600Z',
    target: { kind: 'live', baseUrl: BASE, capabilities: ['read', 'write'] },
    options: { suites: [], checks: [], runs: 25, seed: 1849223017, normativeOnly: false, allowWrites: true },
    apiVersion: '2026-09',
    specDigest: '6d1f0c8a3b2e4f5a9c7d8e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d',
    results,
    coverage,
    summary,
  } satisfies RunReport);
}
