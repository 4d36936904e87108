/**
 * §4.5 rules 1–3 as pure functions over a memory store: the fingerprint
 * (SHA-256 over key-sorted JSON), the usable key (8 to 128 characters), and
 * the claim / settle / release life of a key with its 24-hour memory. The
 * same rules through HTTP are in simulator/http/create-booking.test.ts.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomainError } from './errors.ts';
import { claim, fingerprint, purgeExpired, release, settle, usableKey } from './idempotency.ts';

/** §4.5 rule 1, §8 "Idempotency key memory: 24 hours", written out from the document, never read from the code under test. */
const DAY_MS = 24 * 60 * 60 * 1000;
import { MemoryStore } from '../store/memory-store.ts';

const NOW = Date.parse('2026-09-15T06:30:00Z');
const PRINT_A = fingerprint({ a: 1 });
const PRINT_B = fingerprint({ a: 2 });

/** The DomainError code `fn` throws, or null when it does not throw. */
function codeOf(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (e) {
    if (e instanceof DomainError) return e.code;
    throw e;
  }
}

/** The same JSON value with object keys in a different order at every depth. */
function reorderKeys(value: unknown, order: (keys: string[]) => string[]): unknown {
  if (Array.isArray(value)) return value.map((v) => reorderKeys(v, order));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const k of order(Object.keys(value))) Object.defineProperty(out, k, { value: reorderKeys((value as Record<string, unknown>)[k], order), enumerable: true, writable: true, configurable: true });
  return out;
}

/** Every path to a leaf (a non-container value) of a JSON value. */
function leafPaths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return value.length === 0 ? [prefix] : value.flatMap((v, i) => leafPaths(v, [...prefix, i]));
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value);
    return keys.length === 0 ? [prefix] : keys.flatMap((k) => leafPaths((value as Record<string, unknown>)[k], [...prefix, k]));
  }
  return [prefix];
}

/** A deep copy of `value` with the leaf at `path` replaced. */
function withLeaf(value: unknown, path: (string | number)[], leaf: unknown): unknown {
  if (path.length === 0) return leaf;
  const [head, ...rest] = path;
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
  Object.defineProperty(copy, head!, { value: withLeaf(copy[head!], rest, leaf), enumerable: true, writable: true, configurable: true });
  return copy;
}

const body = {
  external_booking_id: 'B-1',
  property: { doorloom_id: 101 },
  units: [{ adults: 2, meal_plan: 'CP' }, { adults: 1, children: 0 }],
  pricing: { total: 12000, breakdown: { room: [10000, { tax: 2000 }], note: 'x' } },
};

describe('fingerprint (§4.5 rule 1: SHA-256 over key-sorted JSON)', () => {
  it('§4.5 rule 1: the fingerprint is SHA-256 of JSON with keys sorted at every depth; arrays keep their order', () => {
    const canonical = '{"a":[{"x":1,"y":2},3],"b":{"c":null,"d":"é"}}';
    expect(fingerprint({ b: { d: 'é', c: null }, a: [{ y: 2, x: 1 }, 3] })).toBe(createHash('sha256').update(canonical, 'utf8').digest('hex'));
    expect(fingerprint([1, 2])).not.toBe(fingerprint([2, 1]));
  });

  it('§4.5 rule 1: key order is irrelevant at every depth (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer(), (value, seed) => {
        // A seeded shuffle per object: a different key order at every depth.
        let s = seed;
        const shuffle = (keys: string[]) => {
          const out = [...keys];
          for (let i = out.length - 1; i > 0; i--) {
            s = (s * 1103515245 + 12345) | 0;
            const j = Math.abs(s) % (i + 1);
            [out[i], out[j]] = [out[j]!, out[i]!];
          }
          return out;
        };
        expect(fingerprint(reorderKeys(value, shuffle))).toBe(fingerprint(value));
        expect(fingerprint(reorderKeys(value, (k) => [...k].reverse()))).toBe(fingerprint(value));
      }),
      { numRuns: 200 },
    );
  });

  it('§4.5 rule 1: any value change counts: replacing one leaf changes the fingerprint (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...leafPaths(body)),
        fc.jsonValue({ maxDepth: 2 }),
        (path, leaf) => {
          const before = path.reduce<any>((v, k) => v[k], body);
          fc.pre(JSON.stringify(leaf) !== JSON.stringify(before));
          expect(fingerprint(withLeaf(body, path, leaf))).not.toBe(fingerprint(body));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('§4.5 rule 1: a "__proto__" key is an ordinary key of the fingerprint', () => {
    const a = JSON.parse('{"pricing":{"breakdown":{"__proto__":{"x":1}}}}');
    const b = JSON.parse('{"pricing":{"breakdown":{"__proto__":{"x":2}}}}');
    expect(fingerprint(a)).toBe(createHash('sha256').update('{"pricing":{"breakdown":{"__proto__":{"x":1}}}}', 'utf8').digest('hex'));
    expect(fingerprint(a)).not.toBe(fingerprint(b));
  });
});

