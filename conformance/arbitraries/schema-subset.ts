/**
 * The JSON Schema subset spec/openapi.yaml uses, as the arbitraries see it:
 * which keywords are understood, `allOf` folded into one schema, and a
 * structural "could this value belong to this branch" test for picking the
 * branch of an `anyOf`/`oneOf` a value came from.
 *
 * Shared by from-schema.ts (generation) and violations.ts (mutation), so
 * both read a schema the same way.
 */
import type { JsonSchema } from '../../spec/contract.ts';

export type JsonType = 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object';

/** Keywords the arbitraries act on. */
const UNDERSTOOD = new Set([
  'type', 'enum', 'const',
  'properties', 'required', 'additionalProperties',
  'items', 'minItems', 'maxItems',
  'minLength', 'maxLength', 'format', 'pattern',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum',
  'anyOf', 'oneOf', 'allOf',
]);

/** Keywords that only annotate: they never change which values are valid. */
const ANNOTATIONS = new Set([
  'description', 'title', 'default', 'example', 'examples', 'deprecated',
  'readOnly', 'writeOnly', '$comment', '$schema', '$id', 'discriminator', 'externalDocs', 'xml',
]);

/** Formats the arbitraries can generate and break. */
export const FORMATS = new Set(['date', 'date-time', 'email']);

/** A schema that uses a keyword outside the subset: generating or mutating blindly would lie. */
export class UnsupportedSchema extends Error {
  /** `where`: the field path, or null inside an allOf being merged. */
  constructor(where: string | null, what: string) {
    const at = where === null ? 'in an allOf' : where === '' ? 'at the root' : `at "${where}"`;
    super(`${what} ${at} is not supported by conformance/arbitraries (see the keyword list in schema-subset.ts)`);
  }
}

/** Throws UnsupportedSchema on a keyword or format outside the subset. */
export function assertSupported(schema: JsonSchema, where: string): void {
  for (const key of Object.keys(schema)) {
    if (key.startsWith('x-') || ANNOTATIONS.has(key) || UNDERSTOOD.has(key)) continue;
    throw new UnsupportedSchema(where, `keyword "${key}"`);
  }
  if (schema.format !== undefined && !FORMATS.has(String(schema.format))) throw new UnsupportedSchema(where, `format "${String(schema.format)}"`);
  if (schema.format !== undefined && schema.pattern !== undefined) throw new UnsupportedSchema(where, 'format together with pattern');
}

/** The `type` keyword as a list, or undefined when the schema does not restrict the type. */
export function typesOf(schema: JsonSchema): JsonType[] | undefined {
  const t = schema.type;
  if (t === undefined) return undefined;
  return (Array.isArray(t) ? t : [t]) as JsonType[];
}

