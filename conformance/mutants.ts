/**
 * Mutation testing: the suites must fail a broken implementation. Each
 * simulator fault breaks one rule; the check that should catch it is named
 * here. The score is faults detected by their check over all faults.
 */
import { FAULT_DESCRIPTIONS, FAULT_NAMES } from '../simulator/faults.ts';
import type { FaultName } from '../simulator/domain/faults.ts';
import { runConformance, type ConformanceOptions } from './runner.ts';
import type { CheckResult } from './types.ts';

/** The check each fault must make fail. */
export const DETECTED_BY: Record<FaultName, string> = {
  'replay-not-byte-identical': 'idempotency.replay-byte-for-byte',
  'fingerprint-key-order': 'idempotency.key-order-irrelevant',
  'key-reuse-accepted': 'idempotency.reuse-with-any-change-refused',
  'refusal-not-stored': 'idempotency.refusal-replayed',
  'duplicate-creates-booking': 'idempotency.duplicate-external-id',
  'foreign-booking-403': 'visibility.foreign-booking-is-404',
  'pagination-inside-data': 'pagination.totals-and-order',
  'per-page-201-accepted': 'pagination.per-page-limits',
  'bad-body-500': 'validation.never-5xx',
  'no-ratelimit-headers-on-429': 'auth.rate-limited-headers',
  'archived-wrong-code': 'validation.domain-refusals',
  'envelope-without-errors': 'schema.error-envelope',
  'unauthenticated-403': 'auth.missing-key-is-401',
  'list-newest-first': 'pagination.totals-and-order',
  'sequence-reuse': 'sequencing.strictly-increasing',
  'cursor-off-by-one': 'sequencing.paging-exactly-once',
  'superseded-in-replay': 'sequencing.paging-exactly-once',
  'supersede-delivered': 'supersession.only-undelivered',
  'watermark-after-payload': 'watermark.later-events-converge',
  'snapshot-differs-from-event': 'watermark.payload-equals-event',
  'sync-charged-before-validation': 'sync.validation-before-charge',
  'chunk-straddles-months': 'sync.monthly-chunks',
  'webhook-overtakes': 'webhooks.ordered-under-failures',
  'signature-wrong-secret': 'webhooks.signed',
  'ping-consumes-sequence': 'webhooks.ping-consumes-no-sequence',
  'updated-since-ignored': 'pagination.updated-since-filters',
  'webhook-pair-swapped': 'webhooks.live-deliveries',
  'integration-header-missing': 'webhooks.live-deliveries',
  'no-retry-after-on-429': 'auth.rate-limited-headers',
  'balance-ignores-advance': 'booking.balance-on-every-read',
  'total-rounded': 'booking.stored-as-sent',
  'breakdown-keys-sorted': 'booking.stored-as-sent',
  'origin-not-partner': 'booking.success-emits-events',
  'create-emits-no-availability': 'booking.success-emits-events',
  'check-in-yesterday-refused': 'booking.check-in-boundaries',
  'pinned-unit-swapped': 'booking.pinned-never-swapped',
  'conflict-window-includes-checkout': 'booking.conflict-body',
  'stay-price-ignored': 'booking.pricing-split',
  'snapshot-alias-not-found': 'watermark.property-and-window',
  'snapshot-ref-parse-int': 'watermark.property-and-window',
  'event-version-wrong': 'sequencing.strictly-increasing',
  'failures-not-reset': 'webhooks.ordered-under-failures',
  'delivered-at-on-failure': 'webhooks.ordered-under-failures',
  'manual-pause-recorded-auto': 'webhooks.manual-pause',
  'replay-acknowledges': 'sequencing.reading-changes-nothing',
  'booking-id-not-numeric-422': 'schema.error-mapping',
  'snapshot-unknown-property-422': 'schema.error-mapping',
  'content-type-ignored': 'schema.error-mapping',
  'auto-pause-without-six-hours': 'webhooks.auto-pause-and-probe',
  'probe-never-resumes': 'webhooks.auto-pause-and-probe',
  'horizon-ignored': 'sequencing.horizon-respected',
  'max-stay-off-by-one': 'booking.maximum-stay',
  'event-id-reused': 'sequencing.strictly-increasing',
  'cap-not-applied': 'watermark.cap-and-block',
  'sync-property-cap-100': 'sync.property-cap',
  'disabled-records-events': 'integration.disabled-by-staff',
  'subscription-ignored': 'integration.subscription-narrowed',
  'booking-changed-ignores-subscription': 'integration.subscription-narrowed',
  'booking-changed-window-to-checkout': 'supersession.booking-changed-per-booking',
  'unconfigured-events-dropped': 'integration.no-webhook-no-delivery',
  'sync-events-log-only': 'sync.pushed-to-webhook',
  'sync-reposts-old-events': 'sync.pushed-to-webhook',
  'sync-omits-inventory-and-property': 'sync.pushed-to-webhook',
  'sync-default-types-availability-only': 'sync.empty-body-means-everything',
  'covered-count-brand-wide': 'sync.empty-body-means-everything',
  'sync-changed-spelling-refused': 'sync.changed-spellings-accepted',
  'previous-secret-dropped-early': 'webhooks.rotation-dual-signature',
  'previous-secret-kept-late': 'webhooks.rotation-dual-signature',
  'in-progress-as-reused': 'idempotency.in-progress',
  'supersede-partial-overlap': 'supersession.covered-and-omitted',
  'staff-change-not-pushed': 'model.partner-and-staff-commands',
  'superseded-still-waiting': 'supersession.covered-and-omitted',
  'external-id-129-accepted': 'validation.external-id-length',
  'api-version-wrong': 'schema.read-operations-conform',
  'disabled-is-401': 'auth.disabled-is-403',
  'idempotency-memory-23h': 'idempotency.keys-remembered-24h',
  'retention-29-days': 'sequencing.retention-30-days',
  'auto-pause-after-5h': 'webhooks.auto-pause-and-probe',
  'auto-pause-after-7h': 'webhooks.auto-pause-and-probe',
  'sync-interval-23h': 'sync.interval-24-hours',
  'sync-cap-7': 'sync.interval-and-cap',
  'sync-chunks-half-months': 'sync.monthly-chunks',
  'per-page-200-refused': 'pagination.per-page-limits',
  'per-page-clamped-100': 'pagination.per-page-limits',
  'per-page-default-25': 'pagination.per-page-limits',
  'events-default-limit-50': 'sequencing.replay-limits',
  'events-limit-clamped-100': 'sequencing.replay-limits',
  'snapshot-731-accepted': 'watermark.window-limits',
  'idempotency-key-max-127': 'idempotency.key-required',
  'units-max-19': 'validation.units-per-booking',
  'adults-max-49': 'validation.field-rules',
  'external-id-max-127': 'validation.field-rules',
  'guest-name-max-254': 'validation.field-rules',
  'notes-2000-refused': 'validation.field-rules',
  'children-default-1': 'validation.create-defaults',
  'status-default-pending': 'validation.create-defaults',
  'currency-default-null': 'validation.create-defaults',
  'phone-code-default-empty': 'validation.create-defaults',
  'phone-code-always-default': 'validation.field-rules',
  'pending-holds-nothing': 'validation.field-rules',
  'filter-check-in-to-exclusive': 'validation.valid-queries-accepted',
  'status-filter-ignored': 'validation.valid-queries-accepted',
  'conflict-emits-availability': 'booking.conflict-body',
  'unit-alias-any-property': 'validation.domain-refusals',
  'watermark-unset': 'watermark.later-events-converge',
  'errors-text-plain': 'schema.error-envelope',
  'updated-since-offset-dropped': 'pagination.updated-since-filters',
  'external-lookup-max-127': 'validation.field-rules',
  'supersede-across-types': 'supersession.same-type-only',
  'supersede-across-bookings': 'supersession.booking-changed-per-booking',
  'sync-cap-retry-after-1s': 'sync.interval-and-cap',
  'webhook-put': 'webhooks.live-deliveries',
  'unanswered-delivered': 'webhooks.unanswered-is-a-failure',
  'delivered-at-never-shown': 'webhooks.ordered-under-failures',
  'retention-sweeps-one': 'sequencing.retention-30-days',
  'sync-types-ignored': 'sync.interval-24-hours',
  'beyond-horizon-clipped': 'sequencing.horizon-respected',
  'dot-segments-resolved': 'visibility.dot-segment-ids',
  'stepped-clock-fails-unsent': 'webhooks.no-failure-without-attempt',
  'split-remainder-misplaced': 'booking.pricing-split',
  'key-expiry-left-to-sweep': 'idempotency.keys-remembered-24h',
  'retention-uncounts-delivered': 'webhooks.undelivered-count-through-retention',
  'in-flight-escapes-supersession': 'supersession.in-flight-then-failed',
  'webhook-secret-unprefixed': 'webhooks.rotation-dual-signature',
  'auto-pause-on-six-hours-alone': 'webhooks.auto-pause-at-five-after-no-url',
  'snapshot-alias-any-integration': 'visibility.foreign-alias-names-nothing',
  'create-alias-any-integration': 'visibility.foreign-alias-names-nothing',
  'idempotency-key-global': 'visibility.idempotency-key-per-integration',
  'external-id-global': 'visibility.external-id-per-integration',
  'sync-foreign-property-accepted': 'visibility.sync-foreign-property-422',
  'events-filter-any-integration': 'visibility.foreign-property-events-hidden',
  'per-page-200-short-by-one': 'pagination.full-pages-when-more-follow',
  'refs-disagree-accepted': 'validation.references-agree',
};

