/**
 * The command that replays a run's check exactly, as a user can paste it:
 * every option that shapes what the check does, and every credential it
 * needs named by the environment variable that holds it (never its value),
 * so the command says what to set instead of counting on PARTNER_API_KEY
 * happening to be set (issue 27 item 5).
 */
import { CREDENTIAL_VARIABLES, type CredentialName } from './credential-variables.ts';
import type { ConformanceOptions } from './conformance-options.ts';

/** Quotes a shell word only when it needs it. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The credentials in the order a replay names them. */
export const CREDENTIAL_NAMES: readonly CredentialName[] = ['apiKey', 'webhookSecret', 'otherApiKey', 'disabledApiKey', 'nonIntegrationToken', 'controlToken'];

/**
 * How a replay hands over the credentials it names: `PARTNER_API_KEY="${PARTNER_API_KEY:?}"`
 * before the command, for every credential, never `--api-key "$PARTNER_API_KEY"`: npm echoes
 * a script's arguments expanded (`> node … --api-key dlk_…`), so a flag puts the secret in the
 * log (issue 41 item 6). The shell stops, naming the variable, when it is unset: an empty one
 * would quietly make checks not applicable.
 */
export function credentialWords(named: readonly CredentialName[]): string[] {
  return CREDENTIAL_NAMES.filter((name) => named.includes(name)).map((name) => `${CREDENTIAL_VARIABLES[name]}="\${${CREDENTIAL_VARIABLES[name]}:?}"`);
}

/** The credentials a run was given (a library run has no config file: each is named by its variable). */
export function givenCredentials(o: Partial<Record<CredentialName, string>>): CredentialName[] {
  return CREDENTIAL_NAMES.filter((name) => typeof o[name] === 'string' && o[name] !== '');
}

/** `npm run conformance -- …` for a library run (the CLI passes the flags it was given instead). */
export function replayCommand(o: ConformanceOptions): string {
  // In-process the simulator's own demo credentials are used: nothing to name.
  const parts = [...(o.baseUrl ? credentialWords(givenCredentials(o)) : []), 'npm run conformance --'];
  const flag = (name: string, value?: string | number) => parts.push(value === undefined ? `--${name}` : `--${name} ${shellWord(String(value))}`);
  if (o.baseUrl) flag('target', o.baseUrl);
  for (const p of o.properties ?? []) flag('property', p);
  for (const p of o.otherProperties ?? []) flag('other-property', p);
  if (o.allowWrites) flag('allow-writes');
  if (o.allowSync) flag('allow-sync');
  if (o.allowBurst) flag('allow-burst');
  if (o.webhookPublicUrl) flag('webhook-public-url', o.webhookPublicUrl);
  if (o.webhookListenPort !== undefined) flag('webhook-listen-port', o.webhookListenPort);
  if (o.baseUrl && o.controlUrl) flag('control-url', o.controlUrl);
  if (o.normativeOnly) flag('normative-only');
  if (o.runs) flag('runs', o.runs);
  if (o.fault) parts.push(`--fault ${shellWord(o.fault)} --enable-faults`);
  return parts.join(' ');
}
