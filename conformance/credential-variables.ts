/**
 * The environment variables the conformance CLI reads each credential from
 * (conformance/cli.ts). Replay and curl commands name a credential by its
 * variable, never by its value, so a command pasted from a report runs once
 * the variables are set and leaks nothing when it is shared.
 */
export const CREDENTIAL_VARIABLES = {
  apiKey: 'PARTNER_API_KEY',
  webhookSecret: 'PARTNER_WEBHOOK_SECRET',
  otherApiKey: 'PARTNER_OTHER_API_KEY',
  disabledApiKey: 'PARTNER_DISABLED_API_KEY',
  nonIntegrationToken: 'PARTNER_NON_INTEGRATION_TOKEN',
  controlToken: 'PARTNER_CONTROL_TOKEN',
} as const;

export type CredentialName = keyof typeof CREDENTIAL_VARIABLES;

/** The credentials a run holds, as its target (targets.ts) holds them at call time. */
export interface HeldCredentials {
  apiKey: string;
  otherApiKey: string | null;
  disabledApiKey: string | null;
  nonIntegrationToken: string | null;
  control: { token: string } | null;
  webhookSecret: string | null;
}

/**
 * The variable of the target's credential that `sent` carries (a bearer
 * token, a URL, a body), read at call time so a credential a check rotated
 * is named too; undefined when it carries none of the run's credentials.
 */
export function credentialVariable(target: HeldCredentials, sent: string): string | undefined {
  const held: Array<[CredentialName, string | null | undefined]> = [
    ['apiKey', target.apiKey],
    ['otherApiKey', target.otherApiKey],
    ['disabledApiKey', target.disabledApiKey],
    ['nonIntegrationToken', target.nonIntegrationToken],
    ['controlToken', target.control?.token],
    ['webhookSecret', target.webhookSecret],
  ];
  const found = held.find(([, value]) => typeof value === 'string' && value !== '' && sent.includes(value));
  return found ? CREDENTIAL_VARIABLES[found[0]] : undefined;
}
