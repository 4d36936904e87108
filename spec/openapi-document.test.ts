/**
 * Checks spec/openapi.yaml against the tables of the API document (transcribed in
 * ./document-tables.ts): every endpoint, parameter, body field limit, error code and
 * resource field the document states must be in the spec, and nothing the document
 * contradicts may be. Each failure message says what the document says, citing it.
 */
import { fileURLToPath } from 'node:url';
import SwaggerParser from '@apidevtools/swagger-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadContract } from './contract.ts';
import {
  AUTH,
  BASE_PATH,
  CREATE_BOOKING_BODY,
  CREATE_BOOKING_PROPERTY_ONE_OF,
  ENDPOINTS,
  ENDPOINT_ERRORS,
  ENDPOINT_OPTIONAL_ERRORS,
  ERROR_CODES,
  ERROR_ENVELOPE,
  ERROR_TABLE,
  EVENT_ENVELOPE_FIELDS,
  EVENT_RETENTION_DAYS,
  EVENT_TYPES,
  AVAILABILITY_DATE_FIELDS,
  HEADER_PARAMETERS,
  LIMITS,
  PATH_PARAMETERS,
  QUERY_FULLY_DOCUMENTED,
  QUERY_PARAMETERS,
  RATE_LIMIT_HEADERS,
  RESPONSE_SHAPES,
  SNAPSHOT_ENDPOINTS,
  SUCCESS_ENVELOPE,
  SYNC_BODY,
  UNAVAILABLE_AVAILABILITY_KEYS,
  UNIVERSAL_ERRORS,
  WEBHOOKS,
  WEBHOOK_INTEGRATION_HEADER,
  type EndpointKey,
  type EndpointRow,
  type ErrorCode,
  type ErrorRef,
  type FieldRule,
  type LimitRule,
  type Literal,
  type ParamRule,
} from './document-tables.ts';

// ---------------------------------------------------------------------------
// Loading: the spec is read once, validated and dereferenced.
// ---------------------------------------------------------------------------

type Json = Record<string, unknown>;

const SPEC_PATH = fileURLToPath(new URL('./openapi.yaml', import.meta.url));

let loaded: { doc?: Json; error?: unknown } = {};

beforeAll(async () => {
  try {
    loaded = { doc: (await SwaggerParser.validate(SPEC_PATH)) as unknown as Json };
  } catch (error) {
    loaded = { error };
  }
});

/** The dereferenced spec; throws (failing the calling test) when it did not load. */
function spec(): Json {
  if (!loaded.doc) {
    const reason = loaded.error instanceof Error ? loaded.error.message : String(loaded.error);
    throw new Error(`spec/openapi.yaml did not load as a valid OpenAPI document: ${reason}`);
  }
  return loaded.doc;
}

// ---------------------------------------------------------------------------
// Small JSON helpers
// ---------------------------------------------------------------------------

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const asObject = (v: unknown): Json | undefined => (isObject(v) ? v : undefined);
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const show = (v: unknown): string => JSON.stringify(v);
const sortLiterals = (values: readonly unknown[]): unknown[] => [...values].sort((a, b) => show(a).localeCompare(show(b)));

/** Value at a dotted path of a plain JSON value (no `[]` steps). */
function valueAt(value: unknown, path: string): unknown {
  let current: unknown = value;
  for (const key of path.split('.')) {
    if (!isObject(current)) return undefined;
    current = current[key];
  }
  return current;
}

// ---------------------------------------------------------------------------
// JSON Schema helpers: resolve a dotted path, read keywords through allOf/anyOf/oneOf
// ---------------------------------------------------------------------------

function members(schema: Json, keyword: 'allOf' | 'anyOf' | 'oneOf'): Json[] {
  return asArray(schema[keyword]).filter(isObject);
}

/** The schema and, recursively, its `allOf` members: all of them hold at once. */
function facets(schema: Json): Json[] {
  return [schema, ...members(schema, 'allOf').flatMap(facets)];
}

/** `anyOf`/`oneOf` members of every facet. */
function alternatives(schema: Json): Json[] {
  return facets(schema).flatMap((f) => [...members(f, 'anyOf'), ...members(f, 'oneOf')]);
}

function isNullSchema(schema: Json): boolean {
  const t = schema.type;
  return t === 'null' || (Array.isArray(t) && t.length === 1 && t[0] === 'null') || ('const' in schema && schema.const === null);
}

/** Facets plus (recursively) the alternatives in which a property may be declared. */
function lookupScopes(schema: Json): Json[] {
  return facets(schema).flatMap((f) => [f, ...[...members(f, 'anyOf'), ...members(f, 'oneOf')].flatMap(lookupScopes)]);
}

/** Splits `units[].adults` into `['units', '[]', 'adults']`. Throws on an empty step. */
function parseSchemaPath(path: string): string[] {
  if (path === '') return [];
  return path.split('.').flatMap((part) => {
    const match = /^([^[\]]*)((?:\[\])*)$/.exec(part);
    if (!match || (match[1] === '' && match[2] === '')) throw new Error(`bad schema path "${path}"`);
    const name = match[1] ?? '';
    const arrays = (match[2] ?? '').length / 2;
    return [...(name ? [name] : []), ...Array.from({ length: arrays }, () => '[]')];
  });
}

/** One step down: a property (`properties`) or the array items (`[]`), merged over allOf/anyOf/oneOf. */
function childSchema(schema: Json, step: string): Json | undefined {
  const found = new Set<Json>();
  for (const scope of lookupScopes(schema)) {
    const next = step === '[]' ? asObject(scope.items) : asObject(asObject(scope.properties)?.[step]);
    if (next) found.add(next);
  }
  const list = [...found];
  if (list.length === 0) return undefined;
  if (list.length === 1) return list[0];
  return { allOf: list };
}

/**
 * Resolves a dotted path (`units[].adults`, `data[].event.type`) in a JSON Schema, looking into
 * `properties`, `items`, `allOf` (merged) and `anyOf`/`oneOf` members.
 */
function resolveSchemaPath(
  root: Json,
  path: string,
): { schema: Json; missingAt?: undefined } | { schema?: undefined; missingAt: string } {
  let current = root;
  const walked: string[] = [];
  for (const step of parseSchemaPath(path)) {
    walked.push(step);
    const next = childSchema(current, step);
    if (!next) return { missingAt: walked.join('.').replace(/\.\[\]/g, '[]') };
    current = next;
  }
  return { schema: current };
}

