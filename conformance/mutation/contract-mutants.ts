/**
 * The mutants of spec/openapi.yaml (issue 40 item 2): Stryker mutates code,
 * not YAML, yet every §8 limit the simulator enforces on a request lives in
 * the document (page sizes, string lengths, counts, `limit`, `page`, the
 * query defaults). Each mutant is one step on one keyword the simulator
 * reads from it: a limit (minLength, maxLength, minimum, maximum, minItems,
 * maxItems) one up, one down or dropped; a default changed or dropped; one
 * enum value dropped; one required entry dropped. Pure: the document in,
 * mutants as data out, and each applied to a copy.
 *
 * What the simulator enforces from the document (simulator/http): the path
 * and query parameters of each partner operation (validated and coerced, the
 * query defaults filled in) and the JSON body of each operation that takes
 * one (validated, never defaulted). Headers are the domain's (§4.5 rule 2),
 * responses are never checked by a serving simulator: a keyword there is no
 * behaviour of the simulator and has no mutant here.
 */
import type { JsonSchema } from '../../spec/contract.ts';

export const LIMIT_KEYWORDS = ['minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems'] as const;
export type ContractKeyword = (typeof LIMIT_KEYWORDS)[number] | 'default' | 'enum' | 'required';

export interface ContractMutant {
  /** `<pointer of the keyword> <the step>`, e.g. `#/components/schemas/X/properties/name/maxLength 200 → 201`. */
  id: string;
  keyword: ContractKeyword;
  /** JSON pointer of the schema (or parameter) node that holds the keyword. */
  node: string;
  /** The one step: `set` the keyword to `value`, `drop` it, or drop the item at `index` of its array. */
  step: { kind: 'set'; value: unknown } | { kind: 'drop' } | { kind: 'drop-item'; index: number };
  /** The operations whose requests pass through the node (a check that calls none cannot see the mutant). */
  operations: string[];
  /** The property or parameter the node describes (a hint for the checks to try first). */
  field: string;
}

type Node = Record<string, unknown>;

