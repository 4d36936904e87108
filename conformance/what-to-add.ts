/**
 * What to add to a run's options for the checks it found not applicable
 * (issue 41 item 3). A read-only first run leaves most of the catalogue not
 * applicable; the useful summary is not 31 reason strings but "add
 * `--allow-writes --property ID`: +34 checks". Each group is computed from
 * the checks' declared `needs` (checked before a check runs) and `wants`
 * (what it may need, depending on what the platform holds), never from the
 * text of a reason.
 */
import type { CredentialName } from './credential-variables.ts';
import type { Addition, AdditionGroup, Capability, CheckResult, Want } from './types.ts';

/** What the run had: its target's capabilities, whether it named properties, and the credentials it was given. */
export interface RunHas {
  kind: 'in-process' | 'live';
  capabilities: Capability[];
  /** A property the run may use (live: --property; in-process: the demo world's). */
  properties: boolean;
  credentials: CredentialName[];
}

/** A check as grouping needs it: its declared needs and wants. */
export interface Declared {
  id: string;
  needs: Capability[];
  wants?: Want[];
}

const ORDER: Addition[] = ['write', 'property', 'sync', 'burst', 'otherApiKey', 'disabledApiKey', 'nonIntegrationToken', 'control'];

/** What would make `check` applicable on a run that had `has`: its missing needs, then its unmet wants. */
export function additionsFor(check: Declared, has: RunHas): Addition[] {
  const out = new Set<Addition>();
  const plane = has.capabilities.some((c) => c.startsWith('control:'));
  for (const need of check.needs) {
    if (has.capabilities.includes(need) || need === 'read') continue;
    // Without a control plane every action is missing for the same reason: one addition, the plane.
    if (need.startsWith('control:')) out.add(plane ? need : 'control');
    else out.add(need);
  }
  for (const want of check.wants ?? []) {
    if (want === 'write' ? has.capabilities.includes('write') : want === 'property' ? has.properties : has.credentials.includes(want)) continue;
    out.add(want);
  }
  // A live run may write only on a named property (the CLI refuses --allow-writes alone).
  if (out.has('write') && has.kind === 'live' && !has.properties) out.add('property');
  return [...out].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** The not-applicable results grouped by the additions that would make them applicable, largest group first. */
export function whatToAdd(checks: Declared[], results: CheckResult[], has: RunHas): AdditionGroup[] {
  const byId = new Map(checks.map((c) => [c.id, c]));
  const groups = new Map<string, AdditionGroup>();
  for (const r of results) {
    if (r.outcome !== 'not_applicable') continue;
    const check = byId.get(r.id);
    const add = check ? additionsFor(check, has) : [];
    const key = add.join(' ');
    const group = groups.get(key) ?? { add, label: additionLabel(add), checks: [] };
    group.checks.push(r.id);
    groups.set(key, group);
  }
  // Nothing to add (the platform held no data they could judge) comes last, whatever its size.
  return [...groups.values()].sort((a, b) => Number(a.add.length === 0) - Number(b.add.length === 0) || b.checks.length - a.checks.length || a.label.localeCompare(b.label));
}

/** The additions in words, as a person types them: `--allow-writes --property ID + the control plane (--control-url, --control-token)`. */
export function additionLabel(add: Addition[]): string {
  if (add.length === 0) return 'nothing to add: the platform held no data they could judge (each reason is in the report)';
  const words: string[] = [];
  const flags = [add.includes('write') && '--allow-writes', add.includes('property') && '--property ID', add.includes('sync') && '--allow-sync', add.includes('burst') && '--allow-burst'].filter((w): w is string => typeof w === 'string');
  if (flags.length > 0) words.push(flags.join(' '));
  const credential: Partial<Record<Addition, string>> = {
    otherApiKey: "another integration's API key (otherApiKey in --config, or PARTNER_OTHER_API_KEY)",
    disabledApiKey: "a disabled integration's API key (disabledApiKey in --config, or PARTNER_DISABLED_API_KEY)",
    nonIntegrationToken: 'a bearer token that is not an integration key (nonIntegrationToken in --config, or PARTNER_NON_INTEGRATION_TOKEN)',
  };
  for (const a of add) if (credential[a]) words.push(credential[a]!);
  if (add.includes('control')) words.push('the control plane (--control-url, --control-token)');
  const actions = add.filter((a) => a.startsWith('control:')).map((a) => a.slice('control:'.length));
  if (actions.length > 0) words.push(`control action${actions.length > 1 ? 's' : ''} ${actions.join(', ')} (not offered by the control plane)`);
  return words.join(' + ');
}

function rank(a: Addition): number {
  const i = ORDER.indexOf(a);
  return i === -1 ? ORDER.length : i;
}
