/**
 * What is wrong with one webhook delivery, judged from the delivery alone and
 * the highest sequence delivered before it (§2.6 posted, §5.4 signature,
 * §6.3 X-Service-Integration, §6.2 sequence order), and how each problem is
 * reported: the failure's noun, what the document says, the clause. The
 * suite's loopback receiver and watch (the traffic monitor) judge with these
 * same functions.
 */
import { INTEGRATION_HEADER, SIGNATURE_HEADER, type Verdict } from './signature.ts';

/** What was wrong with a delivery: the breach, in the receiver's words. */
export type DeliveryProblem =
  | { kind: 'bad-signature'; detail: string }
  | { kind: 'stale-timestamp'; detail: string }
  | { kind: 'missing-integration-header'; detail: string }
  | { kind: 'wrong-integration-header'; detail: string }
  | { kind: 'out-of-order'; detail: string }
  | { kind: 'not-posted'; detail: string };

/**
 * The problems of one delivery given what came before it: its HTTP method
 * (§2.6: envelopes are posted), `verdict` of its signature, the
 * X-Service-Integration value (`header`, null when missing) against `slug`
 * (not judged when undefined), and its sequence against the highest sequence
 * delivered before it.
 */
export function deliveryProblems(method: string, verdict: Verdict, header: string | null, slug: string | undefined, sequence: number | null, highest: number | null): DeliveryProblem[] {
  const problems: DeliveryProblem[] = [];
  if (method !== 'POST') problems.push({ kind: 'not-posted', detail: `sent with ${method}, not POST` });
  if (!verdict.ok) {
    problems.push(verdict.reason === 'stale'
      ? { kind: 'stale-timestamp', detail: 'the signature timestamp is outside the tolerance of the receiver clock' }
      : { kind: 'bad-signature', detail: verdict.reason === 'mismatch' ? 'no v1 value verifies with the webhook secret' : `the ${SIGNATURE_HEADER} header is ${verdict.reason}` });
  }
  if (slug !== undefined) {
    if (header === null) problems.push({ kind: 'missing-integration-header', detail: `no ${INTEGRATION_HEADER} header` });
    else if (header !== slug) problems.push({ kind: 'wrong-integration-header', detail: `${INTEGRATION_HEADER}: ${header}, not the slug ${slug}` });
  }
  if (sequence !== null && highest !== null && sequence < highest) {
    problems.push({ kind: 'out-of-order', detail: `sequence ${sequence} arrived after sequence ${highest}` });
  }
  return problems;
}

/** How each delivery problem is reported: the failure kind, what the document says, the clause. */
export const DELIVERY_BREACHES: Record<DeliveryProblem['kind'], { kind: string; documented: string; clause: string }> = {
  'bad-signature': { kind: 'SignatureInvalid', documented: 'X-Service-Signature t=…,v1=HMAC-SHA256(secret, "t.body") verifying with the webhook secret (check --webhook-secret if every delivery fails)', clause: '5.R4' },
  'stale-timestamp': { kind: 'SignatureStale', documented: 'the signature timestamp is the time of sending, within 300 s of the receiver clock', clause: '2.2.R1' },
  'missing-integration-header': { kind: 'IntegrationHeaderMissing', documented: 'X-Service-Integration: the integration slug on every webhook', clause: '6.R3' },
  'wrong-integration-header': { kind: 'IntegrationHeaderWrong', documented: 'X-Service-Integration: the integration slug on every webhook', clause: '6.R3' },
  'out-of-order': { kind: 'DeliveryOvertook', documented: 'one at a time in sequence order, each waiting for a 2xx', clause: '6.R2a' },
  'not-posted': { kind: 'DeliveryNotPosted', documented: 'the envelope is posted (HTTP POST) to the webhook URL', clause: '2.6.R1' },
};
