import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseYamlCached } from './yaml-cache.ts';

describe('the parse cache (cold start)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'contract-cache-'));
  const cache = pathToFileURL(join(dir, 'cache') + '/');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const entries = () => readdirSync(cache).filter((f) => f.endsWith('.json'));

  it('answers what the YAML parse answers, from a kept entry once written', () => {
    const yaml = pathToFileURL(join(dir, 'doc.yaml'));
    writeFileSync(yaml, 'a: 1\nb: [x, { c: null }]\n');
    expect(parseYamlCached(yaml, cache)).toEqual({ a: 1, b: ['x', { c: null }] });
    expect(entries()).toHaveLength(1);
    expect(parseYamlCached(yaml, cache)).toEqual({ a: 1, b: ['x', { c: null }] });
    // A changed document is another key: never the stale entry.
    writeFileSync(yaml, 'a: 2\n');
    expect(parseYamlCached(yaml, cache)).toEqual({ a: 2 });
    expect(entries()).toHaveLength(2);
  });

  it('treats a damaged entry as a miss and writes it again', () => {
    const yaml = pathToFileURL(join(dir, 'damaged.yaml'));
    writeFileSync(yaml, 'k: [1, 2]\n');
    parseYamlCached(yaml, cache);
    const [entry] = entries().filter((f) => f.startsWith('damaged.yaml.'));
    writeFileSync(join(dir, 'cache', entry!), '{"key":');
    expect(parseYamlCached(yaml, cache)).toEqual({ k: [1, 2] });
    expect(JSON.parse(readFileSync(join(dir, 'cache', entry!), 'utf8')).value).toEqual({ k: [1, 2] });
  });

  it('keeps no entry JSON cannot hold exactly, and still parses', () => {
    const yaml = pathToFileURL(join(dir, 'inf.yaml'));
    writeFileSync(yaml, 'big: .inf\n');
    expect(parseYamlCached(yaml, cache)).toEqual({ big: Infinity });
    expect(entries().filter((f) => f.startsWith('inf.yaml.'))).toEqual([]);
  });

  it('holds spec/openapi.yaml exactly as yaml parses it', () => {
    const url = new URL('./openapi.yaml', import.meta.url);
    parseYamlCached(url, cache);
    expect(parseYamlCached(url, cache)).toEqual(parse(readFileSync(url, 'utf8')));
  });
});
