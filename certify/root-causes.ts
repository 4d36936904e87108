/**
 * Why requirements were not observed, said once for all that share a cause
 * (issue 41 item 7): a partner whose system never read `orders` from the
 * certification file gets one line saying so above the six requirements
 * that needed an order, not six lines each describing a missing call. Pure:
 * the results and what the run knows in, groups out, in catalogue order.
 */
import { dependentsOf } from './drill-dependencies.ts';
import type { DrillRecord, JournalEntry, RequirementResult } from './types.ts';

/** Requirements no partner can show without placing the certification file's orders (POST /bookings). */
export const NEEDS_ORDERS = ['usage.idempotency-key', 'usage.retry-same-key', 'usage.new-key-per-booking', 'usage.retry-after', 'usage.unavailable-final', 'usage.rotated-key'] as const;

export interface RunFacts {
  /** A `--receiver-only` run: usage and recovery were not exercised. */
  receiverOnly: boolean;
  /** The partner's calls (null: the journal lives in a running simulator's process). */
  journal: JournalEntry[] | null;
  drills: Array<Pick<DrillRecord, 'id' | 'outcome' | 'did'>>;
  /** The certification file, as the run wrote it (named in the causes). */
  credentialsPath: string;
}

export interface NotObservedGroup {
  /** The one cause of every requirement of the group; null: each says its own (its summary). */
  cause: string | null;
  ids: string[];
}

/** The cause a not-observed requirement shares with others, or null when its own summary is the reason. */
export function rootCause(r: Pick<RequirementResult, 'id' | 'group'>, facts: RunFacts): string | null {
  const usage = r.group !== 'receiver';
  if (facts.receiverOnly && usage) return 'not exercised: a --receiver-only run grades your receiver alone (run without --receiver-only, your system placing the orders, for API usage and recovery)';
  if (facts.journal === null && usage) return 'the call journal lives in the running simulator\'s process (--base-url): run certify with its in-process simulator to grade API usage';
  if (facts.journal !== null && facts.journal.length === 0 && usage) {
    return `your system made no API call with the run's key: it never read baseUrl and apiKey from the credentials file (${facts.credentialsPath})`;
  }
  if (facts.journal !== null && (NEEDS_ORDERS as readonly string[]).includes(r.id) && !facts.journal.some((e) => e.operation === 'createBooking')) {
    return `your system never read \`orders\` from the credentials file (${facts.credentialsPath}): it sent no POST /bookings, and these requirements rest on the orders it places`;
  }
  const drill = facts.drills.find((d) => d.outcome === 'not_run' && dependentsOf(d.id).includes(r.id));
  if (drill) return `${drill.id} did not run: ${drill.did.replace(/^Not run: /, '').replace(/\.$/, '')}`;
  return null;
}

/** The not-observed results grouped by cause, groups in the order their first requirement comes; the ungrouped last. */
export function groupNotObserved(results: Array<Pick<RequirementResult, 'id' | 'group' | 'outcome'>>, facts: RunFacts): NotObservedGroup[] {
  const groups: NotObservedGroup[] = [];
  const own: string[] = [];
  for (const r of results.filter((x) => x.outcome === 'not_observed')) {
    const cause = rootCause(r, facts);
    if (cause === null) {
      own.push(r.id);
      continue;
    }
    const group = groups.find((g) => g.cause === cause);
    if (group) group.ids.push(r.id);
    else groups.push({ cause, ids: [r.id] });
  }
  return own.length > 0 ? [...groups, { cause: null, ids: own }] : groups;
}
