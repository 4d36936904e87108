/**
 * The parse of a YAML document, kept between processes. Parsing
 * spec/openapi.yaml is most of a cold start; the yaml library (about 70
 * modules) is loaded only on a miss.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isDeepStrictEqual } from 'node:util';

const require = createRequire(import.meta.url);

const PARSE_CACHE = parseCacheDir();

/**
 * node_modules/.cache/partner-api-conformance/: the clone's (this module in
 * spec/), or, for the installed package (dist/spec/), the node_modules it is
 * installed in, as find-cache-dir does; never a directory inside the package.
 */
function parseCacheDir(): URL {
  const packageRoot = new URL(import.meta.url.endsWith('.js') ? '../../' : '../', import.meta.url);
  const installedIn = new URL('../', packageRoot);
  return installedIn.pathname.endsWith('/node_modules/')
    ? new URL('.cache/partner-api-conformance/', installedIn)
    : new URL('node_modules/.cache/partner-api-conformance/', packageRoot);
}
const PARSE_CACHE_FORMAT = 1;
const PARSE_CACHE_KEEP = 8;

/**
 * The YAML document at `url` as plain data. Parsing spec/openapi.yaml costs
 * 200 to 250 ms of a cold start (more than everything else the simulator does
 * before it serves); reading the same data back as JSON costs about 1 ms. So
 * the parse is kept in node_modules/.cache, keyed by the SHA-256 of the YAML
 * text and the yaml release: an entry can never be stale (a changed document
 * is another key), is written whole (a temporary file renamed into place) and
 * only when JSON holds the parse exactly. A missing or unreadable entry is a
 * miss (the YAML is parsed, errors and all, as without a cache); a cache that
 * cannot be written is skipped. `cacheDir` (a directory URL, with its slash)
 * is for tests.
 */
export function parseYamlCached(url: URL, cacheDir: URL = PARSE_CACHE): unknown {
  const text = readFileSync(url, 'utf8');
  const name = url.pathname.slice(url.pathname.lastIndexOf('/') + 1);
  const yamlVersion = (require('yaml/package.json') as { version: string }).version;
  const key = createHash('sha256').update(`${PARSE_CACHE_FORMAT} ${name} yaml@${yamlVersion}\n`).update(text).digest('hex');
  const entry = new URL(`${name}.${key}.json`, cacheDir);
  try {
    const saved = JSON.parse(readFileSync(entry, 'utf8')) as { key?: unknown; value?: unknown };
    if (saved.key === key && 'value' in saved) return saved.value;
  } catch {
    // No entry yet, or one that cannot be read: parse.
  }
  const value: unknown = (require('yaml') as typeof import('yaml')).parse(text);
  let json: string;
  try {
    json = JSON.stringify({ key, value });
  } catch {
    return value; // A cycle (a recursive YAML alias): JSON cannot hold it.
  }
  if (!isDeepStrictEqual((JSON.parse(json) as { value?: unknown }).value, value)) return value;
  const temporary = new URL(`${name}.${key}.${randomBytes(8).toString('hex')}.tmp`, cacheDir);
  try {
    mkdirSync(cacheDir, { recursive: true });
    writeFileSync(temporary, json);
    renameSync(temporary, entry);
    // Keeps the entries of the last few texts (checkouts sharing node_modules may be at different ones).
    const earlier = readdirSync(cacheDir)
      .filter((file) => file.startsWith(`${name}.`) && file.endsWith('.json'))
      .map((file) => ({ file, at: statSync(new URL(file, cacheDir)).mtimeMs }))
      .sort((a, b) => b.at - a.at);
    for (const { file } of earlier.slice(PARSE_CACHE_KEEP)) rmSync(new URL(file, cacheDir), { force: true });
  } catch {
    // A read-only or full disk: go on without the cache.
    try {
      rmSync(temporary, { force: true });
    } catch {
      // Nothing was written.
    }
  }
  return value;
}

