/**
 * The other reading of a place where the API document is in tension with
 * itself (spec/clauses.yaml notes). The simulator follows one reading by
 * default; `--reading NAME` switches to the other, so the conformance suite
 * can be shown to pass against a platform that reads the document the other
 * plausible way (a check that fails there is tuned to our habits, not to
 * the document). Readings are not breaches: unlike faults, they need no
 * confirmation flag.
 */
export const READINGS = {
  // 1.V1 note: §1's "every endpoint" over §7's /events mapping.
  'events-foreign-property-404': "GET /events?property_id= naming a property the integration does not cover answers 404 NOT_FOUND (§1), not a page with no rows (§7's /events mapping has no 404)",
  // 3.1.T4 note: the transition names no reason.
  'probe-resumes-any-pause': 'probes are sent while paused for any reason (manual and gone too), and the first 2xx resumes delivery (§3.1 names no reason)',
  // 3.1.T1 note: from when the six hours count.
  'six-hours-from-last-success': 'the six hours of the auto-pause count from the last success (webhook.last_success_at), not from the first failure after it',
  // 8.L11 note: "refusals included" against §4.7's "a 422 does not consume the window".
  'sync-422-counts-toward-cap': 'a POST /sync refused with 422 counts toward the six sync calls a day (§8 "refusals included"), though it never opens the 24-hour interval (§4.7)',
  // §7 "keyed by field path" gives no path syntax: the same refusal of a types[] item under two other spellings.
  'types-error-key-dotted': 'a refused GET /events types[] item is keyed types.N (§7: keyed by field path, no syntax shown), not types[].N',
  'types-error-key-bare': 'a refused GET /events types[] item is keyed types, the parameter alone (§7: keyed by field path, no syntax shown), not types[].N',
  // §4.8 and §7 list 404 and 422 for snapshots in no order.
  'snapshot-property-before-query': 'a snapshot of an unknown or uncovered property answers 404 NOT_FOUND before its query is validated (§4.8, §7 list both, in no order), so from missing on an unknown property is 404, not 422',
  // §4 "all endpoints require the bearer header", §5.1 "no endpoint is unauthenticated": a path §4 does not name may be authenticated first.
  'unknown-path-authenticates-first': 'a path §4 does not name is authenticated first: without a valid key it answers 401 UNAUTHENTICATED (§4, §5.1), with one 404 NOT_FOUND',
} as const;

export type ReadingName = keyof typeof READINGS;

export interface Readings {
  has(name: ReadingName): boolean;
}

// Stryker disable all: the simulator's start-up option (--reading) and the default unit tests use; the mutation run follows the default reading, and conformance/readings.test.ts runs the catalogue under each other one
export const DEFAULT_READINGS: Readings = { has: () => false };

export function readingSet(names: string[]): Readings {
  const unknown = names.find((n) => !(n in READINGS));
  if (unknown) throw new Error(`unknown reading "${unknown}" (readings: ${Object.keys(READINGS).join(', ')})`);
  const set = new Set(names);
  return { has: (name) => set.has(name) };
}
// Stryker restore all
