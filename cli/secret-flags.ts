/**
 * The flags that carry a secret, and the warning a command line that uses
 * one gets (issue 41 item 6). A secret given as a flag is on the command
 * line: `npm run` echoes it (`> node … --api-key dlk_…`), and the shell's
 * history, `ps` and a CI log keep it. Each such flag has an environment
 * variable the command reads instead; the warning names it, once per flag,
 * on stderr, and never echoes the value. The run goes on: the flag still
 * works (a public contract), it is only said to be the leaky way.
 */

/** Per command: each flag that carries a secret, and the environment variable to give it in instead. */
export const SECRET_FLAGS = {
  // The names of conformance/credential-variables.ts (docs/secret-flags.test.ts holds them equal).
  conformance: { 'api-key': 'PARTNER_API_KEY', 'webhook-secret': 'PARTNER_WEBHOOK_SECRET', 'control-token': 'PARTNER_CONTROL_TOKEN' },
  scenario: { 'api-key': 'PARTNER_API_KEY', 'webhook-secret': 'PARTNER_WEBHOOK_SECRET' },
  receiver: { secret: 'PARTNER_WEBHOOK_SECRET' },
  certify: { 'staff-token': 'PARTNER_STAFF_TOKEN' },
  watch: { 'webhook-secret': 'PARTNER_WEBHOOK_SECRET' },
} as const satisfies Record<string, Record<string, string>>;

export type SecretFlagCommand = keyof typeof SECRET_FLAGS;

/** The warning for one flag: names the flag and the variable, never the value. */
export function secretFlagWarning(flag: string, variable: string): string {
  return `warning: --${flag} puts a secret on the command line, where npm echoes it and shell history and process lists keep it; set ${variable} in the environment instead (the value is not shown here)\n`;
}

/**
 * Writes one warning for each secret flag of `command` that the parsed
 * `values` hold; returns the flags warned about. Call it once, right after
 * the flags are parsed.
 */
export function warnSecretFlags(command: SecretFlagCommand, values: Record<string, unknown>, write: (text: string) => void = (t) => void process.stderr.write(t)): string[] {
  const warned: string[] = [];
  for (const [flag, variable] of Object.entries(SECRET_FLAGS[command])) {
    if (values[flag] === undefined) continue;
    write(secretFlagWarning(flag, variable));
    warned.push(flag);
  }
  return warned;
}
