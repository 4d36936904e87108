/**
 * How a certificate came to be, in the words a verifier reads (issue 28 item
 * 4): what a signature on it can vouch for depends on who observed the
 * partner. `--verify` prints it; the certificate carries it.
 */
import type { Issuance } from './types.ts';

const STATEMENTS: Record<Issuance['mode'], string> = {
  run: 'observed by the platform: the certifier that issued it ran the drills against the partner and graded what it saw',
  regrade: 're-graded from a partner\'s bundle: the platform vouches for the grading, not the observation',
};

/** The statement a certificate of `mode` carries. */
export function issuanceStatement(mode: Issuance['mode']): string {
  return STATEMENTS[mode];
}

/** The statement of a certificate's issuance; a certificate from before issuance was recorded was a run. */
export function statementOf(issuance: Issuance | undefined): string {
  return issuance?.statement ?? issuanceStatement(issuance?.mode ?? 'run');
}
