/**
 * supersession.only-undelivered against a correct platform whose webhook
 * queue is not empty when the check starts: events of an earlier check in
 * back-off (their endpoint was down) ahead of the check's own. On a live
 * target this happened between checks of the release gate, and the check
 * reported the platform's correct supersession of its own still-undelivered
 * event as a breach (issue 30).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { addDays, dateAt } from '../../protocol/calendar.ts';
import { runConformance } from '../runner.ts';
import { serveSimulator, type ServedSimulator } from '../served-simulator.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

async function staff(s: ServedSimulator, method: string, path: string, body: unknown): Promise<any> {
  const res = await fetch(`${s.origin}/_staff${path}`, { method, headers: { Authorization: `Bearer ${s.sim.staffToken}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as any).data;
}

/**
 * A backlog in back-off on a frozen clock: one rates change whose delivery
 * failed four times (nothing listens behind the webhook URL yet), so its next
 * retry is due five minutes on, ahead of anything the check records.
 */
async function backlogInBackOff(s: ServedSimulator): Promise<void> {
  const clock = await staff(s, 'PUT', '/clock', { frozen: true });
  const property = s.partner.properties![0]!;
  const from = addDays(dateAt(clock.epoch_ms), 60);
  await staff(s, 'PUT', `/properties/${property}/rates`, { from, to: from, base_rate: 2500 });
  for (const seconds of [0, 10, 30, 60]) await staff(s, 'POST', '/clock/advance', { seconds });
  const head = s.sim.store.get('events', '1:1') as { status: string; attempts: number } | undefined;
  // The precondition of the reproduction, asserted: without it the test proves nothing.
  expect(head).toMatchObject({ status: 'failed', attempts: 4 });
}

describe('supersession.only-undelivered on a platform with a backlog in back-off', () => {
  it('passes a correct platform: the check has its own event delivered before it covers it', async () => {
    const s = await serveSimulator();
    closers.push(() => s.close());
    await backlogInBackOff(s);
    const report = await runConformance({ ...s.partner, ...s.platform, checks: ['supersession.only-undelivered'], runs: 1 });
    const result = report.results.find((r) => r.id === 'supersession.only-undelivered')!;
    expect({ outcome: result.outcome, failure: result.failure, reason: result.reason }).toEqual({ outcome: 'passed', failure: undefined, reason: undefined });
  });

  it('still fails a platform that supersedes a delivered event', async () => {
    const s = await serveSimulator(['supersede-delivered']);
    closers.push(() => s.close());
    await backlogInBackOff(s);
    const report = await runConformance({ ...s.partner, ...s.platform, checks: ['supersession.only-undelivered'], runs: 1 });
    const result = report.results.find((r) => r.id === 'supersession.only-undelivered')!;
    expect(result.outcome).toBe('failed');
    expect(result.failure?.clause).toBe('3.3.T1a');
  });
});
