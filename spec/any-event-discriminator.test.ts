/**
 * Issue 29 item 6: `AnyEvent` names its branch by `type` (§2.5 "type", §6
 * event types) with an OpenAPI discriminator, and each branch requires
 * `type` itself, so a generated client picks the branch without trying each.
 */
import { describe, expect, it } from 'vitest';
import { parseYamlCached } from './yaml-cache.ts';
import { loadContract } from './contract.ts';

type Json = Record<string, any>;
const raw = parseYamlCached(new URL('./openapi.yaml', import.meta.url)) as Json;
const schemas = raw.components.schemas as Record<string, Json>;
const eventTypes = schemas.EventType!.enum as string[];

describe('AnyEvent: a discriminator on type, type required in each branch', () => {
  const anyEvent = schemas.AnyEvent!;

  it('the discriminator is `type`, and maps every event type of §6 to the branch of that type', () => {
    expect(anyEvent.discriminator?.propertyName).toBe('type');
    const mapping = anyEvent.discriminator.mapping as Record<string, string>;
    expect(Object.keys(mapping).sort()).toEqual([...eventTypes].sort());
    expect(Object.values(mapping).sort()).toEqual((anyEvent.oneOf as { $ref: string }[]).map((b) => b.$ref).sort());
  });

  it.each(eventTypes)('the branch of %s requires type and data, and type is that constant', (type) => {
    const ref = anyEvent.discriminator.mapping[type] as string;
    const branch = schemas[ref.split('/').at(-1)!]!;
    const own = (branch.allOf as Json[]).find((part) => !part.$ref)!;
    expect(own.required).toEqual(expect.arrayContaining(['type', 'data']));
    expect(own.properties.type.const).toBe(type);
  });

  it('an event without type, or with a type no branch has, is not an AnyEvent', () => {
    const contract = loadContract();
    const event = {
      id: '01J8ZZZZZZZZZZZZZZZZZZZZZZ', type: 'property.changed', version: '2026-09', sequence: 1, occurred_at: '2026-09-15T12:00:00+05:30',
      integration: { id: 1, slug: 'acme' }, property: { doorloom_id: 101, external_id: 'SEA', master_property_id: 101 },
      window: { from: '2026-09-15', to: '2026-09-16' }, data: {},
    };
    const { type: _type, ...untyped } = event;
    expect(contract.check('AnyEvent', untyped)).not.toBeNull();
    expect(contract.check('AnyEvent', { ...event, type: 'booking.deleted' })).not.toBeNull();
  });
});
