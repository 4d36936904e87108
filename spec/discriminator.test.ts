/**
 * spec/discriminator.ts: AnyEvent compiled in ajv's discriminator form
 * accepts exactly the documents the plain `oneOf` accepts, and names the
 * fault of the branch `type` picks.
 */
import fc from 'fast-check';
import { createRequire } from 'node:module';
import type { Ajv2020 as Ajv } from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../simulator/start-simulator.ts';
import { forAjvDiscriminator } from './discriminator.ts';
import { loadContract } from './contract.ts';

const require = createRequire(import.meta.url);
const { Ajv2020 } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
const addFormats = require('ajv-formats') as (ajv: Ajv) => Ajv;

function ajv(discriminator: boolean): Ajv {
  return addFormats(new Ajv2020({ allErrors: true, strict: false, strictNumbers: true, discriminator }));
}

const anyEvent = loadContract().schema('AnyEvent') as object;
const plain = ajv(false).compile(anyEvent);
const hoisted = ajv(true).compile(forAjvDiscriminator(anyEvent) as object);

/** Real events of the five types a full sync sends (§4.7), from a simulator. */
let samples: Record<string, unknown>[] = [];
beforeAll(async () => {
  const sim = await startSimulator();
  try {
    const partner = { authorization: `Bearer ${sim.fixtures.integrations[0]!.apiKey}`, 'content-type': 'application/json' };
    const staff = { authorization: `Bearer ${sim.fixtures.staffToken}`, 'content-type': 'application/json' };
    await fetch(`${sim.baseUrl}/sync`, { method: 'POST', headers: partner, body: JSON.stringify({ property_ids: [101] }) });
    await fetch(`${sim.controlUrl}/clock/advance`, { method: 'POST', headers: staff, body: JSON.stringify({ seconds: 3600 }) });
    const rows = ((await (await fetch(`${sim.baseUrl}/events?limit=200`, { headers: partner })).json()) as { data: { event: Record<string, unknown> }[] }).data;
    const byType = new Map<unknown, Record<string, unknown>>();
    for (const r of rows) if (!byType.has(r.event.type)) byType.set(r.event.type, r.event);
    samples = [...byType.values()];
  } finally {
    await sim.stop();
  }
});

describe('AnyEvent in the discriminator form ajv reads', () => {
  it('accepts exactly what the plain oneOf accepts: real events of each type, and each changed a little (property)', () => {
    expect(samples.map((e) => e.type).sort()).toEqual(['availability.changed', 'inventory.changed', 'property.changed', 'rates.changed', 'restrictions.changed']);
    for (const event of samples) expect([plain(event), hoisted(event)]).toEqual([true, true]);
    fc.assert(
      fc.property(
        fc.nat(), fc.nat(),
        fc.constantFrom('none', 'type', 'no-type', 'data', 'drop', 'extra', 'type-number'),
        fc.string({ maxLength: 6 }),
        (i, j, change, word) => {
          const event: Record<string, unknown> = structuredClone(samples[i % samples.length]!);
          const other = samples[j % samples.length]!;
          const keys = Object.keys(event);
          if (change === 'type') event.type = other.type;
          if (change === 'no-type') delete event.type;
          if (change === 'data') event.data = structuredClone(other.data);
          if (change === 'drop') delete event[keys[j % keys.length]!];
          if (change === 'extra') event[word] = word;
          if (change === 'type-number') event.type = word.length;
          expect(hoisted(event)).toBe(plain(event));
          // What is no object at all is no event either way.
          for (const other of [word, word.length, null, [event], true]) expect([hoisted(other), plain(other)]).toEqual([false, false]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a fault is named in the branch its type picks, not in the other five', () => {
    const wrong = { ...samples.find((e) => e.type === 'rates.changed')!, data: [{ date: '2026-09-15', base_rate: 'free' }] };
    expect([plain(wrong), hoisted(wrong)]).toEqual([false, false]);
    // rates.changed is AnyEvent's second branch: the plain oneOf reports all six, the discriminator that one.
    expect(hoisted.errors!.map((e) => e.schemaPath.split('/').slice(0, 3).join('/'))).toEqual(expect.arrayContaining(['#/oneOf/1']));
    expect(hoisted.errors!.every((e) => e.schemaPath.startsWith('#/oneOf/1/'))).toBe(true);
    expect(plain.errors!.some((e) => e.schemaPath.startsWith('#/oneOf/0/'))).toBe(true);
  });

  it('a branch without a constant for the tag is refused when the contract is built, not accepted silently', () => {
    expect(() => forAjvDiscriminator({ discriminator: { propertyName: 'type' }, oneOf: [{ properties: { data: {} } }] })).toThrow(/no const type/);
  });
});