export function isJsonType(value: unknown, type: JsonType): boolean {
  switch (type) {
    case 'null': return value === null;
    case 'boolean': return typeof value === 'boolean';
    case 'integer': return Number.isInteger(value);
    case 'number': return typeof value === 'number' && Number.isFinite(value);
    case 'string': return typeof value === 'string';
    case 'array': return Array.isArray(value);
    case 'object': return isPlainObject(value);
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

const normalized = new WeakMap<JsonSchema, JsonSchema | null>();

/**
 * The schema with its `allOf` folded in (recursively at this level; nested
 * property schemas are normalized when visited). null when the parts cannot
 * all hold (e.g. `type: object` and `type: array`).
 */
export function normalize(schema: JsonSchema): JsonSchema | null {
  if (normalized.has(schema)) return normalized.get(schema)!;
  let out: JsonSchema | null;
  if (Array.isArray(schema.allOf)) {
    const { allOf, ...rest } = schema;
    out = rest;
    for (const part of allOf as JsonSchema[]) {
      const n = normalize(part);
      out = n && out && merge(out, n);
      if (!out) break;
    }
  } else {
    out = schema;
  }
  normalized.set(schema, out);
  return out;
}

/**
 * The conjunction of two allOf-free schemas, as one schema; null when they
 * contradict. Same-named properties and `items` become `allOf` pairs,
 * folded when visited.
 */
export function merge(a: JsonSchema, b: JsonSchema): JsonSchema | null {
  const out: JsonSchema = { ...a };
  for (const [key, value] of Object.entries(b)) {
    if (!(key in out)) {
      out[key] = value;
      continue;
    }
    const current = out[key];
    switch (key) {
      case 'type': {
        const types = intersectTypes(typesOf(a)!, typesOf(b)!);
        if (types.length === 0) return null;
        out.type = types.length === 1 ? types[0] : types;
        break;
      }
      case 'properties': {
        const props: Record<string, JsonSchema> = { ...(current as Record<string, JsonSchema>) };
        for (const [name, sub] of Object.entries(value as Record<string, JsonSchema>)) {
          props[name] = props[name] ? { allOf: [props[name], sub] } : sub;
        }
        out.properties = props;
        break;
      }
      case 'items':
        out.items = { allOf: [current, value] };
        break;
      case 'required':
        out.required = [...new Set([...(current as string[]), ...(value as string[])])];
        break;
      case 'enum': {
        const both = (current as unknown[]).filter((x) => (value as unknown[]).some((y) => deepEqual(x, y)));
        if (both.length === 0) return null;
        out.enum = both;
        break;
      }
      case 'const':
        if (!deepEqual(current, value)) return null;
        break;
      case 'minimum': case 'exclusiveMinimum': case 'minLength': case 'minItems':
        out[key] = Math.max(current as number, value as number);
        break;
      case 'maximum': case 'exclusiveMaximum': case 'maxLength': case 'maxItems':
        out[key] = Math.min(current as number, value as number);
        break;
      case 'additionalProperties':
        out.additionalProperties = current === false || value === false ? false : current;
        break;
      case 'anyOf':
        // anyOf(A) ∧ anyOf(B) = anyOf(a ∧ b for every pair).
        out.anyOf = (current as JsonSchema[]).flatMap((x) => (value as JsonSchema[]).map((y) => ({ allOf: [x, y] })));
        break;
      case 'format': case 'pattern': case 'oneOf':
        if (!deepEqual(current, value)) throw new UnsupportedSchema(null, `two different "${key}" joined by allOf`);
        break;
      default:
        // Annotations and extensions: the first one stays.
        break;
    }
  }
  return out;
}

function intersectTypes(a: JsonType[], b: JsonType[]): JsonType[] {
  const out = new Set<JsonType>();
  for (const x of a) {
    for (const y of b) {
      if (x === y) out.add(x);
      else if ((x === 'integer' && y === 'number') || (x === 'number' && y === 'integer')) out.add('integer');
    }
  }
  return [...out];
}

/**
 * The branches of an `anyOf`/`oneOf`, each joined with the rest of the
 * schema; contradictory branches are dropped.
 */
export function branches(schema: JsonSchema, keyword: 'anyOf' | 'oneOf'): JsonSchema[] {
  const { [keyword]: list, ...rest } = schema;
  const out: JsonSchema[] = [];
  for (const branch of list as JsonSchema[]) {
    const n = normalize(branch);
    const joined = n && merge(rest, n);
    const full = joined && normalize(joined);
    if (full) out.push(full);
  }
  return out;
}

/**
 * Whether the value has the shape the schema describes: type, const, enum,
 * required, properties, items, anyOf/oneOf. Lengths, bounds, formats and
 * patterns are not looked at; this picks the branch a value came from, it
 * is not a validator.
 */
export function matchesShape(schema: JsonSchema, value: unknown): boolean {
  const s = normalize(schema);
  if (!s) return false;
  if ('const' in s && !deepEqual(s.const, value)) return false;
  if (Array.isArray(s.enum) && !s.enum.some((e) => deepEqual(e, value))) return false;
  const types = typesOf(s);
  if (types && !types.some((t) => isJsonType(value, t))) return false;
  if (isPlainObject(value)) {
    for (const name of (s.required as string[] | undefined) ?? []) if (!Object.hasOwn(value, name)) return false;
    for (const [name, sub] of Object.entries((s.properties as Record<string, JsonSchema> | undefined) ?? {})) {
      if (Object.hasOwn(value, name) && !matchesShape(sub, value[name])) return false;
    }
  }
  if (Array.isArray(value) && isPlainObject(s.items)) {
    if (!value.every((item) => matchesShape(s.items as JsonSchema, item))) return false;
  }
  if (Array.isArray(s.anyOf) && !(s.anyOf as JsonSchema[]).some((b) => matchesShape(b, value))) return false;
  if (Array.isArray(s.oneOf) && (s.oneOf as JsonSchema[]).filter((b) => matchesShape(b, value)).length !== 1) return false;
  return true;
}

/** Whether every branch of the anyOf/oneOf only names required properties (`property`'s doorloom_id / external_id). */
export function isRequiredOnlyChoice(list: JsonSchema[]): boolean {
  return list.length > 0 && list.every((b) => Array.isArray(b.required) && Object.keys(b).every((k) => k === 'required' || ANNOTATIONS.has(k)));
}

/** Dotted path of a child: `units` + `0` → `units.0`. */
export function childPath(path: string, key: string | number): string {
  return path === '' ? String(key) : `${path}.${key}`;
}
