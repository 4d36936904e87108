/**
 * The contract loader: reads spec/openapi.yaml once, resolves every local
 * `$ref`, and yields plain operation objects and compiled validators.
 * Nothing else in the project reads the raw document (the Prism rule in
 * HOUSE-STYLE.md), so validation rules live once, in the OpenAPI document.
 */
import { forAjvDiscriminator } from './discriminator.ts';
import { createRequire } from 'node:module';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { parseYamlCached } from './yaml-cache.ts';
import { addFieldError, newFieldErrors, type FieldErrors } from './field-errors.ts';

// ajv (about 80 modules) is loaded on first use, synchronously (it ships CommonJS): a start that
// answers GET /me does not need it, since /me has no parameters and production checks no responses.
// (yaml is spared the same way: see yaml-cache.ts.)
const require = createRequire(import.meta.url);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonSchema = { [key: string]: unknown };

export type HttpMethod = 'get' | 'post';
export type ParameterLocation = 'query' | 'path' | 'header';

export interface ParameterSpec {
  name: string;
  in: ParameterLocation;
  required: boolean;
  schema: JsonSchema;
}

export interface ResponseSpec {
  /** Schema of the JSON body, or null for a body-less answer (the bare 404). */
  schema: JsonSchema | null;
  /**
   * Headers the answer must carry: `required: true` in the spec, or
   * `x-required-for-codes` (only when the body's code is one of them).
   */
  requiredHeaders: { name: string; codes: string[] | null }[];
  /** Error codes this status may carry, from the response's examples. */
  codes: string[];
}

export interface Operation {
  id: string;
  method: HttpMethod;
  /** OpenAPI path template, relative to the API root: `/bookings/{doorloom_id}`. */
  path: string;
  parameters: ParameterSpec[];
  requestBody: { schema: JsonSchema } | null;
  responses: Record<string, ResponseSpec>;
}

export type { FieldErrors } from './field-errors.ts';

export interface Contract {
  document: JsonSchema;
  operations: Operation[];
  operation(id: string): Operation;
  schema(name: string): JsonSchema;
  /** Validates a value against a named component schema; null when valid. */
  check(name: string, value: unknown): FieldErrors | null;
  /**
   * Validates the operation's path and query parameters, as the contract declares them for its id (query values coerced
   * from strings). Headers are the routes' own (Authorization, Idempotency-Key: §4.5 rule 2 has a code of its own).
   */
  checkParameters(op: Operation, input: ParameterInput): FieldErrors | null;
  /** Validates the body of an operation with one (POST /bookings, POST /sync); null when valid. */
  checkBody(op: Operation, body: unknown): FieldErrors | null;
  /**
   * The refusal a body (of an operation with one) that fails validation earns: VALIDATION_FAILED, or the
   * code a schema node names in `x-missing-code` when the only failure is that
   * node missing (absent, or an object with none of the fields its anyOf asks
   * for); null when the body is valid.
   */
  bodyRefusal(op: Operation, body: unknown): { code: string; errors: FieldErrors } | null;
  /** Problems of an answer against the operation's declared responses; [] when it conforms. */
  checkResponse(op: Operation, status: number, body: unknown, headers: Record<string, unknown>): string[];
  /** How many parameter schemas and compiled validators are held (issue 17: must not grow with requests). */
  cacheSize(): { parameterSchemas: number; validators: number };
}

export interface ParameterInput {
  path?: Record<string, unknown>;
  query?: Record<string, unknown>;
}

/** spec/openapi.yaml, beside this file. */
const SPEC_URL = new URL('./openapi.yaml', import.meta.url);

let cached: Contract | undefined;

/**
 * The contract of API 2026-09, loaded once per process. Validators are
 * compiled lazily, each schema on its first use, and kept.
 */
export function loadContract(): Contract {
  cached ??= buildContract(parseYamlCached(SPEC_URL) as JsonSchema);
  return cached;
}

/**
 * Forgets the process's contract: the next loadContract() reads the document again, as a process starting does. The
 * mutation run (conformance/mutation/catalogue.mutation.ts) calls it before each check, so each check's simulator
 * loads the contract under the mutant.
 */
