/**
 * Single-field violations derived from a schema's keywords: given a valid
 * value, every way to break exactly one field (drop a required one, wrong
 * type, one past a length, bound or item count, an integer with a fraction,
 * an enum non-member, a bad date or email), each named by the dotted path
 * the API reports it under in a 422's `errors` (§7, spec/contract.ts
 * fieldErrors: `units.0.adults`).
 */
import fc from 'fast-check';
import type { JsonSchema } from '../../spec/contract.ts';
import {
  assertSupported, branches, childPath, deepEqual, isJsonType, isPlainObject, isRequiredOnlyChoice,
  matchesShape, normalize, typesOf, type JsonType,
} from './schema-subset.ts';

export interface Violation {
  /** Dotted field path with array indices (`units.0.adults`): the key of the API's 422 `errors`. */
  path: string;
  /** The JSON Schema keyword broken (`required`, `type`, `maxLength`, `anyOf`, ...); an integer given a fraction is `type`. */
  keyword: string;
  /** What was done, for failure messages: `units.0.adults: 51, above maximum 50`. */
  description: string;
  /** A deep copy of `value` (the base the violation was derived from) with the field broken. */
  apply(value: unknown): unknown;
}

export interface ViolationOptions {
  /**
   * Values travel as query-string text and are read by a coercing validator
   * (checkParameters): wrong-type values are text that cannot be read as the
   * type (`abc` for an integer), and string fields get no type violation.
   */
  wire?: boolean;
}

/** One violation drawn for one base value, and the broken value. */
export interface ViolationCase {
  base: unknown;
  violation: Violation;
  invalid: unknown;
}

/**
 * Every single-field violation of `base` (valid against `schema`) that the
 * schema's keywords imply. Fields absent from `base` get the value-level
 * violations too (set to a bad value); nothing is reported at the root.
 */
export function violationsFor(schema: JsonSchema, base: unknown, options: ViolationOptions = {}): Violation[] {
  const out: Violation[] = [];
  walk(schema, base, [], true, out, options.wire === true);
  return out;
}

/** Draws a base from `baseArb` and one of its violations (bases with none are skipped). */
export function arbitraryViolation(schema: JsonSchema, baseArb: fc.Arbitrary<unknown>, options: ViolationOptions = {}): fc.Arbitrary<ViolationCase> {
  return baseArb
    .chain((base) => {
      const all = violationsFor(schema, base, options);
      if (all.length === 0) return fc.constant(null);
      return fc.constantFrom(...all).map((violation): ViolationCase => ({ base, violation, invalid: violation.apply(base) }));
    })
    .filter((c): c is ViolationCase => c !== null);
}

type Segment = string | number;

function walk(schema: JsonSchema, value: unknown, at: Segment[], present: boolean, out: Violation[], wire: boolean): void {
  const path = at.join('.');
  const s = normalize(schema);
  if (!s) return;
  assertSupported(s, path);

  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const list = s[keyword];
    if (!Array.isArray(list)) continue;
    const { [keyword]: _choice, ...rest } = s;
    if (isRequiredOnlyChoice(list as JsonSchema[])) {
      // `property`: one of doorloom_id / external_id. Dropping every named
      // one is the violation, reported at the object (spec/contract.ts
      // fieldErrors says the anyOf once, at its own path).
      if (present && isPlainObject(value) && at.length > 0) {
        const names = [...new Set((list as JsonSchema[]).flatMap((b) => b.required as string[]))];
        const held = names.filter((n) => Object.hasOwn(value, n));
        if (held.length > 0) {
          out.push(violation(at, keyword, `${path}: none of ${names.join(', ')} given (removed ${held.join(', ')})`, (target) => {
            for (const n of names) delete target[n];
          }));
        }
      }
      return walk(rest, value, at, present, out, wire);
    }
    // Break fields of the branch the value came from when that is unambiguous;
    // otherwise only what every branch shares.
    const matching = present ? branches(s, keyword).filter((b) => matchesShape(b, value)) : [];
    return walk(matching.length === 1 ? matching[0]! : rest, value, at, present, out, wire);
  }

  if (at.length > 0) leafViolations(s, at, out, wire);
  if (!present) return;

  if (isPlainObject(value)) {
    const properties = (s.properties as Record<string, JsonSchema> | undefined) ?? {};
    for (const name of (s.required as string[] | undefined) ?? []) {
      if (!Object.hasOwn(value, name)) continue;
      out.push(violation([...at, name], 'required', `${childPath(path, name)}: required field removed`, (target) => {
        delete target[name];
      }));
    }
    for (const [name, sub] of Object.entries(properties)) {
      walk(sub, value[name], [...at, name], Object.hasOwn(value, name), out, wire);
    }
  }

  if (Array.isArray(value) && at.length > 0) {
    const { minItems, maxItems } = s as { minItems?: number; maxItems?: number };
    if (maxItems !== undefined && value.length > 0) {
      out.push(violation(at, 'maxItems', `${path}: ${maxItems + 1} items, above maxItems ${maxItems}`, undefined, (items) => {
        const list = items as unknown[];
        return Array.from({ length: maxItems + 1 }, (_, i) => structuredClone(list[i % list.length]));
      }));
    }
    // On the wire an empty repeated parameter is no parameter at all: it cannot be sent.
    if (minItems !== undefined && minItems > (wire ? 1 : 0)) {
      out.push(violation(at, 'minItems', `${path}: ${minItems - 1} items, below minItems ${minItems}`, undefined, (items) => (items as unknown[]).slice(0, minItems - 1)));
    }
  }
  if (Array.isArray(value) && isPlainObject(s.items)) {
    value.forEach((item, i) => walk(s.items as JsonSchema, item, [...at, i], true, out, wire));
  }
}

