/**
 * fast-check arbitraries derived from the JSON Schemas of spec/openapi.yaml:
 * every generated value is valid against the schema it came from, so a
 * conformance suite never hand-copies a field list or a limit.
 *
 * Sizes stay modest (short strings, small arrays) unless the schema demands
 * more. A field can be replaced by path (`overrides`), e.g. `property` → a
 * property the target covers, `check_in` → a date in a window.
 */
import fc from 'fast-check';
import type { JsonSchema } from '../../spec/contract.ts';
import {
  assertSupported, branches, childPath, isPlainObject, matchesShape, normalize, typesOf,
  UnsupportedSchema, type JsonType,
} from './schema-subset.ts';

/** Yielded by an override to leave the field out of the generated object. */
export const OMIT: unique symbol = Symbol('conformance/arbitraries: omit this field');

/** An override that always leaves the field out: `{ 'units[].inventory_id': omit() }`. */
export function omit(): fc.Arbitrary<typeof OMIT> {
  return fc.constant(OMIT);
}

export interface ArbitraryOptions {
  /**
   * Arbitraries that replace the derived one at a field path: dotted, with
   * `[]` for "every item of the array" (`property`, `check_in`,
   * `units[].inventory_id`). An overridden optional field is always present
   * unless its arbitrary yields OMIT (`fc.oneof(arb, omit())` for "maybe").
   * A path that names no field of the schema is an error.
   */
  overrides?: Record<string, fc.Arbitrary<unknown>>;
  /** Every `format: date` field without an override (default: real dates 2020-01-01 to 2030-12-31). See dateBetween. */
  date?: fc.Arbitrary<string>;
  /** Every `format: date-time` field without an override (default: RFC 3339 with an offset, 2020 to 2030). */
  dateTime?: fc.Arbitrary<string>;
  /** Longest array generated when the schema allows longer (default 3; `minItems` wins). */
  maxItems?: number;
  /** Longest string generated when the schema allows longer (default 12; `minLength` wins). */
  maxLength?: number;
}

/**
 * Values valid against `schema` (a dereferenced schema from loadContract()).
 * Optional properties are present or absent at random; no undeclared key is
 * added to an object that declares properties.
 * Throws UnsupportedSchema on keywords outside the subset (schema-subset.ts).
 */
export function arbitraryFor(schema: JsonSchema, options: ArbitraryOptions = {}): fc.Arbitrary<unknown> {
  const maxItems = options.maxItems ?? 3;
  const maxLength = options.maxLength ?? 12;
  if (!Number.isInteger(maxItems) || maxItems < 0) throw new Error(`arbitraryFor: option maxItems should be a non-negative integer, got ${maxItems}`);
  if (!Number.isInteger(maxLength) || maxLength < 0) throw new Error(`arbitraryFor: option maxLength should be a non-negative integer, got ${maxLength}`);
  const builder = new Builder({
    overrides: options.overrides ?? {},
    date: options.date ?? dateBetween('2020-01-01', '2030-12-31'),
    dateTime: options.dateTime ?? dateTimeBetween('2020-01-01', '2030-12-31'),
    maxItems,
    maxLength,
  });
  const arbitrary = builder.build(schema, '');
  const unused = Object.keys(builder.overrides).filter((path) => !builder.visited.has(path));
  if (unused.length > 0) {
    throw new Error(`arbitraryFor: option overrides names ${unused.map((p) => `"${p}"`).join(', ')}, which ${unused.length === 1 ? 'is' : 'are'} not a field of the schema (paths are dotted, array items are [], e.g. units[].adults)`);
  }
  return arbitrary;
}

/** Real calendar dates `YYYY-MM-DD` from `from` to `to`, both inclusive; shrinks towards `from`. */
export function dateBetween(from: string, to: string): fc.Arbitrary<string> {
  const first = dayNumber(from, 'from');
  const last = dayNumber(to, 'to');
  if (last < first) throw new Error(`dateBetween: to (${to}) should be on or after from (${from})`);
  return fc.integer({ min: first, max: last }).map(isoDay);
}

/** RFC 3339 timestamps with an offset (`2026-09-01T10:00:00+05:30`) on days from `from` to `to`. */
export function dateTimeBetween(from: string, to: string): fc.Arbitrary<string> {
  const offsets = ['+05:30', 'Z', '+00:00', '-04:00', '+09:00'];
  return fc
    .tuple(dateBetween(from, to), fc.integer({ min: 0, max: 86_399 }), fc.constantFrom(...offsets), fc.option(fc.integer({ min: 0, max: 999 }), { nil: undefined }))
    .map(([day, seconds, offset, millis]) => {
      const hh = String(Math.floor(seconds / 3600)).padStart(2, '0');
      const mm = String(Math.floor(seconds / 60) % 60).padStart(2, '0');
      const ss = String(seconds % 60).padStart(2, '0');
      const fraction = millis === undefined ? '' : `.${String(millis).padStart(3, '0')}`;
      return `${day}T${hh}:${mm}:${ss}${fraction}${offset}`;
    });
}

