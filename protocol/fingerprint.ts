/**
 * §4.5 rule 1: the body fingerprint of an idempotent create is SHA-256 over
 * key-sorted JSON, so key order is irrelevant and any value change counts.
 * Both sides need it: the platform stores it under the key, and a monitor of
 * the traffic (watch/) decides with it whether a retry sent the same body.
 */

/** JSON with object keys sorted at every depth; arrays keep their order. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}
