/**
 * The command that replays a run's check exactly, as a user can paste it:
 * every option that shapes what the check does, and every credential it
 * needs named by the environment variable that holds it (never its value),
 * so the command says what to set instead of counting on PARTNER_API_KEY
 * happening to be set (issue 27 item 5).
 */
import { CREDENTIAL_VARIABLES, type CredentialName } from './credential-variables.ts';
import type { ConformanceOptions } from './runner.ts';

/** Quotes a shell word only when it needs it. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The credentials in the order a replay names them. */
export const CREDENTIAL_NAMES: readonly CredentialName[] = ['apiKey', 'webhookSecret', 'otherApiKey', 'disabledApiKey', 'nonIntegrationToken', 'controlToken'];

/** The CLI flag of a credential, where it has one; the others are read only from --config or the environment. */
const FLAG: Partial<Record<CredentialName, string>> = { apiKey: '--api-key', webhookSecret: '--webhook-secret', controlToken: '--control-token' };

/**
 * How a replay hands over the credentials it names: `--api-key "$PARTNER_API_KEY"`
 * for a credential with a flag (the CLI refuses an empty one, naming the
 * flag), `PARTNER_OTHER_API_KEY="${PARTNER_OTHER_API_KEY:?}"` before the
 * command for the others (the shell stops, naming the variable, when it is
 * unset: an empty one would quietly make checks not applicable).
 */
export function credentialWords(named: readonly CredentialName[]): { env: string[]; flags: string[] } {
  const env: string[] = [];
  const flags: string[] = [];
  for (const name of CREDENTIAL_NAMES) {
    if (!named.includes(name)) continue;
    const variable = CREDENTIAL_VARIABLES[name];
    const flag = FLAG[name];
    if (flag !== undefined) flags.push(`${flag} "$${variable}"`);
    else env.push(`${variable}="\${${variable}:?}"`);
  }
  return { env, flags };
}

/** The credentials a run was given (a library run has no config file: each is named by its variable). */
export function givenCredentials(o: Partial<Record<CredentialName, string>>): CredentialName[] {
  return CREDENTIAL_NAMES.filter((name) => typeof o[name] === 'string' && o[name] !== '');
}

/** `npm run conformance -- …` for a library run (the CLI passes the flags it was given instead). */
export function replayCommand(o: ConformanceOptions): string {
  const parts = ['npm run conformance --'];
  const flag = (name: string, value?: string | number) => parts.push(value === undefined ? `--${name}` : `--${name} ${shellWord(String(value))}`);
  // In-process the simulator's own demo credentials are used: nothing to name.
  const credentials = o.baseUrl ? credentialWords(givenCredentials(o)) : { env: [], flags: [] };
  if (o.baseUrl) flag('target', o.baseUrl);
  parts.push(...credentials.flags);
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
  return [...credentials.env, ...parts].join(' ');
}