/** Short addresses every validator accepts: `ab3@example.com`. */
export function emailAddress(maxLength = 255): fc.Arbitrary<string> {
  const word = (max: number) => fc.stringMatching(new RegExp(`^[a-z0-9]{1,${max}}$`));
  return fc
    .tuple(word(10), fc.option(word(5), { nil: undefined }), word(10), fc.constantFrom('com', 'in', 'org', 'example'))
    .map(([local, more, domain, tld]) => `${local}${more === undefined ? '' : `.${more}`}@${domain}.${tld}`)
    .filter((s) => s.length <= maxLength);
}

/** Small JSON values (no -0, no NaN, plain objects), for schemas that allow anything. */
export function smallJson(): fc.Arbitrary<unknown> {
  const scalar = fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: -1000, max: 1000 }),
    fc.integer({ min: -100_000, max: 100_000 }).map((c) => c / 100 + 0),
    fc.string({ maxLength: 8 }),
  );
  const { value } = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      scalar,
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(KEY, tie('value'), { maxKeys: 3, noNullPrototype: true }),
    ),
  }));
  return value;
}

const KEY = fc.stringMatching(/^[a-z][a-z0-9_]{0,7}$/);

interface BuilderSettings {
  overrides: Record<string, fc.Arbitrary<unknown>>;
  date: fc.Arbitrary<string>;
  dateTime: fc.Arbitrary<string>;
  maxItems: number;
  maxLength: number;
}

/** Walks a schema once, building the arbitrary; `path` uses the override syntax (`units[].adults`). */
class Builder {
  readonly visited = new Set<string>();
  readonly overrides: Record<string, fc.Arbitrary<unknown>>;

  constructor(private readonly settings: BuilderSettings) {
    this.overrides = settings.overrides;
  }

  build(schema: JsonSchema, path: string): fc.Arbitrary<unknown> {
    this.visited.add(path);
    const override = this.overrides[path];
    if (override) return override;
    const s = normalize(schema);
    if (!s) throw new UnsupportedSchema(path, 'a schema no value satisfies (its allOf parts contradict)');
    assertSupported(s, path);

    if (Array.isArray(s.anyOf)) return this.choice(branches(s, 'anyOf'), path, 'anyOf');
    if (Array.isArray(s.oneOf)) {
      const options = branches(s, 'oneOf');
      // A value of one branch must not also fit another (the AnyEvent `type` const keeps them apart).
      return this.choice(options, path, 'oneOf').filter((v) => options.filter((o) => matchesShape(o, v)).length === 1);
    }
    if ('const' in s) {
      const value = s.const;
      return fc.constant(null).map(() => structuredClone(value));
    }
    if (Array.isArray(s.enum)) {
      const types = typesOf(s);
      const members = s.enum.filter((m) => !types || types.some((t) => fitsType(m, t)));
      if (members.length === 0) throw new UnsupportedSchema(path, 'an enum with no member of the declared type');
      return fc.constantFrom(...members).map((m) => structuredClone(m));
    }
    const types = typesOf(s) ?? implicitTypes(s);
    if (types === undefined) return smallJson();
    if (types.length === 1) return this.typed(s, types[0]!, path);
    return fc.oneof(...types.map((t) => this.typed(s, t, path)));
  }

  private choice(options: JsonSchema[], path: string, keyword: string): fc.Arbitrary<unknown> {
    if (options.length === 0) throw new UnsupportedSchema(path, `an ${keyword} whose every branch contradicts the rest of the schema`);
    // Each branch has the rest of the schema merged in: for the `property`
    // anyOf-of-required, the chosen branch's required id is always present.
    return fc.oneof(...options.map((o) => this.build(o, path)));
  }

  private typed(s: JsonSchema, type: JsonType, path: string): fc.Arbitrary<unknown> {
    switch (type) {
      case 'null': return fc.constant(null);
      case 'boolean': return fc.boolean();
      case 'integer': return this.integer(s, path);
      case 'number': return this.number(s, path);
      case 'string': return this.string(s, path);
      case 'array': return this.array(s, path);
      case 'object': return this.object(s, path);
    }
  }

  private integer(s: JsonSchema, path: string): fc.Arbitrary<number> {
    const { min, max } = bounds(s, 1, path);
    return fc.integer({ min: Math.ceil(min), max: Math.floor(max) });
  }

  /** Numbers in hundredths (money in paise): finite, JSON-exact, never -0. */
  private number(s: JsonSchema, path: string): fc.Arbitrary<number> {
    const { min, max } = bounds(s, 0.01, path);
    return fc.integer({ min: Math.ceil(min * 100), max: Math.floor(max * 100) }).map((c) => c / 100 + 0);
  }

