/**
 * Deliberate contract breaches, one rule each, for proving that the
 * conformance suites can fail (mutation testing). Off unless the simulator is
 * started with them; the domain asks `faults.has(name)` at the one place each
 * rule lives.
 */
export const FAULT_NAMES = [
  'replay-not-byte-identical',
  'fingerprint-key-order',
  'key-reuse-accepted',
  'refusal-not-stored',
  'duplicate-creates-booking',
  'foreign-booking-403',
  'pagination-inside-data',
  'per-page-201-accepted',
  'bad-body-500',
  'no-ratelimit-headers-on-429',
  'archived-wrong-code',
  'envelope-without-errors',
  'unauthenticated-403',
  'list-newest-first',
  'sequence-reuse',
  'cursor-off-by-one',
  'superseded-in-replay',
  'supersede-delivered',
  'watermark-after-payload',
  'snapshot-differs-from-event',
  'sync-charged-before-validation',
  'chunk-straddles-months',
  'webhook-overtakes',
  'signature-wrong-secret',
  'ping-consumes-sequence',
  'updated-since-ignored',
  'webhook-pair-swapped',
  'integration-header-missing',
  'no-retry-after-on-429',
  'balance-ignores-advance',
  'total-rounded',
  'breakdown-keys-sorted',
  'origin-not-partner',
  'create-emits-no-availability',
  'check-in-yesterday-refused',
  'pinned-unit-swapped',
  'conflict-window-includes-checkout',
  'stay-price-ignored',
  'snapshot-alias-not-found',
  'event-version-wrong',
  'failures-not-reset',
  'delivered-at-on-failure',
  'manual-pause-recorded-auto',
  'replay-acknowledges',
  'booking-id-not-numeric-422',
  'snapshot-unknown-property-422',
  'content-type-ignored',
  'auto-pause-without-six-hours',
  'probe-never-resumes',
  'horizon-ignored',
  'max-stay-off-by-one',
  'event-id-reused',
  'cap-not-applied',
  'sync-property-cap-100',
  'disabled-records-events',
  'subscription-ignored',
  'unconfigured-events-dropped',
  'sync-events-log-only',
  'sync-reposts-old-events',
  'sync-omits-inventory-and-property',
  'sync-default-types-availability-only',
  'covered-count-brand-wide',
  'sync-changed-spelling-refused',
  // Issue 25 item 3: exact limits and defaults (§4, §8), one off-by-one or wrong default each.
  'per-page-200-refused',
  'per-page-clamped-100',
  'per-page-default-25',
  'events-default-limit-50',
  'events-limit-clamped-100',
  'snapshot-731-accepted',
  'idempotency-key-max-127',
  'units-max-19',
  'adults-max-49',
  'external-id-max-127',
  'guest-name-max-254',
  'notes-2000-refused',
  'children-default-1',
  'status-default-pending',
  'currency-default-null',
  'phone-code-default-empty',
  'pending-holds-nothing',
  'filter-check-in-to-exclusive',
  'status-filter-ignored',
  'conflict-emits-availability',
  'unit-alias-any-property',
] as const;
export type FaultName = (typeof FAULT_NAMES)[number];

export interface Faults {
  has(name: FaultName): boolean;
}

export const NO_FAULTS: Faults = { has: () => false };

export function faultSet(names: string[]): Faults {
  const unknown = names.find((n) => !FAULT_NAMES.includes(n as FaultName));
  if (unknown) throw new Error(`unknown fault "${unknown}" (faults: ${FAULT_NAMES.join(', ')})`);
  const set = new Set(names);
  return { has: (name) => set.has(name) };
}
