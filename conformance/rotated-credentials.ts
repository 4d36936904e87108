/**
 * The credentials a run rotated through the control plane (a check of §5.3
 * rotates the API key or the webhook secret, and the old one is gone at
 * once): kept in `rotated-credentials.json` of the report directory, mode
 * 0600, so the partner can go on. The next run, given the old key, is
 * refused with a 401; the CLI then points to the file (issue 41 item 9).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROTATED_CREDENTIALS_FILE = 'rotated-credentials.json';

/** Writes the rotated credentials into `reportDir`; returns the file's path. */
export function keepRotated(reportDir: string, rotated: Record<string, string>): string {
  const file = join(reportDir, ROTATED_CREDENTIALS_FILE);
  mkdirSync(reportDir, { recursive: true });
  writeFileSync(file, `${JSON.stringify(rotated, null, 2)}\n`, { mode: 0o600 });
  return file;
}

/**
 * Where the rotated value of a refused credential is, when an earlier run
 * kept one in `reportDir`: a line for the refusal's message, or undefined.
 */
export function rotatedHint(reportDir: string, refused: string | undefined): string | undefined {
  if (refused === undefined) return undefined;
  const file = join(reportDir, ROTATED_CREDENTIALS_FILE);
  if (!existsSync(file)) return undefined;
  let kept: Record<string, unknown>;
  try {
    kept = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (typeof kept[refused] !== 'string') return undefined;
  const what = refused === 'apiKey' ? 'API key' : refused;
  return `an earlier run rotated the integration's ${what} through the control plane and kept the new one in ${file} (${refused}); run with it`;
}