export interface MutantResult {
  fault: FaultName;
  description: string;
  check: string;
  detected: boolean;
  /** Every check that failed under this fault. */
  failedChecks: string[];
  /** The clause the detecting check's failure named (none when it was not detected). */
  clause: string | null;
  /** When it was not detected: the expected check's outcome and why (its reason or error), so a miss says what happened. */
  missed?: string;
}

/** Runs the expected check (or, with `full`, the whole catalogue) against each fault. */
export async function runMutants(options: Pick<ConformanceOptions, 'runs' | 'seed'> & { full?: boolean; faults?: FaultName[] } = {}): Promise<{ results: MutantResult[]; score: number }> {
  const results: MutantResult[] = [];
  for (const fault of options.faults ?? FAULT_NAMES) {
    const check = DETECTED_BY[fault];
    const report = await runConformance({ target: 'in-process', fault, runs: options.runs ?? 15, seed: options.seed, checks: options.full ? undefined : [check] });
    const failedChecks = report.results.filter((r) => r.outcome === 'failed').map((r) => r.id);
    const clause = report.results.find((r) => r.id === check && r.outcome === 'failed')?.failure?.clause || null;
    results.push({ fault, description: FAULT_DESCRIPTIONS[fault], check, detected: failedChecks.includes(check), failedChecks, clause, ...missed(report.results, check) });
  }
  return { results, score: results.filter((r) => r.detected).length / results.length };
}

/** `missed` of a MutantResult: the expected check's outcome and the first line of its reason or error, unless it failed. */
export function missed(results: CheckResult[], check: string): { missed?: string } {
  const own = results.find((r) => r.id === check);
  if (!own || own.outcome === 'failed') return {};
  const why = (own.reason ?? own.error)?.split('\n')[0];
  return { missed: `${own.outcome}${why ? `: ${why}` : ''}` };
}
