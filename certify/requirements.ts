/**
 * Every requirement of the API document that falls on the partner and that a
 * certification run grades, with the clause ids it proves. Ids are stable:
 * certificates name them; retire an id rather than reuse it.
 */
import type { Requirement } from './types.ts';

export const REQUIREMENTS: readonly Requirement[] = [
  // ------------------------------------------------------------ receiver
  {
    id: 'receiver.accepts-valid',
    group: 'receiver',
    title: 'Valid signed deliveries are answered 2xx',
    clauses: ['6.R2', '6.R2a'],
    rule: 'Every correctly signed delivery (events and pings) gets a 2xx; the platform waits for it before sending the next event (§6.2). An attempt without an answer within the delivery time-out (not shown; the simulator waits 10 s) is sent again: lateness alone is never graded a refusal, and a delivery never answered in time leaves the requirement not observed.',
    assumption: true,
  },
  {
    id: 'receiver.refuses-bad-signature',
    group: 'receiver',
    title: 'Deliveries whose signature does not verify are refused (4xx)',
    clauses: ['5.R4'],
    rule: 'A delivery with a wrong signature, no signature, or a timestamp outside the tolerance (5 minutes) is refused with a 4xx and not applied.',
    assumption: true,
  },
  {
    id: 'receiver.raw-body-signature',
    group: 'receiver',
    title: 'Signatures are checked over the raw body: any valid JSON form of a delivery is accepted and applied',
    clauses: ['2.2.R1', '6.R2', '6.R4'],
    rule: 'The signature is an HMAC over "<t>.<raw body>" (spec x-assumption), the bytes as received: a correctly signed delivery with insignificant whitespace, \\/ or \\u00e9 escapes, 7840.0 for 7840 or its keys in another order is answered 2xx and its full state applied (§6.2, §6.4), never refused because re-serialising the parsed JSON gives other bytes.',
    assumption: true,
  },
  {
    id: 'receiver.checks-integration',
    group: 'receiver',
    title: 'A delivery naming another integration in X-Service-Integration is refused (4xx)',
    clauses: ['6.R3'],
    rule: 'Each webhook carries X-Service-Integration with the integration slug (§6.3); one naming another integration is not for this receiver.',
    assumption: false,
  },
  {
    id: 'receiver.rotation',
    group: 'receiver',
    title: 'During a secret rotation both signatures are accepted and the new secret is taken into use',
    clauses: ['5.R4', '5.R4a', '8.L17'],
    rule: 'For 24 hours after a rotation each delivery carries two v1= values; the receiver accepts the payload if any matches (§5.4).',
    assumption: false,
  },
  {
    id: 'receiver.redelivery',
    group: 'receiver',
    title: 'A re-sent identical event is accepted harmlessly (2xx)',
    clauses: ['6.R4', '6.R4a'],
    rule: 'Event payloads are full state, so re-applying one is a no-op (§6.4): a redelivered event is acknowledged.',
    assumption: false,
  },
  {
    id: 'receiver.no-regression',
    group: 'receiver',
    title: 'Superseded or older events never regress the partner\'s state',
    clauses: ['3.3.R3', '6.R4a', '6.R4b'],
    rule: 'Superseded events must not be applied (§3.3); an event older than what is held is acknowledged and dropped (apply-if-newer, §6.4), on the webhook and in replay alike.',
    assumption: false,
  },
  // ------------------------------------------------------------ usage
  {
    id: 'usage.idempotency-key',
    group: 'usage',
    title: 'Every create carries a usable Idempotency-Key',
    clauses: ['4.5.Q2', '4.5.R2', '8.L4'],
    rule: 'POST /bookings always sends Idempotency-Key, 8 to 128 characters (§4.5).',
    assumption: false,
  },
  {
    id: 'usage.retry-same-key',
    group: 'usage',
    title: 'A retry of a failed or timed-out create reuses its key with the identical body',
    clauses: ['4.5.R1', '4.5.R1d'],
    rule: 'Same key and same body replays the original answer and creates nothing new (§4.5 rule 1); a retry under a new key or with a changed body is not a retry.',
    assumption: false,
  },
  {
    id: 'usage.new-key-per-booking',
    group: 'usage',
    title: 'A new booking never reuses a key',
    clauses: ['4.5.Q2', '4.5.R1d'],
    rule: 'Each create attempt of a new booking has its own key; a key reused with a different body is refused with IDEMPOTENCY_KEY_REUSED (§4.5).',
    assumption: false,
  },
  {
    id: 'usage.me-interval',
    group: 'usage',
    title: 'GET /me is polled no more than once a minute',
    clauses: ['5.R7', '8.C1'],
    rule: 'GET /me is the health check; it should be polled no more than once a minute (§5.7).',
    assumption: false,
  },
  {
    id: 'usage.retry-after',
    group: 'usage',
    title: 'Retry-After is honoured after a 429',
    clauses: ['7.E16'],
    rule: 'After 429 RATE_LIMITED no call is sent before the Retry-After it names has passed (§7).',
    assumption: false,
  },
  {
    id: 'usage.replay-walk',
    group: 'usage',
    title: 'Replay walks next_after_sequence without gaps or re-reads',
    clauses: ['4.6.R4', '4.6.R5', '6.R8'],
    rule: 'While has_more, the next page is read with after_sequence = next_after_sequence (§4.6). A walk a restart cut short starts again from the stored cursor (§6.8), never below where that walk began; reading a page again is harmless (§6.4).',
    assumption: false,
  },
  {
    id: 'usage.snapshot-watermark',
    group: 'usage',
    title: 'After a snapshot the cursor is its watermark, not "now": events made while it was served are replayed and applied',
    clauses: ['4.8.R7', '4.8.R8', '4.8.R9', '6.R8a'],
    rule: 'data.sequence is read before the snapshot is built; after a snapshot the partner sets its cursor for that property and type to data.sequence, never to the latest sequence read afterwards: events above it (the drill makes one while the answer is held) are replayed and applied on top (§4.8, cold start §6.8).',
    assumption: false,
  },
  {
    id: 'usage.updated-since',
    group: 'usage',
    title: 'Polling by updated_since moves forward',
    clauses: ['6.R9', '4.4.Q1', '4.4.R4'],
    rule: 'The partner stores the highest updated_at processed and polls from it (§6.9). After a restart it polls from the mark it had stored, so what its last poll before the restart read may come again (harmless, §6.4); never from below a mark it had polled from.',
    assumption: false,
  },
  {
    id: 'usage.rotated-key',
    group: 'usage',
    title: 'No calls with a rotated-out API key (beyond a grace of one)',
    clauses: ['5.R3', '7.E1'],
    rule: 'Only one API key is live; after a rotation the previous key is 401 at once (§5.3). One call may discover it; the next must carry the new key.',
    assumption: false,
  },
  {
    id: 'usage.unavailable-final',
    group: 'usage',
    title: 'A 409 UNAVAILABLE is handled as a final refusal',
    clauses: ['4.5.R7', '7.E6', '4.5.R1c'],
    rule: 'No free unit: 409 UNAVAILABLE, nothing written (§4.5 rule 7); the refusal is stored under the key, so re-sending the create can only replay it.',
    assumption: false,
  },
  // ------------------------------------------------------------ recovery
  {
    id: 'recovery.outage-replay',
    group: 'recovery',
    title: 'After a webhook outage the partner catches up by replay from its cursor',
    clauses: ['6.R8', '3.1.R2', '4.6.Q1'],
    rule: 'Ordinary outage: use GET /events from the stored cursor (§6.8).',
    assumption: false,
  },
  {
    id: 'recovery.crash-restart',
    group: 'recovery',
    title: 'After a crash and restart nothing acknowledged is lost and replay resumes at the stored cursor',
    clauses: ['6.R2', '6.R4a', '6.R8', '4.6.Q1', '4.6.R9', '4.6.R11'],
    rule: 'An event answered 2xx is never sent again (§6.2) and cannot be asked for again (§4.6: no acknowledgement endpoint, no resend; the service does not track what the partner processed), so it is stored before the 2xx. A restarted partner replays GET /events from its stored cursor (§6.8), not from 0 and not from the newest sequence, applying only what is newer (§6.4). Graded by killing the partner (SIGKILL to its process group, --partner-command) while deliveries are in flight and starting it again with the same command.',
    assumption: false,
  },
];

export function requirement(id: string): Requirement {
  const found = REQUIREMENTS.find((r) => r.id === id);
  if (!found) throw new Error(`unknown certification requirement "${id}"`);
  return found;
}
