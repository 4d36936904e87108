/**
 * The contract mutator makes one step on each keyword the simulator enforces
 * from spec/openapi.yaml (query and path parameters, request bodies), none
 * on what it does not (responses, a body's defaults), and applies each to a
 * copy. End to end (a simulator built from each mutant, the checks that see
 * it): `npm run mutation -- --contract`.
 */
import { describe, expect, it } from 'vitest';
import { contractDocument } from '../../spec/contract.ts';
import { applyMutant, contractMutants } from './contract-mutants.ts';

const doc = {
  paths: {
    '/things': {
      get: {
        operationId: 'listThings',
        parameters: [{ $ref: '#/components/parameters/PerPage' }, { name: 'X-Key', in: 'header', required: true, schema: { type: 'string', minLength: 8 } }],
        responses: { 200: { content: { 'application/json': { schema: { type: 'object', properties: { n: { type: 'integer', maximum: 9 } } } } } } },
      },
      post: {
        operationId: 'createThing',
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
        responses: {},
      },
    },
  },
  components: {
    parameters: { PerPage: { name: 'per_page', in: 'query', required: true, schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } } },
    schemas: {
      Thing: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 0, maxLength: 3 }, kind: { type: 'string', enum: ['a', 'b'], default: 'a' } } },
    },
  },
};

describe('the mutants of the contract', () => {
  const ms = contractMutants(doc);
  const ids = ms.map((m) => m.id);

  it('one step up, down and dropped for each limit; no length below 0', () => {
    expect(ids).toContain('#/components/parameters/PerPage/schema/maximum 100 → 101');
    expect(ids).toContain('#/components/parameters/PerPage/schema/maximum 100 → 99');
    expect(ids).toContain('#/components/parameters/PerPage/schema/minimum 1 → 0');
    expect(ids).toContain('#/components/schemas/Thing/properties/name/maxLength 3 dropped');
    expect(ids).toContain('#/components/schemas/Thing/properties/name/minLength 0 → 1');
    expect(ids).not.toContain('#/components/schemas/Thing/properties/name/minLength 0 → -1');
  });

  it("a query default changed and dropped; a body's default is the domain's, not the validator's", () => {
    expect(ids).toContain('#/components/parameters/PerPage/schema/default 50 → 51');
    expect(ids).toContain('#/components/parameters/PerPage/schema/default 50 dropped');
    expect(ids.filter((i) => i.includes('/kind/default'))).toEqual([]);
  });

  it('each enum value and each required entry dropped, and a required query parameter made optional', () => {
    expect(ids).toContain('#/components/schemas/Thing/properties/kind/enum "a" dropped');
    expect(ids).toContain('#/components/schemas/Thing/properties/kind/enum "b" dropped');
    expect(ids).toContain('#/components/schemas/Thing/required "name" dropped');
    expect(ids).toContain('#/components/parameters/PerPage/required query parameter per_page: true → false');
  });

  it('nothing on a header (the domain checks those) or a response (a serving simulator checks none)', () => {
    expect(ids.filter((i) => i.includes('minLength 8') || i.includes('/responses/'))).toEqual([]);
  });

  it('each mutant names the operations that reach its node', () => {
    expect(ms.find((m) => m.id.includes('PerPage/schema/maximum'))!.operations).toEqual(['listThings']);
    expect(ms.find((m) => m.id.includes('Thing/required'))!.operations).toEqual(['createThing']);
  });

  it('a mutant applies to a copy: the document is left as it was', () => {
    const before = JSON.stringify(doc);
    const m = ms.find((x) => x.id === '#/components/schemas/Thing/properties/kind/enum "a" dropped')!;
    const mutated = applyMutant(doc, m) as typeof doc;
    expect(mutated.components.schemas.Thing.properties.kind.enum).toEqual(['b']);
    expect(JSON.stringify(doc)).toBe(before);
    const dropped = applyMutant(doc, ms.find((x) => x.id.endsWith('maxLength 3 dropped'))!) as typeof doc;
    expect('maxLength' in dropped.components.schemas.Thing.properties.name).toBe(false);
  });

  it('spec/openapi.yaml: every keyword kind has mutants, and every one applies', () => {
    const real = contractDocument();
    const all = contractMutants(real);
    expect(new Set(all.map((m) => m.keyword))).toEqual(new Set(['minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems', 'default', 'enum', 'required']));
    expect(new Set(all.map((m) => m.id)).size).toBe(all.length);
    for (const m of all) expect(JSON.stringify(applyMutant(real, m))).not.toBe(JSON.stringify(real));
  });
});
