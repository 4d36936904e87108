/** Secrets never reach a report, in any form a request carries them (a curl of the request is built from what was recorded). */
import { describe, expect, it } from 'vitest';
import { redact } from './redact.ts';

const key = `dlk_${'4f9a1c7e'.repeat(6)}`;

describe('redact', () => {
  it.each([
    ['a bearer token', `Bearer ${key}`, 'Bearer <redacted>'],
    ['HTTP Basic credentials made of the key', `Basic ${Buffer.from(`${key}:`).toString('base64')}`, 'Basic <redacted>'],
    ['the key base64-encoded alone', `x=${Buffer.from(key).toString('base64')}`, 'x=<redacted>'],
    ['a made-up key the run does not hold, by its shape', `Bearer dlk_${'0'.repeat(48)}`, 'Bearer <redacted>'],
  ])('%s', (_name, given, want) => {
    expect(redact(given, [key])).toBe(want);
  });
});
