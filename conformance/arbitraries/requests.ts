/**
 * Requests of an operation, from the contract: valid bodies and query
 * strings, and their single-field violations. Everything is derived from the
 * operation's schemas in spec/openapi.yaml through loadContract().
 *
 * The schemas say what is well-formed, not what the target will accept:
 * coverage, "check_in not before yesterday", "check_out after check_in",
 * "updated_since parses" live outside them. Pin those with overrides (or a
 * `.chain` on the result) when a suite needs a request the target accepts.
 */
import fc from 'fast-check';
import { loadContract, type JsonSchema, type Operation } from '../../spec/contract.ts';
import { arbitraryFor, type ArbitraryOptions } from './from-schema.ts';
import { violationsFor, type Violation } from './violations.ts';

/** A query as it travels: every value text, a repeated parameter (`types[]`) an array of text. */
export type WireQuery = Record<string, string | string[]>;

/** Options of arbitraryFor without `overrides`, which the helpers take as their own argument. */
export type RequestOptions = Omit<ArbitraryOptions, 'overrides'>;

/** Bodies valid against the operation's request body schema; `overrides` by field path (`units[].adults`). */
export function validBody(operationId: string, overrides: Record<string, fc.Arbitrary<unknown>> = {}, options: RequestOptions = {}): fc.Arbitrary<unknown> {
  return arbitraryFor(bodySchema(operationId), { ...options, overrides });
}

/**
 * Query strings valid against the operation's query parameters, as text the
 * way they appear on the wire; an empty repeated parameter is left out.
 * `overrides` by parameter name (`types[]`, `property_id`); what they yield
 * (number, boolean, text) is written as text too.
 */
export function validQuery(operationId: string, overrides: Record<string, fc.Arbitrary<unknown>> = {}, options: RequestOptions = {}): fc.Arbitrary<WireQuery> {
  return arbitraryFor(querySchema(operationId), { ...options, overrides }).map((q) => toWire(q as Record<string, unknown>));
}

/** Single-field violations of a valid body (see violationsFor). */
export function bodyViolations(operationId: string, base: unknown): Violation[] {
  return violationsFor(bodySchema(operationId), base);
}

/**
 * Single-field violations of a valid wire query; each `apply` returns a wire
 * query again, which checkParameters (coercing, as the API reads a query)
 * refuses naming the violation's path (the parameter name, or `types[].0`
 * for an item).
 */
export function queryViolations(operationId: string, base: Readonly<Record<string, string | readonly string[]>>): Violation[] {
  return violationsFor(querySchema(operationId), base, { wire: true }).map((v) => ({
    ...v,
    apply: (value: unknown) => toWire(v.apply(value) as Record<string, unknown>),
  }));
}

function operation(operationId: string): Operation {
  return loadContract().operation(operationId);
}

function bodySchema(operationId: string): JsonSchema {
  const op = operation(operationId);
  if (!op.requestBody) throw new Error(`conformance/arbitraries: operation "${operationId}" has no request body in spec/openapi.yaml`);
  return op.requestBody.schema;
}

const querySchemas = new Map<string, JsonSchema>();

/** The operation's query parameters as one object schema, the shape checkParameters validates. */
function querySchema(operationId: string): JsonSchema {
  let schema = querySchemas.get(operationId);
  if (!schema) {
    const query = operation(operationId).parameters.filter((p) => p.in === 'query');
    schema = {
      type: 'object',
      properties: Object.fromEntries(query.map((p) => [p.name, p.schema])),
      required: query.filter((p) => p.required).map((p) => p.name),
    };
    querySchemas.set(operationId, schema);
  }
  return schema;
}

function toWire(query: Record<string, unknown>): WireQuery {
  const out: WireQuery = {};
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) {
      if (value.length > 0) out[name] = value.map(text);
    } else {
      out[name] = text(value);
    }
  }
  return out;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}
