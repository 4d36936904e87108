/**
 * Issue 17, defect 4: a disk that refuses writes (ENOSPC, EIO, a file system
 * gone read-only). The request whose write failed answers 503 in the error
 * envelope, told at that moment; reads keep answering; writes resume by
 * themselves once the disk accepts them; nothing acknowledged is lost. The
 * faults come from the store's `writeFault` knob (a failing disk on demand,
 * also mid-write: part of a line on disk, then the error).
 */
import { appendFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { FileStore } from './file-store.ts';
import { JOURNAL_NAME } from './journal.ts';
import { makeHarness, newKey } from '../testing.ts';
import { STAFF_ROOT } from '../staff/routes.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function enospc(): Error {
  return Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
}

/** Until `ok()` holds (the journal retries every second; the test's time-out bounds the wait). */
async function until(ok: () => Promise<boolean>): Promise<void> {
  while (!(await ok())) await sleep(100);
}

describe('disk faults: 503 for the failed write, reads go on, writes resume by themselves, nothing acknowledged lost', () => {
  it('a create on a full disk answers 503 in the envelope; reads answer; once space is back the same key replays its 201', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'disk-faults-'));
    dirs.push(dir);
    let fault: (() => Error | null) | null = null;
    const told: string[] = [];
    const store = await FileStore.open(dir, {
      writeFault: () => fault?.() ?? null,
      onWriteFailure: (e) => told.push(`failure: ${e.message}`),
      onWriteRecovery: ({ transactions }) => told.push(`recovered: ${transactions}`),
    });
    const h = makeHarness({ store });
    await store.flush();
    const acknowledged: number[] = [];
    const before = await h.api('post', '/bookings').set('Idempotency-Key', newKey()).send(h.bookingBody({ check_in: '2026-10-01', check_out: '2026-10-02' }));
    expect(before.status, before.text).toBe(201);
    acknowledged.push(before.body.data.id);

    // The disk fills up in the middle of a write: part of a line lands, then ENOSPC.
    const journal = join(dir, readdirSync(dir).filter((n) => JOURNAL_NAME.test(n)).sort().at(-1)!);
    fault = () => {
      appendFileSync(journal, '0badc0de {"n":');
      fault = enospc;
      return enospc();
    };
    const key = newKey();
    const body = h.bookingBody({ check_in: '2026-10-05', check_out: '2026-10-06' });
    const failed = await h.api('post', '/bookings').set('Idempotency-Key', key).send(body);
    expect(failed.status, failed.text).toBe(503);
    expect(failed.body).toEqual({ success: false, code: 'STORAGE_UNAVAILABLE', message: expect.stringMatching(/nothing of this request is acknowledged/), errors: {} });
    expect(failed.headers['retry-after']).toBe('1');
    expect(told, 'told at the moment it failed, once').toEqual([expect.stringMatching(/^failure: the journal .* could not be written or synced \(ENOSPC.*Writes are refused until the disk accepts them again/)]);

    // Reads keep answering; another write is refused before it is applied; staff writes too.
    expect((await h.api('get', '/me')).status).toBe(200);
    expect((await h.api('get', '/bookings')).status).toBe(200);
    expect((await h.http.get(`${STAFF_ROOT}/world`).set('Authorization', `Bearer ${h.fixtures.staffToken}`)).status).toBe(200);
    const bookings = store.size('bookings');
    const refused = await h.api('post', '/bookings').set('Idempotency-Key', newKey()).send(h.bookingBody({ check_in: '2026-10-08', check_out: '2026-10-09' }));
    expect(refused.status).toBe(503);
    expect(store.size('bookings'), 'a write refused during the outage is not applied').toBe(bookings);
    const staffWrite = await h.http.post(`${STAFF_ROOT}/brands`).set('Authorization', `Bearer ${h.fixtures.staffToken}`).send({ name: 'During the outage' });
    expect(staffWrite.status).toBe(503);

    // Space comes back: the journal retries by itself, and writes are accepted again.
    fault = null;
    await until(async () => store.stats().syncRounds > 0 && told.length === 2);
    expect(told[1]).toMatch(/^recovered: \d+/);
    const retried = await h.api('post', '/bookings').set('Idempotency-Key', key).send(body);
    expect(retried.status, 'the 503 told the client to retry; the key replays what the store kept').toBe(201);
    acknowledged.push(retried.body.data.id);
    const after = await h.api('post', '/bookings').set('Idempotency-Key', newKey()).send(h.bookingBody({ check_in: '2026-10-11', check_out: '2026-10-12' }));
    expect(after.status, after.text).toBe(201);
    acknowledged.push(after.body.data.id);
    await store.close();

    // Nothing acknowledged is lost, and the half line the full disk left is gone.
    const again = await FileStore.open(dir);
    expect(again.report.tornBytes).toBe(0);
    for (const id of acknowledged) expect(again.get('bookings', String(id)), `booking ${id}`).toBeDefined();
    await again.close();
  });
});
