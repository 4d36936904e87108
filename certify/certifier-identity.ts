/**
 * Which certifier graded a run, for the certificate: the package version and
 * a SHA-256 over the code that runs when certify runs, so two certificates
 * from different grading code never look alike even when nobody bumped the
 * version.
 *
 * "The code that runs" is every module reachable by relative import from
 * certify's command (`cli`, which reaches the run, the grading, the
 * simulator it starts and the contract loader), and the documents those
 * modules read beside themselves (`new URL('./openapi.yaml',
 * import.meta.url)`): in a clone the TypeScript sources tsx runs, installed
 * the compiled `.js` files under dist/ (not the `.d.ts` beside them, which
 * never run). The package.json is found by walking up from the entry, so it
 * is the package's own both in a clone (`../package.json`) and installed
 * (`../../package.json` from `dist/certify/`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { relative } from 'node:path';
import type { CertifierIdentity } from './types.ts';

const PACKAGE_NAME = 'partner-api-conformance';
/** `.ts` when this module is the source (a clone, tests), `.js` when it is the built package. */
const EXTENSION = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
const ENTRY = new URL(`./cli${EXTENSION}`, import.meta.url);

/** Relative specifiers of static imports, re-exports and dynamic imports; type-only imports are erased from the built .js. */
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.\.?\/[^'"]+)['"]/g;
/** A document a module reads beside itself. */
const DOCUMENT = /new URL\(\s*['"](\.\.?\/[^'"]+\.(?:ya?ml|json))['"]\s*,\s*import\.meta\.url\s*\)/g;

let cached: CertifierIdentity | null = null;

export function certifierIdentity(): CertifierIdentity {
  cached ??= identityOf(ENTRY);
  return cached;
}

/** The identity of the certifier whose command is `entry`: the version of the package holding it, the digest of what it runs. */
export function identityOf(entry: URL): CertifierIdentity {
  const root = packageRoot(entry);
  const hash = createHash('sha256');
  for (const file of runningFiles(entry)) {
    // Each file's path (from the package root) and bytes, separated, so moving code between files changes the digest too.
    hash.update(`${relative(fileURLToPath(root), fileURLToPath(file))}\0`).update(readFileSync(file)).update('\0');
  }
  const { version } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { version: string };
  return { version, sourceDigest: hash.digest('hex') };
}

/** The modules and documents reachable from `entry`, in path order. */
export function runningFiles(entry: URL): URL[] {
  const seen = new Map<string, URL>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    // A specifier that names no file is text in a comment, not code that runs (a missing module fails its import).
    if (seen.has(file.href) || !existsSync(file)) continue;
    seen.set(file.href, file);
    if (!/\.(ts|js|mjs)$/.test(file.pathname)) continue;
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(IMPORT)) queue.push(new URL(m[1]!, file));
    for (const m of text.matchAll(DOCUMENT)) queue.push(new URL(m[1]!, file));
  }
  return [...seen.values()].sort((a, b) => (a.href < b.href ? -1 : a.href > b.href ? 1 : 0));
}

/** The directory of the package's package.json: the nearest one up from `entry` that names the package. */
function packageRoot(entry: URL): URL {
  for (let dir = new URL('./', entry); ; dir = new URL('../', dir)) {
    const manifest = new URL('package.json', dir);
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === PACKAGE_NAME) return dir;
    if (dir.pathname === '/') throw new Error(`certifier identity: no package.json of ${PACKAGE_NAME} above ${fileURLToPath(entry)}`);
  }
}
