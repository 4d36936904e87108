/** Not-observed requirements come under the one cause they share (issue 41 item 7), table-driven. */
import { describe, expect, it } from 'vitest';
import { groupNotObserved, NEEDS_ORDERS, rootCause, type RunFacts } from './root-causes.ts';
import { REQUIREMENTS } from './requirements.ts';
import type { JournalEntry } from './types.ts';

const call = (operation: string) => ({ operation }) as JournalEntry;
const facts = (over: Partial<RunFacts>): RunFacts => ({ receiverOnly: false, journal: [call('getMe')], drills: [], credentialsPath: 'c.json', ...over });
const usage = { id: 'usage.idempotency-key', group: 'usage' as const };
const receiver = { id: 'receiver.rotation', group: 'receiver' as const };

describe('rootCause', () => {
  it.each([
    ['a receiver-only run: usage not exercised', usage, facts({ receiverOnly: true }), /--receiver-only run grades your receiver alone/],
    ['no journal (a running simulator)', usage, facts({ journal: null }), /call journal lives in the running simulator/],
    ['no API call at all', usage, facts({ journal: [] }), /made no API call .* never read baseUrl and apiKey from the credentials file \(c\.json\)/],
    ['calls, but no POST /bookings', usage, facts({}), /never read `orders` from the credentials file \(c\.json\)/],
    ['a drill that did not run', receiver, facts({ drills: [{ id: 'drill.secret-rotation', outcome: 'not_run', did: 'Not run: the run ended.' }] }), /^drill\.secret-rotation did not run: the run ended$/],
  ] as const)('%s', (_name, r, f, want) => {
    expect(rootCause(r, f)).toMatch(want);
  });

  it('an order placed: the requirement says its own reason (null)', () => {
    expect(rootCause(usage, facts({ journal: [call('createBooking')] }))).toBeNull();
    expect(rootCause(receiver, facts({ receiverOnly: true }))).toBeNull();
  });
});

describe('groupNotObserved', () => {
  it('a partner that never placed an order: one group holding every requirement that needs one; the rest under their own reasons', () => {
    const results = REQUIREMENTS.map((r) => ({ id: r.id, group: r.group, outcome: 'not_observed' as const }));
    const groups = groupNotObserved(results, facts({}));
    const orders = groups.find((g) => g.cause?.includes('orders'));
    expect(orders?.ids.sort()).toEqual([...NEEDS_ORDERS].sort());
    expect(groups.at(-1)!.cause).toBeNull();
    expect(groups.flatMap((g) => g.ids).sort()).toEqual(REQUIREMENTS.map((r) => r.id).sort());
  });

  it('passed and failed requirements are in no group', () => {
    expect(groupNotObserved([{ id: 'usage.idempotency-key', group: 'usage', outcome: 'fail' }], facts({ journal: [] }))).toEqual([]);
  });
});
