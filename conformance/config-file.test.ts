/**
 * `--config FILE` against config.schema.json: every key the file may hold
 * passes, a misspelt key is refused naming the nearest known one, a value of
 * the wrong kind is refused naming the key; and the schema and the runner's
 * ConfigFile type list the same keys.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CONFIG_SCHEMA_URL, ConfigFileError, readConfigFile, validateConfig, type ConfigFile } from './config-file.ts';

const work = mkdtempSync(join(tmpdir(), 'config-file-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Every key, each with a valid value: the type makes a missing key a compile error here. */
const EVERY_KEY: Required<ConfigFile> = {
  target: 'https://staging.example/api/integrations/v1', apiKey: 'k', webhookSecret: 'whsec_x', properties: [101],
  otherApiKey: 'k2', otherProperties: [106], disabledApiKey: 'k3', nonIntegrationToken: 't', controlUrl: 'https://staging.example/control', controlToken: 'c',
  allowWrites: true, allowSync: false, allowBurst: false, webhookPublicUrl: 'https://hooks.example/w', webhookListenPort: 8787,
};

describe('the config file and its JSON Schema', () => {
  it('the schema lists exactly the keys the runner reads (and $schema for editors)', () => {
    const schema = JSON.parse(readFileSync(CONFIG_SCHEMA_URL, 'utf8')) as { properties: Record<string, { description?: string }>; additionalProperties: boolean };
    expect(Object.keys(schema.properties).sort()).toEqual(['$schema', ...Object.keys(EVERY_KEY)].sort());
    expect(schema.additionalProperties).toBe(false);
    for (const [key, p] of Object.entries(schema.properties)) expect(p.description, key).toMatch(/\S/);
  });

  it('accepts every key with a valid value, and a $schema key', () => {
    expect(validateConfig({ $schema: './config.schema.json', ...EVERY_KEY }, 'c.json')).toMatchObject(EVERY_KEY);
  });

  it.each([
    ['a key with a letter left out', { allowWrite: true }, 'unknown key "allowWrite" (did you mean allowWrites?)'],
    ['a key in another case', { apikey: 'k' }, 'unknown key "apikey" (did you mean apiKey?)'],
    ['a flag\'s spelling for a key', { 'control-url': 'http://x/' }, 'unknown key "control-url" (did you mean controlUrl?)'],
    ['a key nothing is near', { colour: 'blue' }, 'unknown key "colour"'],
    ['a boolean as a string', { allowWrites: 'yes' }, 'allowWrites must be a boolean (got "yes")'],
    ['a target that is not a URL', { target: 'staging' }, 'target must be an http(s) URL (got "staging")'],
    ['an empty key (an unset variable)', { apiKey: '' }, 'apiKey is empty (an unset variable?)'],
    ['a property id that is not one', { properties: [0] }, 'properties.0 must be >= 1 (got 0)'],
    ['a property list that is empty', { properties: [] }, 'properties must list at least one property id'],
    ['a port out of range', { webhookListenPort: 70000 }, 'webhookListenPort must be <= 65535 (got 70000)'],
  ])('refuses %s, naming it', (_what, data, problem) => {
    expect(() => validateConfig(data, 'staging.yaml')).toThrow(ConfigFileError);
    expect(() => validateConfig(data, 'staging.yaml')).toThrow(`--config staging.yaml: ${problem}`);
  });

  it('names every problem of a file, not only the first', () => {
    expect(() => validateConfig({ allowWrite: true, apikey: 'k', allowSync: 1 }, 'c.yaml')).toThrow('--config c.yaml: unknown key "allowWrite" (did you mean allowWrites?); unknown key "apikey" (did you mean apiKey?); allowSync must be a boolean (got 1)');
  });

  it.each([
    ['YAML', 'staging.yaml', 'target: https://staging.example/api/integrations/v1\nallowWrites: true\n', null],
    ['JSON', 'staging.json', '{"target": "https://staging.example/api/integrations/v1", "allowWrites": true}', null],
    ['a list', 'list.yaml', '- target\n', 'must hold an object (key: value lines), got a list'],
    ['an empty file', 'empty.yaml', '', 'must hold an object (key: value lines), got nothing'],
    ['broken JSON', 'broken.json', '{"target": ', 'is not valid JSON'],
  ])('reads %s', (_what, name, text, refusal) => {
    writeFileSync(join(work, name), text);
    if (refusal === null) expect(readConfigFile(join(work, name))).toEqual({ target: 'https://staging.example/api/integrations/v1', allowWrites: true });
    else expect(() => readConfigFile(join(work, name))).toThrow(refusal);
  });
});