// Stryker disable all: the mutation run's own hook, no rule of the document (a mutant here only keeps the loaded copy)
export function forgetLoadedContract(): void {
  cached = undefined;
}
// Stryker restore all

// Stryker disable all: the contract mutator's own entries (conformance/mutation/contract-mutation.ts) and spec:assumptions' list: no simulator or suite code calls them, no rule of the document lives here
/** The document as spec/openapi.yaml reads, parsed (a fresh copy each call: the contract mutator changes its copy, issue 40). */
export function contractDocument(): JsonSchema {
  return structuredClone(parseYamlCached(SPEC_URL) as JsonSchema);
}

/**
 * A contract from a document given as data, never written into spec/: the contract mutator builds a simulator from a
 * one-step change of spec/openapi.yaml (conformance/mutation/contract-mutants.ts) while the suite keeps loadContract()'s.
 */
export function contractFrom(document: JsonSchema): Contract {
  return buildContract(document);
}
// Stryker restore all

function buildContract(raw: JsonSchema): Contract {
  const document = dereference(raw, raw) as JsonSchema;
  const operations = collectOperations(document);
  const byId = new Map(operations.map((op) => [op.id, op]));
  const schemas = (document.components as { schemas: Record<string, JsonSchema> }).schemas;

  let strict: Ajv2020 | undefined;
  let coercing: Ajv2020 | undefined;
  const strictAjv = () => (strict ??= makeAjv(false));
  const coercingAjv = () => (coercing ??= makeAjv(true));
  const compiled = new Map<object, ValidateFunction>();
  const compile = (ajv: () => Ajv2020, schema: object): ValidateFunction => {
    let fn = compiled.get(schema);
    if (!fn) {
      fn = ajv().compile(forAjvDiscriminator(schema) as object);
      compiled.set(schema, fn);
    }
    return fn;
  };
  // One parameter schema per operation, built with the contract and found by the operation's id, never by the object
  // handed in: a route that passed a fresh `{ ...op, parameters }` per request compiled a validator per request and
  // kept it (issue 17: ~35 KB and 1.8 ms a call).
  const parameterSchemas = new Map(operations.map((op) => [op.id, parametersAsSchema(op.parameters)]));

  return {
    document,
    operations,
    operation(id) {
      const op = byId.get(id);
      // Stryker disable next-line StringLiteral,ConditionalExpression: an error for a caller's typo (an id no operation of the document has; without it the caller fails on undefined): never an answer of the platform
      if (!op) throw new Error(`loadContract: no operation "${id}" in spec/openapi.yaml`);
      return op;
    },
    schema(name) {
      const schema = schemas[name];
      // Stryker disable next-line StringLiteral,ConditionalExpression: an error for a caller's typo (a name no schema of the document has; without it the caller fails on undefined): never an answer of the platform
      if (!schema) throw new Error(`loadContract: no schema "${name}" in spec/openapi.yaml`);
      return schema;
    },
    // Stryker disable all: check() validates a named schema for the project's unit tests (spec/, conformance/arbitraries/); no simulator or suite code calls it
    check(name, value) {
      const fn = compile(strictAjv, this.schema(name));
      return fn(value) ? null : fieldErrors(fn.errors ?? []);
    },
    // Stryker restore all
    checkParameters(op, input) {
      const schema = parameterSchemas.get(op.id)!;
      const target = { path: { ...input.path }, query: { ...input.query } };
      const fn = compile(coercingAjv, schema);
      const errors = fn(target) ? newFieldErrors() : fieldErrors(fn.errors!, 1);
      // Coercion reads "1e400" as Infinity, and ajv applies minimum/maximum to finite numbers only,
      // so `page=1e400` passed and answered `"page": null`: a parameter the contract types as a number must be finite.
      for (const location of ['path', 'query'] as const) {
        for (const [name, value] of Object.entries(target[location])) {
          if (typeof value === 'number' && !Number.isFinite(value)) {
            // Stryker disable next-line StringLiteral: message wording (§7: a field error is a string, never a text)
            addFieldError(errors, name, 'Must be a finite number.');
          }
        }
      }
      if (Object.keys(errors).length > 0) return errors;
      // Coercion wrote typed values back: hand them to the caller.
      Object.assign(input, { path: target.path, query: target.query });
      return null;
    },
    checkBody(op, body) {
      // Its callers hand it POST /sync (event-routes.ts, watch): an operation with a body.
      const fn = compile(strictAjv, op.requestBody!.schema);
      return fn(body) ? null : fieldErrors(fn.errors!);
    },
    bodyRefusal(op, body) {
      // Its one caller is POST /bookings (partner-routes.ts), an operation with a body.
      const { schema } = op.requestBody!;
      const fn = compile(strictAjv, schema);
      if (fn(body)) return null;
      // ajv sets errors whenever a value fails: never an empty list here.
      const errors = fn.errors!;
      const all = fieldErrors(errors);
      // Top-level fields whose absence the spec maps to a code of its own (§7: "property reference missing").
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      for (const [name, node] of Object.entries(properties)) {
        const code = node['x-missing-code'];
        if (typeof code !== 'string') continue;
        // Missing: the top level's `required` naming it (only `required` names a missingProperty), or the node's anyOf
        // failing (its own error and its branches', all under its schema path's /anyOf).
        const missing = (e: ErrorObject) => (e.instancePath === '' && (e.params as { missingProperty?: string }).missingProperty === name)
          || (e.instancePath === `/${name}` && e.schemaPath.includes('/anyOf'));
        if (errors.every(missing)) return { code, errors: all };
      }
      return { code: 'VALIDATION_FAILED', errors: all };
    },
    // Stryker disable all: the suite's judge of answers (conformance/response-check.ts, preflight, watch) and the simulator's test-only self-guard (simulator/testing.ts): no answer of the platform runs it
    checkResponse(op, status, body, headers) {
      const spec = op.responses[String(status)];
      if (!spec) return [`status ${status} is not declared for ${op.id} (declared: ${Object.keys(op.responses).join(', ')})`];
      const problems: string[] = [];
      // §5.6: a bare 404 with an empty body (API switched off) is a valid answer on every route.
      if (status === 404 && (body === undefined || body === '')) return problems;
      if (spec.schema === null) {
        if (body !== undefined && body !== '' && body !== null) problems.push(`status ${status} of ${op.id} has no body in the spec, got one`);
        return problems;
      }
      // §4 (4.C2): bodies are JSON, so an answer with one says so; a client that goes by the media type cannot read it otherwise.
      const type = String(headers['content-type'] ?? '');
      if (!/^application\/json\s*(;|$)/i.test(type)) problems.push(`Content-Type ${type === '' ? '(none)' : JSON.stringify(type)} on status ${status} of ${op.id}: a JSON body is application/json (4.C2)`);
      const fn = compile(strictAjv, spec.schema);
      if (!fn(body)) {
        for (const e of fn.errors ?? []) problems.push(`body${e.instancePath || ''} ${e.message ?? 'is invalid'}`);
      }
      if (spec.codes.length > 0) {
        const code = (body as { code?: unknown } | null)?.code;
        if (!spec.codes.includes(String(code))) problems.push(`error code ${String(code)} is not one of ${spec.codes.join(', ')} for status ${status} of ${op.id}`);
      }
      const code = String((body as { code?: unknown } | null)?.code);
      for (const { name, codes } of spec.requiredHeaders) {
        if (codes !== null && !codes.includes(code)) continue;
        if (headers[name.toLowerCase()] === undefined) problems.push(`required header ${name} is missing on status ${status}${codes ? ` ${code}` : ''} of ${op.id}`);
      }
      return problems;
    },
    // Stryker disable all: cacheSize is a measure for simulator/http/contract-cache.test.ts (issue 17), read by no answer and no check
    cacheSize() {
      return { parameterSchemas: parameterSchemas.size, validators: compiled.size };
    },
  };
}

