/**
 * Which certifier graded a run, for the certificate: the package version and
 * a SHA-256 over certify's own sources (each file's path and bytes, in path
 * order, tests left out), so two certificates from different grading code
 * never look alike even when nobody bumped the version.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import type { CertifierIdentity } from './types.ts';

const DIR = new URL('./', import.meta.url);
const PACKAGE = new URL('../package.json', import.meta.url);

let cached: CertifierIdentity | null = null;

export function certifierIdentity(): CertifierIdentity {
  if (cached) return cached;
  const hash = createHash('sha256');
  for (const name of readdirSync(DIR).filter((n) => n.endsWith('.ts') && !n.endsWith('.test.ts')).sort()) {
    hash.update(`${name}\0`).update(readFileSync(new URL(name, DIR))).update('\0');
  }
  const { version } = JSON.parse(readFileSync(PACKAGE, 'utf8')) as { version: string };
  cached = { version, sourceDigest: hash.digest('hex') };
  return cached;
}
