/**
 * The rules watch judges traffic by, each on one side with the clauses of
 * spec/clauses.yaml it can observe. A rule is "observed" once traffic gave it
 * something to judge; the report shows per clause observed and held,
 * observed and broken, or not observed.
 */
import type { Side } from './findings.ts';

export interface WatchRule {
  id: string;
  side: Side;
  title: string;
  clauses: string[];
}

export const WATCH_RULES = [
  // Platform: what the API and its deliveries must do (§2, §3.3, §4, §6, §7).
  { id: 'platform.response-conforms', side: 'platform', title: 'Every answer matches spec/openapi.yaml for its operation and status (the suite\'s response check)', clauses: ['4.R2'] },
  { id: 'platform.rate-limit-headers', side: 'platform', title: '429 RATE_LIMITED carries Retry-After and X-RateLimit-* headers', clauses: ['7.E16'] },
  { id: 'platform.sequence-never-reused', side: 'platform', title: 'A sequence names one event across deliveries and replays, and an event id one sequence', clauses: ['1.R3a', '2.5.R2'] },
  { id: 'platform.replay-bytes', side: 'platform', title: 'A delivery and a replay of the same sequence are byte-identical', clauses: ['2.6.R1'] },
  { id: 'platform.replay-page', side: 'platform', title: 'A replay page echoes after_sequence, holds at most limit rows above it in order, and its latest_sequence is not behind', clauses: ['4.6.R3', '4.6.Q2', '4.6.Q1', '4.6.R6'] },
  { id: 'platform.replay-contiguous', side: 'platform', title: 'Replay pages along next_after_sequence skip no event that is not superseded; read with include_superseded and no filter, none at all', clauses: ['4.6.R4'] },
  { id: 'platform.superseded-omitted', side: 'platform', title: 'No superseded row in a default replay', clauses: ['3.3.R2'] },
  { id: 'platform.superseded-never-delivered', side: 'platform', title: 'A superseded event is never delivered; a delivered event is never superseded', clauses: ['3.3.R3', '3.3.T1a'] },
  { id: 'platform.delivery-order', side: 'platform', title: 'Deliveries one at a time, in sequence order', clauses: ['6.R2', '6.R2a'] },
  { id: 'platform.delivery-integration-header', side: 'platform', title: 'X-Service-Integration names the integration on every delivery', clauses: ['6.R3'] },
  { id: 'platform.delivery-signed', side: 'platform', title: 'Every delivery is signed with the webhook secret, timestamped now (needs --webhook-secret)', clauses: ['5.R4', '2.2.R1'] },
  { id: 'platform.idempotent-replay', side: 'platform', title: 'A create replayed under the same key and body answers the original byte for byte; a changed body is IDEMPOTENCY_KEY_REUSED', clauses: ['4.5.R1', '4.5.R1d'] },
  { id: 'platform.duplicate-external-id', side: 'platform', title: 'A create with an existing external_booking_id answers 200 with duplicate: true and the existing booking', clauses: ['4.5.R4'] },
  { id: 'platform.conflict-body', side: 'platform', title: "A create's 409 UNAVAILABLE names the property asked for and the window from check-in to the last night (the suite's judgement)", clauses: ['4.5.R7', '4.5.R7a'] },
  { id: 'platform.valid-query-accepted', side: 'platform', title: 'A query whose numbers and switches the contract accepts (page, per_page, limit, after_sequence, include_superseded), or a sync body it accepts, is not refused with 422 VALIDATION_FAILED', clauses: ['8.L1', '8.L2', '4.4.Q6', '4.6.Q1', '4.6.Q5', '4.7.Q1', '4.7.Q2', '4.7.Q3a'] },
  { id: 'platform.list-page', side: 'platform', title: 'A GET /bookings page echoes page and per_page (1 and 50 when omitted), holds what they leave for it, and names the last page (the suite\'s judgement)', clauses: ['4.4.Q6', '4.4.Q7', '8.L1'] },
  { id: 'platform.reading-changes-nothing', side: 'platform', title: 'Reading events changes nothing: an event replay showed waiting is shown delivered only after a delivery answered 2xx (judged where deliveries pass through watch)', clauses: ['4.6.R11'] },
  { id: 'platform.own-records-only', side: 'platform', title: 'An integration is never shown another integration\'s booking or events', clauses: ['1.V2'] },
  { id: 'platform.snapshot-watermark', side: 'platform', title: 'A snapshot\'s watermark is not behind the events seen before it nor ahead of the sequence read after it', clauses: ['4.8.R7'] },
  // Partner: what an integration must do (§4.5, §4.6, §5, §6, §7).
  { id: 'partner.key-per-attempt', side: 'partner', title: 'A retry reuses its Idempotency-Key with the same body; a new booking gets a new key', clauses: ['4.5.Q2'] },
  { id: 'partner.retry-after-honoured', side: 'partner', title: 'After 429 with Retry-After, the call is not repeated sooner', clauses: ['7.E16'] },
  { id: 'partner.unavailable-not-retried', side: 'partner', title: '409 UNAVAILABLE is not retried as if transient', clauses: ['7.E6'] },
  { id: 'partner.health-check-polling', side: 'partner', title: 'GET /me no more than once a minute', clauses: ['8.C1', '5.R7'] },
  { id: 'partner.replay-cursor', side: 'partner', title: 'A replay walk follows next_after_sequence: the cursor neither skips nor goes backwards', clauses: ['4.6.R4', '6.R8'] },
  { id: 'partner.forgery-refused', side: 'partner', title: 'A delivery whose signature does not verify is not accepted with a 2xx (needs --webhook-secret)', clauses: ['5.R4'] },
] as const satisfies readonly WatchRule[];

export type RuleId = (typeof WATCH_RULES)[number]['id'];

/** The rule with this id. */
const BY_ID = new Map<RuleId, WatchRule>(WATCH_RULES.map((r) => [r.id, r]));

export function ruleOf(id: RuleId): WatchRule {
  return BY_ID.get(id)!;
}