/** First value of a keyword in the facets, else in the non-null alternatives. */
function keyword(schema: Json, name: string): unknown {
  for (const f of facets(schema)) if (f[name] !== undefined) return f[name];
  for (const alt of alternatives(schema)) {
    if (isNullSchema(alt)) continue;
    const value = keyword(alt, name);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** Whether the node marks itself as the project's choice where the document says "not shown". */
function hasAssumption(schema: Json): boolean {
  return [...facets(schema), ...alternatives(schema)].some((f) => typeof f['x-assumption'] === 'string');
}

function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function intersectTypes(a: Set<string>, b: Set<string>): Set<string> {
  const out = new Set([...a].filter((t) => b.has(t)));
  if ((a.has('number') && b.has('integer')) || (a.has('integer') && b.has('number'))) out.add('integer');
  return out;
}

/** The set of JSON types a schema admits; undefined when it does not constrain the type. */
function schemaTypes(schema: Json): Set<string> | undefined {
  let result: Set<string> | undefined;
  for (const f of facets(schema)) {
    let own: Set<string> | undefined;
    if (typeof f.type === 'string') own = new Set([f.type]);
    else if (Array.isArray(f.type)) own = new Set(f.type.filter((t): t is string => typeof t === 'string'));
    else if ('const' in f) own = new Set([jsonTypeOf(f.const)]);
    else if (Array.isArray(f.enum)) own = new Set(f.enum.map(jsonTypeOf));
    const alts = [...members(f, 'anyOf'), ...members(f, 'oneOf')];
    if (alts.length > 0) {
      const altTypes = alts.map(schemaTypes);
      if (altTypes.every((t): t is Set<string> => t !== undefined)) {
        const union = new Set(altTypes.flatMap((t) => [...t]));
        own = own ? intersectTypes(own, union) : union;
      }
    }
    if (own) result = result ? intersectTypes(result, own) : own;
  }
  return result;
}

/** The closed value set (`enum`/`const`, through nullable alternatives); undefined when open. */
function enumValues(schema: Json): unknown[] | undefined {
  for (const f of facets(schema)) {
    if (Array.isArray(f.enum)) return f.enum;
    if ('const' in f) return [f.const];
    const alts = [...members(f, 'anyOf'), ...members(f, 'oneOf')];
    if (alts.length > 0) {
      const values: unknown[] = [];
      let closed = true;
      for (const alt of alts) {
        if (isNullSchema(alt)) {
          values.push(null);
          continue;
        }
        const inner = enumValues(alt);
        if (!inner) {
          closed = false;
          break;
        }
        values.push(...inner);
      }
      if (closed) return values;
    }
  }
  return undefined;
}

/** Property names required by the schema (allOf: any member; anyOf/oneOf: every non-null member). */
function requiredNames(schema: Json): Set<string> {
  const out = new Set<string>();
  for (const f of facets(schema)) {
    for (const name of asArray(f.required)) if (typeof name === 'string') out.add(name);
    const alts = [...members(f, 'anyOf'), ...members(f, 'oneOf')].filter((m) => !isNullSchema(m));
    if (alts.length > 0) {
      const sets = alts.map(requiredNames);
      for (const name of sets[0] ?? []) if (sets.every((s) => s.has(name))) out.add(name);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------
// OpenAPI helpers
// ---------------------------------------------------------------------------

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

const ENDPOINT_BY_KEY = new Map<string, EndpointRow>(ENDPOINTS.map((e) => [e.key, e]));

function endpointRow(key: EndpointKey): EndpointRow {
  const row = ENDPOINT_BY_KEY.get(key);
  if (!row) throw new Error(`unknown endpoint ${key}`);
  return row;
}

function pathItem(key: EndpointKey): Json | undefined {
  return asObject(asObject(spec().paths)?.[endpointRow(key).path]);
}

/** The operation of an endpoint; throws a documented-endpoint failure when absent. */
function operation(key: EndpointKey): Json {
  const row = endpointRow(key);
  const op = asObject(pathItem(key)?.[row.method.toLowerCase()]);
  if (!op) throw new Error(`${row.section}: ${key} is an endpoint of the document but is not in the spec`);
  return op;
}

/** Path-level parameters overridden by operation-level ones (same name and location). */
function parameters(key: EndpointKey): Json[] {
  const byId = new Map<string, Json>();
  for (const p of [...asArray(pathItem(key)?.parameters), ...asArray(operation(key).parameters)]) {
    if (!isObject(p)) continue;
    const name = String(p.name);
    byId.set(`${String(p.in)}:${p.in === 'header' ? name.toLowerCase() : name}`, p);
  }
  return [...byId.values()];
}

function findParameter(key: EndpointKey, location: string, name: string): Json | undefined {
  return parameters(key).find(
    (p) => p.in === location && (location === 'header' ? String(p.name).toLowerCase() === name.toLowerCase() : p.name === name),
  );
}

function responses(key: EndpointKey): Json {
  return asObject(operation(key).responses) ?? {};
}

function response(key: EndpointKey, status: number): Json | undefined {
  return asObject(responses(key)[String(status)]);
}

function jsonMedia(holder: Json | undefined): Json | undefined {
  return asObject(asObject(holder?.content)?.['application/json']);
}

/** `{name, value}` of every example of a media type (`examples` map, or a lone `example`). */
function examplesOf(media: Json | undefined): { name: string; value: unknown }[] {
  if (!media) return [];
  const out = Object.entries(asObject(media.examples) ?? {}).map(([name, ex]) => ({ name, value: asObject(ex)?.value }));
  if (media.example !== undefined) out.push({ name: '(example)', value: media.example });
  return out;
}

function responseSchema(key: EndpointKey, status: number): Json {
  const schema = asObject(jsonMedia(response(key, status))?.schema);
  if (!schema) throw new Error(`${endpointRow(key).section}: ${key} answers ${status} with a JSON body (no schema in the spec)`);
  return schema;
}

function requestSchema(key: EndpointKey): Json {
  const schema = asObject(jsonMedia(asObject(operation(key).requestBody))?.schema);
  if (!schema) throw new Error(`${endpointRow(key).section}: ${key} takes a JSON body (no requestBody schema in the spec)`);
  return schema;
}

function webhookOperation(name: string): Json {
  const op = asObject(asObject(asObject(spec().webhooks)?.[name])?.post);
  if (!op) throw new Error(`§6: webhook ${name} is not in the spec's webhooks (as a post operation)`);
  return op;
}

// ---------------------------------------------------------------------------
// Rule → checks. A check is `[test name, run]`; run throws with the documented expectation.
// ---------------------------------------------------------------------------

type Check = readonly [name: string, run: () => void];

const fmtValues = (values: readonly Literal[]): string => values.map((v) => show(v)).join(', ');

/** Checks of the schema keywords a rule states (type, enum, format, bounds, default, items). */
function keywordChecks(subject: string, rule: FieldRule, schemaOf: () => Json): Check[] {
  const p = rule.path;
  const s = rule.section;
  const checks: Check[] = [];
  const typeLabel = rule.type ? `${rule.type}${rule.nullable ? ' or null' : ''}` : undefined;

  if (typeLabel) {
    checks.push([
      `${subject} has type ${typeLabel}`,
      () => {
        const expected = [rule.type as string, ...(rule.nullable ? ['null'] : [])].sort();
        expect([...(schemaTypes(schemaOf()) ?? [])].sort(), `${s}: ${p} type ${typeLabel}`).toEqual(expected);
      },
    ]);
  }
  if (rule.accepts) {
    const accepts = rule.accepts;
    checks.push([
      `${subject} accepts ${accepts.join(' and ')}`,
      () => {
        const types = schemaTypes(schemaOf());
        if (!types) return; // unconstrained: accepts everything
        for (const t of accepts) expect(types.has(t), `${s}: ${p} accepts ${t}`).toBe(true);
      },
    ]);
  }
  if (rule.typeWithin) {
    const within = rule.typeWithin;
    checks.push([
      `${subject} is ${within.join(' or ')}`,
      () => {
        const types = [...(schemaTypes(schemaOf()) ?? ['(any)'])];
        expect(types.length, `${s}: ${p} is ${within.join(' or ')}`).toBeGreaterThan(0);
        for (const t of types) expect(within as readonly string[], `${s}: ${p} is ${within.join(' or ')}`).toContain(t);
      },
    ]);
  }
  if (rule.enum) {
    const values = rule.enum;
    checks.push([
      `${subject} has enum ${fmtValues(values)}`,
      () => {
        const actual = enumValues(schemaOf());
        expect(actual, `${s}: ${p} enum ${fmtValues(values)}`).toBeDefined();
        expect(sortLiterals((actual ?? []).filter((v) => v !== null)), `${s}: ${p} enum ${fmtValues(values)}`).toEqual(
          sortLiterals(values.filter((v) => v !== null)),
        );
      },
    ]);
    if (rule.nullable) {
      checks.push([
        `${subject} enum admits null (the field is nullable)`,
        () => {
          expect(enumValues(schemaOf()) ?? [], `${s}: ${p} is "or null": its enum must include null`).toContain(null);
        },
      ]);
    }
  }
  if (rule.allowedValues) {
    const values = rule.allowedValues;
    checks.push([
      `${subject} closes its values, if at all, to ${fmtValues(values)}`,
      () => {
        const actual = enumValues(schemaOf());
        if (actual === undefined) return;
        expect(sortLiterals(actual.filter((v) => v !== null)), `${s}: ${p} values ${fmtValues(values)}`).toEqual(
          sortLiterals(values.filter((v) => v !== null)),
        );
      },
    ]);
  }
  if (rule.openValues) {
    const values = rule.openValues;
    checks.push([
      `${subject} is not closed to a set without an x-assumption (values seen ${fmtValues(values)}, full set not shown)`,
      () => {
        const schema = schemaOf();
        const actual = enumValues(schema);
        if (actual === undefined) return;
        expect(
          hasAssumption(schema),
          `${s}: ${p} values seen ${fmtValues(values)}; the full set is not shown, so a closed enum is an x-assumption`,
        ).toBe(true);
        for (const v of values) expect(actual, `${s}: ${p} admits the value seen ${show(v)}`).toContain(v);
      },
    ]);
  }
  if (rule.format) {
    const format = rule.format;
    checks.push([
      `${subject} has format ${format}`,
      () => expect(keyword(schemaOf(), 'format'), `${s}: ${p} format ${format}`).toBe(format),
    ]);
  }
  if (rule.formatIfPresent) {
    const format = rule.formatIfPresent;
    checks.push([
      `${subject} has no format other than ${format}`,
      () => {
        const actual = keyword(schemaOf(), 'format');
        if (actual !== undefined) expect(actual, `${s}: ${p} is ISO 8601 (format ${format})`).toBe(format);
      },
    ]);
  }
  if (rule.noFormat) {
    checks.push([
      `${subject} sets no format (any parseable date or timestamp)`,
      () =>
        expect(keyword(schemaOf(), 'format'), `${s}: ${p} accepts any parseable date or timestamp: no format`).toBeUndefined(),
    ]);
  }
  for (const name of ['minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems'] as const) {
    const value = rule[name];
    if (value === undefined) continue;
    checks.push([`${subject} has ${name} ${value}`, () => expect(keyword(schemaOf(), name), `${s}: ${p} ${name} ${value}`).toBe(value)]);
  }
  if (rule.default !== undefined) {
    const value = rule.default;
    checks.push([
      `${subject} has default ${show(value)}`,
      () => expect(keyword(schemaOf(), 'default'), `${s}: ${p} default ${show(value)}`).toEqual(value),
    ]);
  }
  if (rule.items) {
    const items = rule.items;
    const itemsOf = (): Json => {
      const child = childSchema(schemaOf(), '[]');
      if (!child) throw new Error(`${s}: ${p} is an array of ${items.type} (no items schema in the spec)`);
      return child;
    };
    checks.push(
      ...keywordChecks(
        `${subject} items`,
        {
          path: `${p}[]`,
          type: items.type,
          section: s,
          ...(items.enum ? { enum: items.enum } : {}),
          ...(items.allowedValues ? { allowedValues: items.allowedValues } : {}),
        },
        itemsOf,
      ),
    );
  }
  return checks;
}

/** Checks of one field of a schema: presence, required-ness, keywords. */
function fieldChecks(subject: string, rule: FieldRule, rootOf: () => Json, prefix = ''): Check[] {
  const fullPath = `${prefix}${rule.path}`;
  const s = rule.section;
  const schemaOf = (): Json => {
    const found = resolveSchemaPath(rootOf(), fullPath);
    if (!found.schema) throw new Error(`${s}: ${rule.path} is a documented field (spec has no ${found.missingAt})`);
    return found.schema;
  };
  const checks: Check[] = [[`${subject} has field ${rule.path}`, () => void schemaOf()]];

  if (rule.required !== undefined) {
    const steps = parseSchemaPath(fullPath);
    const name = steps[steps.length - 1] ?? '';
    const parentPath = fullPath.slice(0, Math.max(0, fullPath.length - name.length - 1));
    const parentOf = (): Json => {
      const found = resolveSchemaPath(rootOf(), parentPath);
      if (!found.schema) throw new Error(`${s}: ${rule.path} is a documented field (spec has no ${found.missingAt})`);
      return found.schema;
    };
    if (rule.required === true) {
      checks.push([
        `${subject} field ${rule.path} is required`,
        () => expect(requiredNames(parentOf()).has(name), `${s}: ${rule.path} is required`).toBe(true),
      ]);
    } else if (rule.required === false) {
      checks.push([
        `${subject} field ${rule.path} is optional`,
        () => expect(requiredNames(parentOf()).has(name), `${s}: ${rule.path} is optional`).toBe(false),
      ]);
    } else {
      checks.push([
        `${subject} field ${rule.path} is not required on its own (one of ${CREATE_BOOKING_PROPERTY_ONE_OF.join(' / ')})`,
        () =>
          expect(
            requiredNames(parentOf()).has(name),
            `${s}: ${rule.path} is "one of the two": not required on its own`,
          ).toBe(false),
      ]);
    }
  }
  checks.push(...keywordChecks(`${subject} field ${rule.path}`, rule, schemaOf));
  return checks;
}

/** Checks of one documented parameter: presence, location, required-ness, schema keywords. */
function paramChecks(rule: ParamRule): Check[] {
  const subject = `${rule.endpoint} ${rule.in} parameter ${rule.path}`;
  const s = rule.section;
  const paramOf = (): Json => {
    const param = findParameter(rule.endpoint, rule.in, rule.path);
    if (!param) throw new Error(`${s}: ${rule.endpoint} takes ${rule.in} parameter ${rule.path}`);
    return param;
  };
  const schemaOf = (): Json => {
    const schema = asObject(paramOf().schema);
    if (!schema) throw new Error(`${s}: ${rule.endpoint} ${rule.in} parameter ${rule.path} has a schema`);
    return schema;
  };
  return [
    [`${rule.endpoint} takes ${rule.in} parameter ${rule.path}`, () => void paramOf()],
    [
      `${subject} is ${rule.required ? 'required' : 'optional'}`,
      () => expect(paramOf().required === true, `${s}: ${rule.path} is ${rule.required ? 'required' : 'optional'}`).toBe(rule.required === true),
    ],
    ...keywordChecks(subject, rule, schemaOf),
  ];
}

// ---------------------------------------------------------------------------
// Derived tables
// ---------------------------------------------------------------------------

const UNIVERSAL_KEYS = new Set(UNIVERSAL_ERRORS.map(([status, code]) => `${status} ${code}`));

/** Where an endpoint's `[status, code]` comes from, for failure messages. */
function errorSource(key: EndpointKey, [status, code]: ErrorRef): string {
  if (code === null) return '§5 item 6 (bare 404)';
  if (UNIVERSAL_KEYS.has(`${status} ${code}`)) return '§4 preamble, §7';
  return `${endpointRow(key).section}, §7 mapping`;
}

/** Every error status of an endpoint with its documented (and optional) codes. */
function errorStatuses(key: EndpointKey): Map<number, { codes: ErrorCode[]; optional: ErrorCode[] }> {
  const out = new Map<number, { codes: ErrorCode[]; optional: ErrorCode[] }>();
  const entry = (status: number) => {
    let e = out.get(status);
    if (!e) out.set(status, (e = { codes: [], optional: [] }));
    return e;
  };
  for (const [status, code] of ENDPOINT_ERRORS[key]) {
    const e = entry(status);
    if (code) e.codes.push(code);
  }
  for (const [status, code] of ENDPOINT_OPTIONAL_ERRORS[key] as readonly ErrorRef[]) {
    if (code) entry(status).optional.push(code);
  }
  return out;
}

const ENDPOINT_KEYS = ENDPOINTS.map((e) => e.key);

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

describe('resolveSchemaPath (helper)', () => {
  const schema: Json = {
    type: 'object',
    properties: {
      units: { type: 'array', items: { allOf: [{ properties: { adults: { type: 'integer', maximum: 50 } } }] } },
      webhook: { anyOf: [{ type: 'object', properties: { paused_reason: { type: ['string', 'null'] } } }, { type: 'null' }] },
    },
  };
  it.each<readonly [string, { given: string; want: string | undefined }]>([
    ['finds a field through items and allOf', { given: 'units[].adults', want: 'integer' }],
    ['finds a field through a nullable anyOf', { given: 'webhook.paused_reason', want: 'null,string' }],
    ['reports a missing field', { given: 'units[].children', want: undefined }],
  ])('%s', (_name, { given, want }) => {
    const found = resolveSchemaPath(schema, given);
    expect(found.schema ? [...(schemaTypes(found.schema) ?? [])].sort().join(',') : undefined).toBe(want);
  });
  it('says where a missing path stops', () => {
    expect(resolveSchemaPath(schema, 'units[].children.x').missingAt).toBe('units[].children');
  });
  it('rejects a malformed path', () => {
    expect(() => parseSchemaPath('units..adults')).toThrow(/bad schema path/);
  });
  it('reads keywords, enums and required through allOf and nullable anyOf', () => {
    const s: Json = {
      allOf: [{ required: ['a'] }, { anyOf: [{ type: 'string', enum: ['x', 'y'], maxLength: 3 }, { type: 'null' }] }],
    };
    expect(keyword(s, 'maxLength')).toBe(3);
    expect(enumValues(s)).toEqual(['x', 'y', null]);
    expect([...requiredNames(s)]).toEqual(['a']);
    expect(requiredNames({ anyOf: [{ required: ['a'] }, { required: ['b'] }] }).size).toBe(0);
  });
});

describe('spec/openapi.yaml against the API document 2026-09', () => {
  it('is a valid OpenAPI 3.1 document', () => {
    expect(String(spec().openapi), 'the spec is OpenAPI 3.1').toMatch(/^3\.1\./);
  });

  it('serves paths relative to {base_url}/api/integrations/v1 (conventions)', () => {
    const servers = asArray(spec().servers).filter(isObject);
    expect(servers.length, `conventions: paths are relative to {base_url}${BASE_PATH}`).toBeGreaterThan(0);
    for (const server of servers) {
      expect(String(server.url).replace(/\/+$/, ''), `conventions: server URL ends with ${BASE_PATH}`).toMatch(
        new RegExp(`${BASE_PATH.replace(/\//g, '\\/')}$`),
      );
    }
  });

  // ---- Part 4: endpoints ----------------------------------------------------

  describe('part 4 endpoints', () => {
    it.each(ENDPOINTS.map((e) => [`every endpoint of part 4 is in the spec: ${e.key}`, e.key] as const))('%s', (_n, key) => {
      operation(key);
    });

    it('the spec has no endpoint part 4 does not list', () => {
      const paths = asObject(spec().paths) ?? {};
      const found: string[] = [];
      for (const [path, item] of Object.entries(paths)) {
        for (const method of METHODS) if (isObject(asObject(item)?.[method])) found.push(`${method.toUpperCase()} ${path}`);
      }
      const extra = found.filter((k) => !ENDPOINT_BY_KEY.has(k));
      expect(extra, 'part 4: these operations are not endpoints of the document').toEqual([]);
    });

    it.each(
      ENDPOINTS.filter((e) => e.method === 'GET').map((e) => [`${e.key} takes no request body`, e.key] as const),
    )('%s', (_n, key) => {
      expect(operation(key).requestBody, `${endpointRow(key).section}: ${key} has no body`).toBeUndefined();
    });

    it('POST /bookings takes a required JSON body (§4.5)', () => {
      expect(asObject(operation('POST /bookings').requestBody)?.required, '§4.5: the create body is required').toBe(true);
      requestSchema('POST /bookings');
    });

    it('POST /sync takes an optional JSON body (§4.7: empty body means everything)', () => {
      expect(asObject(operation('POST /sync').requestBody)?.required === true, '§4.7: the sync body is optional').toBe(false);
      requestSchema('POST /sync');
    });
  });

  // ---- Parameters (§4.2-§4.8, part 8) -----------------------------------------

  describe('parameters', () => {
    it.each(QUERY_PARAMETERS.flatMap(paramChecks))('%s', (_n, run) => run());
    it.each(PATH_PARAMETERS.flatMap(paramChecks))('%s', (_n, run) => run());
    it.each(HEADER_PARAMETERS.flatMap(paramChecks))('%s', (_n, run) => run());

    it.each(QUERY_FULLY_DOCUMENTED.map((key) => [`${key} has no query parameter the document does not list`, key] as const))(
      '%s',
      (_n, key) => {
        const documented = QUERY_PARAMETERS.filter((p) => p.endpoint === key).map((p) => p.path);
        const actual = parameters(key)
          .filter((p) => p.in === 'query')
          .map((p) => String(p.name));
        expect(
          actual.filter((name) => !documented.includes(name)),
          `${endpointRow(key).section}: ${key} query parameters are ${documented.join(', ') || 'none'}`,
        ).toEqual([]);
      },
    );
  });

  // ---- Request bodies (§4.5, §4.7) ---------------------------------------------

  describe('request bodies', () => {
    it.each(CREATE_BOOKING_BODY.flatMap((rule) => fieldChecks('POST /bookings body', rule, () => requestSchema('POST /bookings'))))(
      '%s',
      (_n, run) => run(),
    );

    it('POST /bookings body property requires one of doorloom_id / external_id (§4.5 anyOf)', () => {
      const property = resolveSchemaPath(requestSchema('POST /bookings'), 'property').schema;
      if (!property) throw new Error('§4.5: property is a documented field');
      const anyOfs = facets(property)
        .map((f) => members(f, 'anyOf'))
        .filter((list) => list.length > 0);
      const shapes = anyOfs.map((list) => list.map((m) => asArray(m.required).map(String).sort().join(',')).sort());
      expect(
        shapes,
        '§4.5: property.doorloom_id / property.external_id: one of the two (anyOf [{required:[doorloom_id]},{required:[external_id]}])',
      ).toContainEqual([...CREATE_BOOKING_PROPERTY_ONE_OF].sort());
    });

    it.each(SYNC_BODY.flatMap((rule) => fieldChecks('POST /sync body', rule, () => requestSchema('POST /sync'))))('%s', (_n, run) =>
      run(),
    );
  });

  // ---- Part 8 limits -------------------------------------------------------------

  describe('part 8 limits', () => {
    it.each(
      (LIMITS as readonly LimitRule[]).map(
        (l): readonly [string, LimitRule] => [`§8 ${l.limit}: ${l.endpoint} ${l.location} ${l.field} has ${l.keyword} ${l.value}`, l],
      ),
    )('%s', (_n, l) => {
      let schema: Json | undefined;
      if (l.location === 'body') {
        schema = resolveSchemaPath(requestSchema(l.endpoint), l.field).schema;
      } else {
        schema = asObject(findParameter(l.endpoint, l.location, l.field)?.schema);
      }
      expect(schema, `§8 ${l.limit}: ${l.endpoint} has ${l.location} ${l.field}`).toBeDefined();
      expect(keyword(schema ?? {}, l.keyword), `§8 ${l.limit}: ${l.field} ${l.keyword} ${l.value}`).toEqual(l.value);
    });
  });

  // ---- Responses: statuses and error codes (part 7) -------------------------------

  describe('responses and error codes', () => {
    it.each(
      ENDPOINT_KEYS.flatMap((key) =>
        ENDPOINT_ERRORS[key].map(
          ([status, code]) =>
            [
              code ? `${key} answers ${status} ${code}` : `${key} answers the bare 404 (API switched off)`,
              { key, ref: [status, code] as ErrorRef },
            ] as const,
        ),
      ),
    )('%s', (_n, { key, ref }) => {
      const [status, code] = ref;
      const source = errorSource(key, ref);
      const resp = response(key, status);
      expect(resp, `${source}: ${key} answers ${status}${code ? ` ${code}` : ''}`).toBeDefined();
      if (!code) return;
      const codes = examplesOf(jsonMedia(resp)).map((e) => valueAt(e.value, 'code'));
      expect(codes, `${source}: ${key} answers ${status} ${code} (an example with that code)`).toContain(code);
    });

    it.each(
      ENDPOINTS.flatMap((e) => e.successStatuses.map((status) => [`${e.key} answers ${status}`, { key: e.key, status }] as const)),
    )('%s', (_n, { key, status }) => {
      expect(response(key, status), `${endpointRow(key).section}: ${key} answers ${status}`).toBeDefined();
    });

    it.each(ENDPOINT_KEYS.map((key) => [`${key} declares no status the document does not list`, key] as const))('%s', (_n, key) => {
      const documented = new Set([...endpointRow(key).successStatuses, ...errorStatuses(key).keys()].map(String));
      const extra = Object.keys(responses(key)).filter((s) => s !== 'default' && !documented.has(s));
      expect(extra, `${endpointRow(key).section}, §7: ${key} answers only ${[...documented].join(', ')}`).toEqual([]);
    });

    // Each error status: envelope schema, exactly the documented codes as examples, full envelopes.
    const errorResponses = ENDPOINT_KEYS.flatMap((key) =>
      [...errorStatuses(key)]
        .filter(([, { codes }]) => codes.length > 0)
        .map(([status, { codes, optional }]) => ({ key, status, codes, optional })),
    );

    it.each(
      errorResponses.flatMap(({ key, status }) =>
        ERROR_ENVELOPE.flatMap((rule) => fieldChecks(`${key} ${status} error envelope`, rule, () => responseSchema(key, status))),
      ),
    )('%s', (_n, run) => run());

    it.each(
      errorResponses.map(
        ({ key, status, codes, optional }) =>
          [`${key} ${status} has one example per documented code: ${codes.join(', ')}`, { key, status, codes, optional }] as const,
      ),
    )('%s', (_n, { key, status, codes, optional }) => {
      const actual = examplesOf(jsonMedia(response(key, status))).map((e) => String(valueAt(e.value, 'code')));
      const allowed = new Set<string>([...codes, ...optional]);
      const expected = [...codes, ...optional.filter((c) => actual.includes(c))].sort();
      expect(actual.sort(), `${endpointRow(key).section}, §7: ${key} answers ${status} with ${[...allowed].join(', ')}`).toEqual(expected);
    });

    it.each(
      errorResponses.map(({ key, status }) => [`${key} ${status} examples are full error envelopes`, { key, status }] as const),
    )('%s', (_n, { key, status }) => {
      const examples = examplesOf(jsonMedia(response(key, status)));
      expect(examples.length, `§7: ${key} ${status} has examples`).toBeGreaterThan(0);
      for (const { name, value } of examples) {
        const where = `§7 error envelope {success:false, code, message, errors}: ${key} ${status} example ${name}`;
        expect.soft(valueAt(value, 'success'), where).toBe(false);
        expect.soft(typeof valueAt(value, 'code'), where).toBe('string');
        expect.soft(typeof valueAt(value, 'message'), where).toBe('string');
        expect.soft(isObject(valueAt(value, 'errors')), where).toBe(true);
      }
    });

    // Clause 1.V1 note: §1 gives every endpoint 404 for another integration's property, §7's /events
    // mapping has none. The contract accepts both readings there, and says so in the response.
    const BOTH_READINGS_404: EndpointKey[] = ['GET /events'];

    it.each(
      ENDPOINT_KEYS.filter((key) => !errorStatuses(key).get(404)?.codes.length && !BOTH_READINGS_404.includes(key)).map(
        (key) => [`${key} 404 is the bare 404 with an empty body`, key] as const,
      ),
    )('%s', (_n, key) => {
      const content = asObject(response(key, 404)?.content);
      expect(Object.keys(content ?? {}), `§5 item 6, §7: ${key} 404 is bare (empty body); it does not answer NOT_FOUND`).toEqual([]);
    });

    it.each(BOTH_READINGS_404)('%s 404 takes NOT_FOUND only as the other reading of 1.V1, and says so', (key) => {
      const res = response(key, 404) as { description?: string } | undefined;
      expect(res?.description ?? '').toMatch(/1\.V1/);
      expect(examplesOf(jsonMedia(res)).map((e) => valueAt(e.value, 'code'))).toEqual(['NOT_FOUND']);
    });

    it.each(
      ENDPOINT_KEYS.flatMap((key) =>
        RATE_LIMIT_HEADERS.map((header) => [`${key} 429 declares header ${header}`, { key, header }] as const),
      ),
    )('%s', (_n, { key, header }) => {
      const headers = Object.keys(asObject(response(key, 429)?.headers) ?? {}).map((h) => h.toLowerCase());
      expect(headers, `§7 RATE_LIMITED: ${key} 429 sets ${header}`).toContain(header.toLowerCase());
    });

    it('every error code of part 7 is in components.schemas.ErrorCode, and no other', () => {
      const schema = asObject(asObject(asObject(spec().components)?.schemas)?.ErrorCode);
      expect(schema, '§7: components.schemas.ErrorCode exists').toBeDefined();
      expect([...(schemaTypes(schema ?? {}) ?? [])], '§7: ErrorCode is a string').toEqual(['string']);
      expect(sortLiterals(enumValues(schema ?? {}) ?? []), `§7: ErrorCode is ${ERROR_CODES.join(', ')}`).toEqual(
        sortLiterals(ERROR_CODES),
      );
    });

    it.each(ERROR_TABLE.map((row) => [`error code ${row.code} is only answered with status ${row.status}`, row] as const))(
      '%s',
      (_n, row) => {
        for (const key of ENDPOINT_KEYS) {
          for (const [status, r] of Object.entries(asObject(operation(key).responses) ?? {})) {
            for (const { name, value } of examplesOf(jsonMedia(asObject(r)))) {
              if (valueAt(value, 'code') !== row.code) continue;
              expect.soft(status, `§7: ${row.code} is status ${row.status} (${key} example ${name})`).toBe(String(row.status));
            }
          }
        }
      },
    );
  });

  // ---- Success responses and part 2 shapes ------------------------------------------

  describe('success responses and part 2 fields', () => {
    const successes = ENDPOINTS.flatMap((e) => e.successStatuses.map((status) => ({ key: e.key as EndpointKey, status })));

    it.each(successes.map(({ key, status }) => [`${key} ${status} has a JSON schema and an example`, { key, status }] as const))(
      '%s',
      (_n, { key, status }) => {
        responseSchema(key, status);
        const examples = examplesOf(jsonMedia(response(key, status)));
        expect(examples.length, `conventions: ${key} ${status} shows at least one example`).toBeGreaterThan(0);
        for (const { name, value } of examples) {
          expect.soft(valueAt(value, 'success'), `conventions: success envelope has success true (${name})`).toBe(true);
        }
      },
    );

    it.each(
      successes.flatMap(({ key, status }) =>
        SUCCESS_ENVELOPE.flatMap((rule) => fieldChecks(`${key} ${status} success envelope`, rule, () => responseSchema(key, status))),
      ),
    )('%s', (_n, run) => run());

    it.each(
      RESPONSE_SHAPES.flatMap((shape) =>
        shape.fields.flatMap((rule) =>
          fieldChecks(
            `${shape.endpoint} ${shape.status}: the ${shape.table} at ${shape.prefix || '(body)'}`,
            rule,
            () => responseSchema(shape.endpoint, shape.status),
            shape.prefix,
          ),
        ),
      ),
    )('%s', (_n, run) => run());

    it('POST /bookings 200 is the duplicate response: its examples show data.duplicate true (§4.5 rule 4)', () => {
      const examples = examplesOf(jsonMedia(response('POST /bookings', 200)));
      expect(examples.length, '§4.5 rule 4: POST /bookings answers 200 for a duplicate').toBeGreaterThan(0);
      for (const { name, value } of examples) {
        expect.soft(valueAt(value, 'data.duplicate'), `§2.3, §4.5 rule 4: duplicate true on the 200 (${name})`).toBe(true);
      }
    });

    it.each([
      ['POST /bookings', 200, true],
      ['POST /bookings', 201, false],
      ['GET /bookings/{doorloom_id}', 200, false],
      ['GET /bookings/external/{external_booking_id}', 200, false],
    ] as const)('§2.3: %s %s answers duplicate %s (true only on the 200 duplicate answer, absent or false elsewhere)', (endpoint, status, duplicate) => {
      const contract = loadContract();
      const op = contract.operations.find((o) => `${o.method.toUpperCase()} ${o.path}` === endpoint)!;
      const booking = { id: 1, external_booking_id: 'x', revision: 1, origin: 'partner', status: 'confirmed', property: { doorloom_id: 1, external_id: 'p' }, check_in: '2026-10-01', check_out: '2026-10-02', guests: { adults: 1, children: 0 }, units: [{ inventory_id: 1, external_unit_id: 'u', adults: 1, children: 0, meal_plan: 'EP', stay_price: 1 }], pricing: { currency: 'INR', total: 1, advance: 0, balance: 1 }, updated_at: '2026-10-01T00:00:00+05:30' };
      const answer = (extra: object) => ({ success: true, message: 'ok', data: { ...booking, ...extra } });
      const valid = (extra: object) => contract.checkResponse(op, status, answer(extra), {}).filter((p) => p.startsWith('body'));
      expect(valid({ duplicate })).toEqual([]);
      expect(valid({ duplicate: !duplicate })).not.toEqual([]);
      if (duplicate) expect(valid({})).not.toEqual([]);
      else expect(valid({})).toEqual([]);
    });

    it('POST /bookings 201 examples do not show duplicate true (§2.3: only on the 200)', () => {
      for (const { name, value } of examplesOf(jsonMedia(response('POST /bookings', 201)))) {
        expect.soft(valueAt(value, 'data.duplicate'), `§2.3: duplicate only on a 200 duplicate response (${name})`).not.toBe(true);
      }
    });

    it('GET /events 200 examples show retention_days 30 (§4.6, §8)', () => {
      for (const { name, value } of examplesOf(jsonMedia(response('GET /events', 200)))) {
        const days = valueAt(value, 'cursor.retention_days');
        expect.soft(days, `§4.6: cursor is a top-level sibling with retention_days (${name})`).toBeDefined();
        expect.soft(days, `§4.6, §8: retention_days ${EVENT_RETENTION_DAYS} (${name})`).toBe(EVENT_RETENTION_DAYS);
      }
    });

    it('GET /bookings 200 examples carry pagination as a top-level sibling (§4.4)', () => {
      for (const { name, value } of examplesOf(jsonMedia(response('GET /bookings', 200)))) {
        expect.soft(Array.isArray(valueAt(value, 'data')), `§4.4: data is an array (${name})`).toBe(true);
        expect.soft(isObject(valueAt(value, 'pagination')), `§4.4: top-level pagination (${name})`).toBe(true);
      }
    });
  });

  // ---- Error bodies with documented content -----------------------------------------

  describe('documented error bodies', () => {
    const exampleFor = (key: EndpointKey, status: number, code: ErrorCode): unknown => {
      const found = examplesOf(jsonMedia(response(key, status))).find((e) => valueAt(e.value, 'code') === code);
      if (!found) throw new Error(`${endpointRow(key).section}: ${key} answers ${status} ${code} (no example in the spec)`);
      return found.value;
    };

    it.each(
      UNAVAILABLE_AVAILABILITY_KEYS.map(
        (k) => [`POST /bookings 409 UNAVAILABLE example has errors.availability.${k} (§4.5 rule 7)`, k] as const,
      ),
    )('%s', (_n, k) => {
      const value = exampleFor('POST /bookings', 409, 'UNAVAILABLE');
      expect(valueAt(value, `errors.availability.${k}`), `§4.5 rule 7: errors.availability.${k}`).toBeDefined();
    });

    it('POST /bookings 409 UNAVAILABLE example dates[] are availability date entries (§2.4)', () => {
      const dates = asArray(valueAt(exampleFor('POST /bookings', 409, 'UNAVAILABLE'), 'errors.availability.dates'));
      expect(dates.length, '§4.5 rule 7: dates[] lists the nights').toBeGreaterThan(0);
      for (const entry of dates) {
        expect.soft(Object.keys(asObject(entry) ?? {}).sort(), '§2.4: date entry fields').toEqual(
          AVAILABILITY_DATE_FIELDS.map((f) => f.path).sort(),
        );
      }
    });

    it.each(
      SNAPSHOT_ENDPOINTS.map(
        (key) => [`${key} 422 VALIDATION_FAILED example reports against field to (§4.8)`, key] as const,
      ),
    )('%s', (_n, key) => {
      const errors = asObject(valueAt(exampleFor(key, 422, 'VALIDATION_FAILED'), 'errors')) ?? {};
      expect(Object.keys(errors), '§4.8: window over 92 days or to beyond 730 days ahead is reported against field to').toContain('to');
    });

    it('POST /sync 429 SYNC_TOO_SOON example has errors.retry_after in seconds (§7)', () => {
      const retry = valueAt(exampleFor('POST /sync', 429, 'SYNC_TOO_SOON'), 'errors.retry_after');
      expect(typeof retry, '§7 SYNC_TOO_SOON: errors.retry_after is seconds').toBe('number');
    });

    it.each(
      ENDPOINT_KEYS.filter((key) => ENDPOINT_ERRORS[key].some(([, c]) => c === 'VALIDATION_FAILED')).map(
        (key) => [`${key} 422 VALIDATION_FAILED example keys errors by field path, each an array of messages (§7)`, key] as const,
      ),
    )('%s', (_n, key) => {
      const errors = asObject(valueAt(exampleFor(key, 422, 'VALIDATION_FAILED'), 'errors')) ?? {};
      expect(Object.keys(errors).length, '§7: 422 validation errors name at least one field').toBeGreaterThan(0);
      for (const [field, messages] of Object.entries(errors)) {
        expect.soft(
          Array.isArray(messages) && messages.every((m) => typeof m === 'string'),
          `§7: errors.${field} is an array of messages`,
        ).toBe(true);
      }
    });
  });

  // ---- Part 5: authentication -------------------------------------------------------

  describe('authentication (part 5)', () => {
    const bearerNames = (): string[] =>
      Object.entries(asObject(asObject(spec().components)?.securitySchemes) ?? {})
        .filter(([, s]) => isObject(s) && s.type === AUTH.type && String(s.scheme).toLowerCase() === AUTH.scheme)
        .map(([name]) => name);

    it('components.securitySchemes has an HTTP bearer scheme (§5 item 1)', () => {
      expect(bearerNames().length, '§5 item 1: Authorization: Bearer <API_KEY>').toBeGreaterThan(0);
    });

    it('no scheme other than HTTP bearer exists (§5 item 1)', () => {
      const all = Object.keys(asObject(asObject(spec().components)?.securitySchemes) ?? {});
      expect(all.filter((n) => !bearerNames().includes(n)), '§5 item 1: no basic auth, no query parameter, no other scheme').toEqual([]);
    });

    it('the root security requires the bearer scheme (§5 item 1)', () => {
      const requirements = asArray(spec().security).filter(isObject);
      expect(requirements.length, '§5 item 1: every call carries the bearer header').toBeGreaterThan(0);
      for (const req of requirements) {
        expect.soft(Object.keys(req).some((n) => bearerNames().includes(n)), '§5 item 1: bearer required').toBe(true);
      }
    });

    it.each(ENDPOINT_KEYS.map((key) => [`${key} does not opt out of bearer authentication`, key] as const))('%s', (_n, key) => {
      const security = operation(key).security;
      if (security === undefined) return;
      const requirements = asArray(security);
      expect(requirements.length, '§5 item 1: no endpoint is unauthenticated').toBeGreaterThan(0);
      for (const req of requirements) {
        expect.soft(
          Object.keys(asObject(req) ?? {}).some((n) => bearerNames().includes(n)),
          '§5 item 1: no endpoint is unauthenticated',
        ).toBe(true);
      }
    });
  });

  // ---- Part 6: webhooks ---------------------------------------------------------------

  describe('webhooks (part 6)', () => {
    it.each(WEBHOOKS.map((name) => [`webhooks has ${name}`, name] as const))('%s', (_n, name) => {
      webhookOperation(name);
    });

    it('webhooks has nothing beyond the six event types and ping', () => {
      const names = Object.keys(asObject(spec().webhooks) ?? {});
      expect(
        names.filter((n) => !(WEBHOOKS as readonly string[]).includes(n)),
        `§6: webhooks are ${WEBHOOKS.join(', ')}`,
      ).toEqual([]);
    });

    it.each(
      WEBHOOKS.map((name) => [`webhook ${name} carries header ${WEBHOOK_INTEGRATION_HEADER}`, name] as const),
    )('%s', (_n, name) => {
      const headers = asArray(webhookOperation(name).parameters)
        .filter(isObject)
        .filter((p) => p.in === 'header')
        .map((p) => String(p.name).toLowerCase());
      expect(headers, `§2.1, §6 rule 3: every webhook carries ${WEBHOOK_INTEGRATION_HEADER} (the integration slug)`).toContain(
        WEBHOOK_INTEGRATION_HEADER.toLowerCase(),
      );
    });

    const bodyOf = (name: string) => (): Json => {
      const schema = asObject(jsonMedia(asObject(webhookOperation(name).requestBody))?.schema);
      if (!schema) throw new Error(`§2.5: webhook ${name} posts the event envelope (no JSON body schema in the spec)`);
      return schema;
    };

    it.each(
      EVENT_TYPES.flatMap((type) =>
        EVENT_ENVELOPE_FIELDS.flatMap((rule) => fieldChecks(`webhook ${type}: the event envelope (§2.5)`, rule, bodyOf(type))),
      ),
    )('%s', (_n, run) => run());

    it.each(EVENT_TYPES.map((type) => [`webhook ${type} body admits type ${type}`, type] as const))('%s', (_n, type) => {
      const typeSchema = resolveSchemaPath(bodyOf(type)(), 'type').schema;
      if (!typeSchema) throw new Error('§2.5: type is a documented field');
      const values = enumValues(typeSchema);
      if (values) expect(values, `§2.5: the ${type} webhook posts events of type ${type}`).toContain(type);
    });
  });
});