// Stryker restore all
function makeAjv(coerce: boolean): Ajv2020 {
  const { Ajv2020 } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  // ajv-formats ships CommonJS: its module object is the plugin.
  const addFormats = require('ajv-formats') as (ajv: Ajv2020) => Ajv2020;
  // strict: false because OpenAPI annotations (example, x-assumption) sit inside schemas.
  // strict: false also turns strictNumbers off, which let Infinity pass `number` and `integer`:
  // `page=1e400` coerced to Infinity and answered `"page": null`, a JSON `1e400` was stored as a total. JSON has no Infinity.
  // discriminator: AnyEvent's `type` picks its one branch (spec/discriminator.ts).
  const ajv = new Ajv2020({
    allErrors: true,
    strict: false,
    strictNumbers: true,
    coerceTypes: coerce ? 'array' : false,
    useDefaults: coerce,
    // Stryker disable next-line BooleanLiteral: only AnyEvent, a response schema, has a discriminator, and only the suite's judge (checkResponse) validates responses
    discriminator: true,
  });
  addFormats(ajv);
  return ajv;
}

/** Resolves every local `$ref` in place of the reference object; the document has no cycles. */
// Stryker disable next-line ArrayDeclaration: spec/openapi.yaml's own integrity (a cyclic, non-local, unresolved or escaped $ref), which the document as written never trips: it refuses a broken document, no answer of the API
function dereference(node: unknown, root: JsonSchema, seen: string[] = []): unknown {
  if (Array.isArray(node)) return node.map((item) => dereference(item, root, seen));
  if (node === null || typeof node !== 'object') return node;
  const obj = node as Record<string, unknown>;
  if (typeof obj.$ref === 'string') {
    const ref = obj.$ref;
    // Stryker disable next-line ConditionalExpression,StringLiteral: spec/openapi.yaml's own integrity (a cyclic, non-local, unresolved or escaped $ref), which the document as written never trips: it refuses a broken document, no answer of the API
    if (seen.includes(ref)) throw new Error(`spec/openapi.yaml: cyclic $ref ${ref}`);
    // Stryker disable next-line ArrayDeclaration: spec/openapi.yaml's own integrity (a cyclic, non-local, unresolved or escaped $ref), which the document as written never trips: it refuses a broken document, no answer of the API
    return dereference(resolvePointer(root, ref), root, [...seen, ref]);
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(obj)) out[key] = dereference(value, root, seen);
  return out;
}

