/**
 * The command that replays a run's check exactly, as a user can paste it:
 * every option that shapes what the check does, secrets only by the names of
 * the environment variables the CLI reads them from (never their values).
 */
import type { ConformanceOptions } from './runner.ts';

/** Quotes a shell word only when it needs it. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** `npm run conformance -- …` for a library run (the CLI passes the flags it was given instead). */
export function replayCommand(o: ConformanceOptions): string {
  const parts = ['npm run conformance --'];
  const flag = (name: string, value?: string | number) => parts.push(value === undefined ? `--${name}` : `--${name} ${shellWord(String(value))}`);
  if (o.baseUrl) flag('target', o.baseUrl);
  for (const p of o.properties ?? []) flag('property', p);
  if (o.allowWrites) flag('allow-writes');
  if (o.allowSync) flag('allow-sync');
  if (o.allowBurst) flag('allow-burst');
  if (o.webhookPublicUrl) flag('webhook-public-url', o.webhookPublicUrl);
  if (o.webhookListenPort !== undefined) flag('webhook-listen-port', o.webhookListenPort);
  if (o.normativeOnly) flag('normative-only');
  if (o.runs) flag('runs', o.runs);
  if (o.fault) parts.push(`--fault ${shellWord(o.fault)} --enable-faults`);
  return parts.join(' ');
}