/** Violations that replace the field's value, whatever it was (or set it when absent). */
function leafViolations(s: JsonSchema, at: Segment[], out: Violation[], wire: boolean): void {
  const path = at.join('.');
  const types = typesOf(s);
  const set = (keyword: string, bad: unknown, why: string) =>
    out.push(violation(at, keyword, `${path}: ${show(bad)}, ${why}`, undefined, () => structuredClone(bad)));

  if (types) {
    const bad = wrongType(types, wire);
    if (bad !== undefined) set('type', bad, `not of type ${types.join(' or ')}`);
  }
  if ('const' in s) set('const', differentFrom(s.const), `not the constant ${JSON.stringify(s.const)}`);
  if (Array.isArray(s.enum)) {
    const bad = nonMember(s.enum, types);
    if (bad !== undefined) set('enum', bad, `not one of ${s.enum.map((m) => JSON.stringify(m)).join(', ')}`);
  }

  const allows = (t: JsonType) => !types || types.includes(t) || (t === 'integer' && types.includes('number'));
  if (allows('string')) {
    const { maxLength, minLength } = s as { maxLength?: number; minLength?: number };
    if (maxLength !== undefined) set('maxLength', 'x'.repeat(maxLength + 1), `above maxLength ${maxLength}`);
    if (minLength !== undefined && minLength > 0) set('minLength', 'x'.repeat(minLength - 1), `below minLength ${minLength}`);
    for (const bad of BAD_FORMATS[String(s.format)] ?? []) set('format', bad, `not a valid ${String(s.format)}`);
    if (typeof s.pattern === 'string') {
      const re = new RegExp(s.pattern, 'u');
      const bad = ['!', '', 'x', '0', ' not matching '].find((c) => !re.test(c));
      if (bad !== undefined) set('pattern', bad, `does not match ${s.pattern}`);
    }
  }
  if (allows('integer') || allows('number')) {
    const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = s as Record<string, number | undefined>;
    // A node carrying x-assumption has bounds the API document does not show (money's range): the project's
    // choice, never a breach a platform can be judged on, so no violation of them is drawn.
    const assumed = typeof s['x-assumption'] === 'string';
    if (maximum !== undefined && !assumed) set('maximum', maximum + 1, `above maximum ${maximum}`);
    if (minimum !== undefined && !assumed) set('minimum', minimum - 1, `below minimum ${minimum}`);
    if (exclusiveMaximum !== undefined) set('exclusiveMaximum', exclusiveMaximum, `not below exclusiveMaximum ${exclusiveMaximum}`);
    if (exclusiveMinimum !== undefined) set('exclusiveMinimum', exclusiveMinimum, `not above exclusiveMinimum ${exclusiveMinimum}`);
    if (types && types.includes('integer') && !types.includes('number')) {
      // A fraction inside the bounds, so only the type is wrong.
      const low = minimum ?? (exclusiveMinimum !== undefined ? Math.floor(exclusiveMinimum) + 1 : undefined);
      const fraction = (low ?? (maximum !== undefined ? maximum - 1 : 1)) + 0.5;
      if (maximum === undefined || fraction < maximum) set('type', fraction, 'an integer given a fraction');
    }
  }
}