function resolvePointer(root: JsonSchema, ref: string): unknown {
  // Stryker disable next-line ConditionalExpression,StringLiteral: spec/openapi.yaml's own integrity (a cyclic, non-local, unresolved or escaped $ref), which the document as written never trips: it refuses a broken document, no answer of the API
  if (!ref.startsWith('#/')) throw new Error(`spec/openapi.yaml: only local $ref is supported, got ${ref}`);
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    // Stryker disable next-line StringLiteral: spec/openapi.yaml's own integrity (a cyclic, non-local, unresolved or escaped $ref), which the document as written never trips: it refuses a broken document, no answer of the API
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    // Stryker disable next-line OptionalChaining: spec/openapi.yaml's own integrity (a cyclic, non-local, unresolved or escaped $ref), which the document as written never trips: it refuses a broken document, no answer of the API
    node = (node as Record<string, unknown> | undefined)?.[key];
    // Stryker disable next-line ConditionalExpression,StringLiteral: spec/openapi.yaml's own integrity (a cyclic, non-local, unresolved or escaped $ref), which the document as written never trips: it refuses a broken document, no answer of the API
    if (node === undefined) throw new Error(`spec/openapi.yaml: unresolved $ref ${ref}`);
  }
  return node;
}

function collectOperations(document: JsonSchema): Operation[] {
  const operations: Operation[] = [];
  const paths = document.paths as Record<string, Record<string, Record<string, unknown>>>;
  for (const [path, item] of Object.entries(paths)) {
    for (const method of ['get', 'post'] as const) {
      const op = item[method];
      if (!op) continue;
      const parameters = ((op.parameters as Record<string, unknown>[] | undefined) ?? []).map((p) => ({
        name: p.name as string,
        in: p.in as ParameterLocation,
        required: p.required === true,
        schema: p.schema as JsonSchema,
      }));
      const body = op.requestBody as { content: Record<string, { schema: JsonSchema }> } | undefined;
      const responses: Record<string, ResponseSpec> = {};
      // Stryker disable all: an operation's declared responses (schema, codes, required headers) are read by the suite's judge (checkResponse) and error-mapping.ts, never by the simulator
      for (const [status, response] of Object.entries(op.responses as Record<string, Record<string, unknown>>)) {
        const media = (response.content as Record<string, { schema: JsonSchema; examples?: Record<string, { value?: { code?: string } }> }> | undefined)?.['application/json'];
        const codes = status.startsWith('4') || status.startsWith('5')
          ? Object.values(media?.examples ?? {}).map((e) => e.value?.code).filter((c): c is string => typeof c === 'string')
          : [];
        responses[status] = {
          schema: media?.schema ?? null,
          requiredHeaders: Object.entries((response.headers as Record<string, { required?: boolean; 'x-required-for-codes'?: string[] }> | undefined) ?? {})
            .filter(([, h]) => h.required === true || Array.isArray(h['x-required-for-codes']))
            .map(([name, h]) => ({ name, codes: h.required === true ? null : h['x-required-for-codes']! })),
          codes,
        };
      }
      // Stryker restore all
      operations.push({
        id: op.operationId as string,
        method,
        path,
        parameters,
        requestBody: body ? { schema: body.content['application/json']!.schema } : null,
        responses,
      });
    }
  }
  return operations;
}