  private string(s: JsonSchema, path: string): fc.Arbitrary<string> {
    const minLength = (s.minLength as number | undefined) ?? 0;
    const maxLength = (s.maxLength as number | undefined) ?? Number.POSITIVE_INFINITY;
    const within = (v: string) => [...v].length >= minLength && [...v].length <= maxLength;
    switch (s.format) {
      case 'date': return this.settings.date.filter(within);
      case 'date-time': return this.settings.dateTime.filter(within);
      case 'email': return emailAddress(maxLength).filter(within);
    }
    if (typeof s.pattern === 'string') return fc.stringMatching(new RegExp(s.pattern, 'u')).filter(within);
    if (minLength > maxLength) throw new UnsupportedSchema(path, `minLength ${minLength} above maxLength ${maxLength}`);
    // Printable ASCII: one unit is one code point, the unit ajv counts lengths in.
    return fc.string({ minLength, maxLength: Math.min(maxLength, Math.max(minLength, this.settings.maxLength)) });
  }

  private array(s: JsonSchema, path: string): fc.Arbitrary<unknown[]> {
    const minItems = (s.minItems as number | undefined) ?? 0;
    const maxItems = Math.min((s.maxItems as number | undefined) ?? Number.POSITIVE_INFINITY, Math.max(minItems, this.settings.maxItems));
    const itemsPath = `${path}[]`;
    const items = isPlainObject(s.items) ? this.build(s.items, itemsPath) : (this.visited.add(itemsPath), this.overrides[itemsPath] ?? smallJson());
    return fc.array(items, { minLength: minItems, maxLength: maxItems });
  }

  private object(s: JsonSchema, path: string): fc.Arbitrary<Record<string, unknown>> {
    const properties = (s.properties as Record<string, JsonSchema> | undefined) ?? {};
    const required = new Set((s.required as string[] | undefined) ?? []);
    const names = Object.keys(properties);
    if (names.length === 0 && required.size === 0) {
      // A free-form object (`breakdown`): a few keys, unless extra keys are forbidden.
      if (s.additionalProperties === false) return fc.constant(null).map(() => ({}));
      // A map whose values have a schema (`FieldErrors`: field path → messages).
      const values = isPlainObject(s.additionalProperties) ? this.build(s.additionalProperties, `${path}.*`) : smallJson();
      return fc.dictionary(KEY, values, { maxKeys: 3, noNullPrototype: true });
    }
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    const present: string[] = [];
    for (const name of names) {
      const at = childPath(path, name);
      model[name] = this.build(properties[name]!, at);
      if (required.has(name) || this.overrides[at]) present.push(name);
    }
    for (const name of required) {
      if (model[name]) continue;
      // Required by an anyOf branch or by `required` alone, without a declared schema: any value.
      const at = childPath(path, name);
      this.visited.add(at);
      model[name] = this.overrides[at] ?? smallJson();
      present.push(name);
    }
    return fc.record(model, { requiredKeys: present, noNullPrototype: true }).map((record) => {
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(record)) if (value !== OMIT) out[key] = value;
      return out;
    });
  }
}

/** Keyword-implied type for a schema without `type` (`{ properties: ... }` describes an object). */
function implicitTypes(s: JsonSchema): JsonType[] | undefined {
  if (s.properties !== undefined || s.required !== undefined) return ['object'];
  if (s.items !== undefined || s.minItems !== undefined || s.maxItems !== undefined) return ['array'];
  if (s.minLength !== undefined || s.maxLength !== undefined || s.format !== undefined || s.pattern !== undefined) return ['string'];
  if (s.minimum !== undefined || s.maximum !== undefined) return ['number'];
  return undefined;
}

function fitsType(value: unknown, type: JsonType): boolean {
  if (type === 'number') return typeof value === 'number';
  if (type === 'integer') return Number.isInteger(value);
  if (type === 'object') return isPlainObject(value);
  if (type === 'array') return Array.isArray(value);
  if (type === 'null') return value === null;
  return typeof value === type;
}

/**
 * The numeric range to draw from: the schema's bounds (exclusive ones moved
 * in by `step`), else a modest window that includes negatives.
 */
function bounds(s: JsonSchema, step: number, path: string): { min: number; max: number } {
  const lows = [s.minimum as number | undefined, s.exclusiveMinimum === undefined ? undefined : (s.exclusiveMinimum as number) + step].filter((n): n is number => n !== undefined);
  const highs = [s.maximum as number | undefined, s.exclusiveMaximum === undefined ? undefined : (s.exclusiveMaximum as number) - step].filter((n): n is number => n !== undefined);
  const low = lows.length > 0 ? Math.max(...lows) : undefined;
  const high = highs.length > 0 ? Math.min(...highs) : undefined;
  const min = low ?? (high !== undefined ? high - 100_000 : -1000);
  const max = high ?? Math.max(min, 0) + 100_000;
  if (min > max) throw new UnsupportedSchema(path, `a numeric range that is empty (${min} > ${max})`);
  return { min, max };
}

const DAY_MS = 86_400_000;

function dayNumber(date: string, option: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  const ms = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : Number.NaN;
  if (!m || Number.isNaN(ms) || isoDay(ms / DAY_MS) !== date) throw new Error(`dateBetween: ${option} should be a real calendar date YYYY-MM-DD, got "${date}"`);
  return ms / DAY_MS;
}

function isoDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}