/** The mutants of `document`, in document order, each keyword of each node reached once (with every operation that reaches it). */
export function contractMutants(document: JsonSchema): ContractMutant[] {
  const reached = new Map<string, { node: Node; context: 'parameter' | 'body'; field: string; operations: Set<string> }>();
  const visit = (pointer: string, node: unknown, context: 'parameter' | 'body', field: string, operation: string, seen: Set<string>) => {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return;
    const obj = node as Node;
    if (typeof obj.$ref === 'string') return visit(obj.$ref, resolve(document, obj.$ref), context, field, operation, seen);
    if (seen.has(pointer)) return;
    seen.add(pointer);
    const entry = reached.get(pointer) ?? { node: obj, context, field, operations: new Set<string>() };
    entry.operations.add(operation);
    reached.set(pointer, entry);
    for (const [name, child] of Object.entries((obj.properties as Node | undefined) ?? {})) visit(`${pointer}/properties/${escape(name)}`, child, context, name, operation, seen);
    if (obj.items !== undefined) visit(`${pointer}/items`, obj.items, context, field, operation, seen);
    if (typeof obj.additionalProperties === 'object') visit(`${pointer}/additionalProperties`, obj.additionalProperties, context, field, operation, seen);
    for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const) {
      (obj[key] as unknown[] | undefined)?.forEach((child, i) => visit(`${pointer}/${key}/${i}`, child, context, field, operation, seen));
    }
  };
  const paramRequired: { pointer: string; name: string; operations: Set<string> }[] = [];
  for (const [path, item] of Object.entries(document.paths as Record<string, Node>)) {
    for (const method of ['get', 'post'] as const) {
      const op = item[method] as Node | undefined;
      if (!op) continue;
      const id = op.operationId as string;
      const base = `#/paths/${escape(path)}/${method}`;
      ((op.parameters as unknown[] | undefined) ?? []).forEach((raw, i) => {
        let pointer = `${base}/parameters/${i}`;
        let p = raw as Node;
        if (typeof p.$ref === 'string') {
          pointer = p.$ref;
          p = resolve(document, p.$ref) as Node;
        }
        if (p.in !== 'query' && p.in !== 'path') return;
        // A path parameter is required by the route itself; a query parameter's `required` is the contract's.
        if (p.in === 'query' && p.required === true) {
          const known = paramRequired.find((r) => r.pointer === pointer);
          if (known) known.operations.add(id);
          else paramRequired.push({ pointer, name: p.name as string, operations: new Set([id]) });
        }
        visit(`${pointer}/schema`, p.schema, 'parameter', p.name as string, id, new Set());
      });
      const body = op.requestBody as Node | undefined;
      const content = (body && typeof body.$ref === 'string' ? resolve(document, body.$ref) as Node : body)?.content as Record<string, Node> | undefined;
      const schema = content?.['application/json']?.schema;
      if (schema !== undefined) visit(`${base}/requestBody/content/application~1json/schema`, schema, 'body', '', id, new Set());
    }
  }
  const out: ContractMutant[] = [];
  const add = (node: string, keyword: ContractKeyword, step: ContractMutant['step'], what: string, operations: Set<string>, field: string) => {
    out.push({ id: `${node}/${keyword} ${what}`, keyword, node, step, operations: [...operations].sort(), field });
  };
  for (const [pointer, { node, context, field, operations }] of reached) {
    for (const keyword of LIMIT_KEYWORDS) {
      const v = node[keyword];
      if (typeof v !== 'number') continue;
      add(pointer, keyword, { kind: 'set', value: v + 1 }, `${v} → ${v + 1}`, operations, field);
      // A length or count below 0 is no limit a document can state.
      if (!(keyword !== 'minimum' && keyword !== 'maximum' && v === 0)) add(pointer, keyword, { kind: 'set', value: v - 1 }, `${v} → ${v - 1}`, operations, field);
      add(pointer, keyword, { kind: 'drop' }, `${v} dropped`, operations, field);
    }
    // A body's defaults are the domain's to fill in (§4.5's table, simulator/domain/bookings.ts): the validator fills in only the query's.
    if (context === 'parameter' && node.default !== undefined) {
      const changed = changedDefault(node.default, node.enum as unknown[] | undefined);
      if (changed !== undefined) add(pointer, 'default', { kind: 'set', value: changed }, `${JSON.stringify(node.default)} → ${JSON.stringify(changed)}`, operations, field);
      add(pointer, 'default', { kind: 'drop' }, `${JSON.stringify(node.default)} dropped`, operations, field);
    }
    if (Array.isArray(node.enum) && node.enum.length > 1) {
      node.enum.forEach((v, index) => add(pointer, 'enum', { kind: 'drop-item', index }, `${JSON.stringify(v)} dropped`, operations, field));
    }
    if (Array.isArray(node.required)) {
      node.required.forEach((name, index) => add(pointer, 'required', { kind: 'drop-item', index }, `${JSON.stringify(name)} dropped`, operations, String(name)));
    }
  }
  for (const r of paramRequired) add(r.pointer, 'required', { kind: 'set', value: false }, `query parameter ${r.name}: true → false`, r.operations, r.name);
  return out;
}

/** A copy of `document` with the mutant's one step applied (the document itself is left alone). */
export function applyMutant(document: JsonSchema, mutant: ContractMutant): JsonSchema {
  const copy = structuredClone(document);
  const node = resolve(copy, mutant.node) as Node;
  const step = mutant.step;
  if (step.kind === 'set') node[mutant.keyword] = step.value;
  else if (step.kind === 'drop') delete node[mutant.keyword];
  else (node[mutant.keyword] as unknown[]).splice(step.index, 1);
  return copy;
}

/** Another value of the default's kind: a number one up, a boolean flipped, a string the next value of its enum. */
function changedDefault(value: unknown, values: unknown[] | undefined): unknown {
  if (typeof value === 'number') return value + 1;
  if (typeof value === 'boolean') return !value;
  if (typeof value === 'string' && values && values.length > 1) return values[(values.indexOf(value) + 1) % values.length];
  return undefined;
}

function escape(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function resolve(root: unknown, pointer: string): unknown {
  if (!pointer.startsWith('#/')) throw new Error(`contract mutants: only local pointers, got ${pointer}`);
  let node = root;
  for (const raw of pointer.slice(2).split('/')) {
    node = (node as Record<string, unknown> | undefined)?.[raw.replace(/~1/g, '/').replace(/~0/g, '~')];
    if (node === undefined) throw new Error(`contract mutants: ${pointer} resolves to nothing`);
  }
  return node;
}