function parametersAsSchema(parameters: ParameterSpec[]): JsonSchema {
  const group = (location: ParameterLocation) => {
    const own = parameters.filter((p) => p.in === location);
    return {
      type: 'object',
      properties: Object.fromEntries(own.map((p) => [p.name, p.schema])),
      required: own.filter((p) => p.required).map((p) => p.name),
    };
  };
  return { type: 'object', properties: { path: group('path'), query: group('query') } };
}

/**
 * ajv errors → §7 field errors: keyed by dotted field path, each an array of
 * messages. `skip` drops leading path segments (the parameter location).
 */
function fieldErrors(errors: ErrorObject[], skip = 0): FieldErrors {
  const out = newFieldErrors();
  const add = (path: string, message: string) => addFieldError(out, path, message);
  for (const e of errors) {
    // anyOf reports each branch's failure as well as its own; its own error says it once, at the anyOf's path.
    if (e.schemaPath.includes('/anyOf/')) continue;
    const segments = e.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~')).slice(skip);
    // ajv 8 names a missing property bare (ajv 6 wrote `.name`).
    if (e.keyword === 'required') segments.push((e.params as { missingProperty: string }).missingProperty);
    // A discriminator's complaint is about its tag (`type` missing, or naming no branch): named there, as the branches' own rules name it.
    // Stryker disable next-line all: only AnyEvent, a response schema, has a discriminator: check()'s unit tests reach this, no request the platform reads does
    if (e.keyword === 'discriminator') segments.push(String((e.params as { tag: string }).tag));
    const path = segments.join('.') || '_body';
    add(path, describe(e));
  }
  return out;
}

// Stryker disable all: message wording (§7: a field error is a string, never a text); the path it is keyed by is fieldErrors' above
function describe(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required': return 'This field is required.';
    case 'type': return `Must be of type ${String(p.type).replace(',', ' or ')}.`;
    case 'maxLength': return `Must be at most ${String(p.limit)} characters.`;
    case 'minLength': return `Must be at least ${String(p.limit)} characters.`;
    case 'maximum': return `Must be at most ${String(p.limit)}.`;
    case 'minimum': return `Must be at least ${String(p.limit)}.`;
    case 'maxItems': return `Must have at most ${String(p.limit)} items.`;
    case 'minItems': return `Must have at least ${String(p.limit)} items.`;
    case 'enum': return `Must be one of: ${(p.allowedValues as Json[]).map(String).join(', ')}.`;
    case 'format': return `Must be a valid ${String(p.format)}${p.format === 'date' ? ' (YYYY-MM-DD)' : ''}.`;
    case 'anyOf': return 'Give either doorloom_id or external_id.';
    case 'const': return `Must be ${JSON.stringify(p.allowedValue)}.`;
    case 'discriminator': return p.error === 'mapping' ? `Must be one of the event types, not ${JSON.stringify(p.tagValue)}.` : 'This field is required (a string naming the event type).';
    default: return e.message ? `${e.message[0]!.toUpperCase()}${e.message.slice(1)}.` : 'Is invalid.';
  }
}
// Stryker restore all