/** A bad value for a message: long strings are cut (`"xxxxxxxxxxxx…" (2001 characters)`). */
function show(bad: unknown): string {
  if (typeof bad === 'string' && bad.length > 24) return `${JSON.stringify(`${bad.slice(0, 12)}…`)} (${bad.length} characters)`;
  return JSON.stringify(bad);
}

/** Calendar-impossible and wrongly punctuated values, per format (§ conventions: dates are YYYY-MM-DD). */
const BAD_FORMATS: Record<string, string[]> = {
  date: ['2026-02-30', '2026/01/01'],
  'date-time': ['2026-09-01T10:00:00', '2026-02-30T10:00:00+05:30'],
  email: ['not-an-email', 'name@'],
};

/** A value of none of the types; undefined when none can be written (a string field on the wire). */
function wrongType(types: JsonType[], wire: boolean): unknown {
  const allows = (t: JsonType) => types.includes(t) || (t === 'integer' && types.includes('number'));
  if (wire) {
    // Query text is always a string; coercion reads "12" as 12 and "x" as ["x"].
    if (allows('string') || allows('array')) return undefined;
    if (allows('integer') || allows('number')) return 'not-a-number';
    if (allows('boolean')) return 'not-a-boolean';
    return undefined;
  }
  const candidates: [JsonType, unknown][] = [['string', 'wrong type'], ['integer', 42], ['boolean', true], ['array', []], ['object', {}]];
  return candidates.find(([t]) => !allows(t))?.[1];
}

function differentFrom(constant: unknown): unknown {
  if (typeof constant === 'boolean') return !constant;
  if (typeof constant === 'number') return constant + 1;
  if (typeof constant === 'string') return `${constant}_x`;
  return 'not the constant';
}

/** A value of the declared type that the enum leaves out. */
function nonMember(members: unknown[], types: JsonType[] | undefined): unknown {
  const candidates: unknown[] = [];
  for (const m of members) {
    if (typeof m === 'string') candidates.push(`${m}_x`);
    if (typeof m === 'number') candidates.push(m + 1, m - 1);
  }
  candidates.push('not-a-member', -1, false);
  return candidates.find((c) => !members.some((m) => deepEqual(m, c)) && (!types || types.some((t) => isJsonType(c, t))));
}

/**
 * A violation at `at`: either `edit` the container (an object field or the
 * path's own object), or `replace` the value at `at`.
 */
function violation(
  at: Segment[],
  keyword: string,
  description: string,
  edit?: (target: Record<string, unknown>) => void,
  replace?: (current: unknown) => unknown,
): Violation {
  const path = at.join('.');
  return {
    path,
    keyword,
    description,
    apply(value) {
      const copy = structuredClone(value);
      if (edit) {
        // `required` edits the parent; `anyOf` edits the object at the path itself.
        const owner = keyword === 'required' ? at.slice(0, -1) : at;
        const target = locate(copy, owner, path);
        if (!isPlainObject(target)) throw new Error(`violation ${keyword} at ${path}: the value has no object at ${owner.join('.') || 'the root'}`);
        edit(target);
        return copy;
      }
      const parent = locate(copy, at.slice(0, -1), path);
      const key = at[at.length - 1]!;
      if (parent === null || typeof parent !== 'object') throw new Error(`violation ${keyword} at ${path}: the value has no container for "${key}"`);
      (parent as Record<Segment, unknown>)[key] = replace!((parent as Record<Segment, unknown>)[key]);
      return copy;
    },
    [fc.toStringMethod]: () => `${keyword} at ${path} (${description})`,
  } as Violation;
}

function locate(root: unknown, at: Segment[], path: string): unknown {
  let node = root;
  for (const segment of at) {
    if (node === null || typeof node !== 'object') throw new Error(`violation at ${path}: the value has no field "${segment}"`);
    node = (node as Record<Segment, unknown>)[segment];
  }
  return node;
}