describe('usableKey (§4.5 rule 2, §8: 8 to 128 characters)', () => {
  it.each([
    ['missing', undefined, 'IDEMPOTENCY_KEY_REQUIRED'],
    ['empty', '', 'IDEMPOTENCY_KEY_REQUIRED'],
    ['7 characters', 'k'.repeat(7), 'IDEMPOTENCY_KEY_REQUIRED'],
    ['8 characters', 'k'.repeat(8), null],
    ['128 characters', 'k'.repeat(128), null],
    ['129 characters', 'k'.repeat(129), 'IDEMPOTENCY_KEY_REQUIRED'],
    ['sent twice (an array)', ['key-00001', 'key-00002'], 'IDEMPOTENCY_KEY_REQUIRED'],
  ] as const)('§4.5 rule 2: a key that is %s', (_name, header, want) => {
    expect(codeOf(() => usableKey(header as string | string[] | undefined))).toBe(want);
  });

  it('§4.5 rule 2: a usable key is used exactly as sent', () => {
    expect(usableKey('Key-With-Case-1')).toBe('Key-With-Case-1');
  });
});

describe('claim, settle, release (§4.5 rules 1 and 3)', () => {
  const fresh = () => new MemoryStore();
  const claimIn = (store: MemoryStore, key: string, print: string, now = NOW, integrationId = 1) =>
    store.transaction((tx) => claim(tx, integrationId, key, print, now));
  const settleIn = (store: MemoryStore, key: string, status: number, text: string, integrationId = 1) =>
    store.transaction((tx) => settle(tx, integrationId, key, status, text));

  it('§4.5 rule 1: the first claim of a key proceeds and marks it in progress', () => {
    const store = fresh();
    expect(claimIn(store, 'key-0001', PRINT_A)).toEqual({ kind: 'proceed' });
    expect(store.get('idempotency', '1:key-0001')).toMatchObject({ state: 'in_progress', fingerprint: PRINT_A, expires_at: NOW + DAY_MS });
  });

  it('§4.5 rule 3: an identical request while the first is in progress is IN_PROGRESS', () => {
    const store = fresh();
    claimIn(store, 'key-0001', PRINT_A);
    expect(codeOf(() => claimIn(store, 'key-0001', PRINT_A))).toBe('IN_PROGRESS');
  });

  it('§4.5 rule 1: a different body under a key in progress is IDEMPOTENCY_KEY_REUSED, not IN_PROGRESS', () => {
    const store = fresh();
    claimIn(store, 'key-0001', PRINT_A);
    expect(codeOf(() => claimIn(store, 'key-0001', PRINT_B))).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('§4.5 rule 1: a settled key replays the stored status and text exactly; a different body is IDEMPOTENCY_KEY_REUSED', () => {
    const store = fresh();
    claimIn(store, 'key-0001', PRINT_A);
    const text = '{"success":true, "message":"Booking created.","data":{"id":1}}';
    settleIn(store, 'key-0001', 201, text);
    expect(claimIn(store, 'key-0001', PRINT_A, NOW + 1000)).toEqual({ kind: 'replay', status: 201, body: text });
    expect(codeOf(() => claimIn(store, 'key-0001', PRINT_B, NOW + 1000))).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('§4.5 rule 1: refusals are stored and replayed like successes (409 UNAVAILABLE)', () => {
    const store = fresh();
    claimIn(store, 'key-0001', PRINT_A);
    settleIn(store, 'key-0001', 409, '{"success":false,"code":"UNAVAILABLE"}');
    expect(claimIn(store, 'key-0001', PRINT_A)).toEqual({ kind: 'replay', status: 409, body: '{"success":false,"code":"UNAVAILABLE"}' });
  });

  it('§4.5 rule 1, §8: a key is remembered 24 hours: replayed 1 ms before, forgotten at 24 hours', () => {
    const store = fresh();
    claimIn(store, 'key-0001', PRINT_A);
    settleIn(store, 'key-0001', 201, 'first');
    expect(claimIn(store, 'key-0001', PRINT_A, NOW + DAY_MS - 1)).toEqual({ kind: 'replay', status: 201, body: 'first' });
    expect(codeOf(() => claimIn(store, 'key-0001', PRINT_B, NOW + DAY_MS - 1))).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(claimIn(store, 'key-0001', PRINT_B, NOW + DAY_MS)).toEqual({ kind: 'proceed' });
    // The new claim starts a new 24 hours.
    expect(store.get('idempotency', '1:key-0001')).toMatchObject({ state: 'in_progress', fingerprint: PRINT_B, expires_at: NOW + 2 * DAY_MS });
  });

  it('§4.5 rule 1: keys belong to one integration: the same key of another integration is unrelated', () => {
    const store = fresh();
    claimIn(store, 'key-0001', PRINT_A, NOW, 1);
    settleIn(store, 'key-0001', 201, 'first', 1);
    expect(claimIn(store, 'key-0001', PRINT_B, NOW, 2)).toEqual({ kind: 'proceed' });
  });

  it('§4.5 rule 3: release frees a key left in progress (no answer was given) but never forgets an answer', () => {
    const store = fresh();
    claimIn(store, 'key-0001', PRINT_A);
    store.transaction((tx) => release(tx, 1, 'key-0001'));
    expect(claimIn(store, 'key-0001', PRINT_B)).toEqual({ kind: 'proceed' });
    settleIn(store, 'key-0001', 201, 'answered');
    store.transaction((tx) => release(tx, 1, 'key-0001'));
    expect(claimIn(store, 'key-0001', PRINT_B)).toEqual({ kind: 'replay', status: 201, body: 'answered' });
  });

  it('§4.5 rule 1: settle without a claim stores nothing', () => {
    const store = fresh();
    settleIn(store, 'key-0001', 201, 'orphan');
    expect(store.get('idempotency', '1:key-0001')).toBeUndefined();
  });
});

describe('purgeExpired', () => {
  it('§4.5 rule 1: forgets answered keys past 24 hours and keeps the rest', () => {
    const store = new MemoryStore();
    store.transaction((tx) => {
      claim(tx, 1, 'old-key-1', 'f', 0);
      settle(tx, 1, 'old-key-1', 201, '{}');
      claim(tx, 1, 'new-key-1', 'f', DAY_MS);
      settle(tx, 1, 'new-key-1', 201, '{}');
    });
    // Just inside the 24 hours nothing is forgotten; just outside, the key answered at 0 is.
    expect(store.transaction((tx) => purgeExpired(tx, DAY_MS - 1))).toBe(0);
    expect(store.get('idempotency', '1:old-key-1')).toBeDefined();
    expect(store.transaction((tx) => purgeExpired(tx, DAY_MS + 1))).toBe(1);
    expect(store.get('idempotency', '1:old-key-1')).toBeUndefined();
    expect(store.get('idempotency', '1:new-key-1')).toBeDefined();
  });
});
