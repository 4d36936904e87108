/** Safe creates (§4.5): a stored key and identical body on every retry; duplicate: true is success; polling by updated_since (§6.9). */
import { describe, expect, it } from 'vitest';
import { PartnerApi } from './api-client.ts';
import { BookingDesk, pollBookings, type BookingRequest } from './bookings.ts';
import { CredentialVault, NO_BREAKAGES, type Breakages } from './config.ts';
import { envelope, failure, scriptedFetch, type Answer } from './fake-api.ts';
import { emptyState } from './state.ts';

const booking = (id: number, ext: string, revision = 1, updatedAt = '2026-09-15T12:00:00.000+05:30') =>
  ({ id, external_booking_id: ext, revision, status: 'confirmed', updated_at: updatedAt });

const request = (ext: string, checkIn = '2026-10-01'): BookingRequest => ({
  external_booking_id: ext, property: { doorloom_id: 102 }, units: [{ adults: 2 }], check_in: checkIn, check_out: '2026-10-03',
  guest: { name: 'Asha Rao', mobile: '9800000000' }, pricing: { total: 12000 },
});

function desk(answers: Answer[], breakages: Partial<Breakages> = {}) {
  const { fetch, sent } = scriptedFetch(answers);
  const state = emptyState();
  const saves: string[] = [];
  const api = new PartnerApi({ baseUrl: 'http://api.test/v1', credentials: new CredentialVault('dlk_k', []), clock: { now: () => 0 }, sleep: async () => {}, fetch });
  const d = new BookingDesk({ api, state: () => state, save: async () => void saves.push(JSON.stringify(state.reservations)), sleep: async () => {}, breakages: { ...NO_BREAKAGES, ...breakages } });
  return { d, sent, state, saves };
}

const key = (r: { headers: Record<string, string> }) => r.headers['Idempotency-Key'];

describe('BookingDesk', () => {
  it('§4.5 rule 1: a lost answer is retried with the same key and the byte-identical body', async () => {
    const t = desk(['network-error', { status: 500 }, { status: 201, body: envelope(booking(5001, 'G-1')) }]);
    const r = await t.d.book(request('G-1'));
    expect(r).toMatchObject({ status: 'placed', booking_id: 5001, attempts: 3 });
    expect(new Set(t.sent.map(key)).size).toBe(1);
    expect(new Set(t.sent.map((s) => s.body)).size).toBe(1);
    expect(t.state.bookings['5001']!.booking.revision).toBe(1);
  });

  it('the reservation is saved before the create leaves (a crash is re-driven with the same key)', async () => {
    const t = desk([{ status: 201, body: envelope(booking(5001, 'G-1')) }]);
    await t.d.book(request('G-1'));
    expect(JSON.parse(t.saves[0]!)['G-1']).toMatchObject({ status: 'sending', attempts: 0 });
  });

  it('§4.5 rule 3: 409 IN_PROGRESS is retried with the same key', async () => {
    const t = desk([{ status: 409, body: failure('IN_PROGRESS') }, { status: 201, body: envelope(booking(5001, 'G-1')) }]);
    expect((await t.d.book(request('G-1'))).status).toBe('placed');
    expect(key(t.sent[0]!)).toBe(key(t.sent[1]!));
  });

  it('§4.5 rule 4: 200 duplicate: true is success', async () => {
    const t = desk([{ status: 200, body: envelope({ ...booking(5001, 'G-1'), duplicate: true }) }]);
    expect(await t.d.book(request('G-1'))).toMatchObject({ status: 'placed', booking_id: 5001 });
    expect(t.state.bookings['5001']!.booking).not.toHaveProperty('duplicate');
  });

  it('§4.5 rule 7: 409 UNAVAILABLE declines the guest and keeps the availability body', async () => {
    const availability = { property: { doorloom_id: 102 }, window: { from: '2026-10-01', to: '2026-10-02' }, total_units: 1, dates: [] };
    const t = desk([{ status: 409, body: failure('UNAVAILABLE', { availability }) }]);
    const r = await t.d.book(request('G-1'));
    expect(r).toMatchObject({ status: 'declined', answer: { status: 409, code: 'UNAVAILABLE', availability } });
    expect(t.sent).toHaveLength(1);
  });

  it('any other refusal fails the reservation without a retry', async () => {
    const t = desk([{ status: 422, body: failure('PROPERTY_ARCHIVED') }]);
    expect(await t.d.book(request('G-1'))).toMatchObject({ status: 'failed', answer: { code: 'PROPERTY_ARCHIVED' } });
  });

  it('two reservations get two keys, even for the same stay', async () => {
    const t = desk([{ status: 201, body: envelope(booking(5001, 'G-1')) }, { status: 201, body: envelope(booking(5002, 'G-2')) }]);
    await t.d.book(request('G-1'));
    await t.d.book(request('G-2'));
    expect(key(t.sent[0]!)).not.toBe(key(t.sent[1]!));
  });

  it('resume() re-drives what was left sending, with the stored key and body', async () => {
    const t = desk(['network-error', 'network-error', 'network-error', 'network-error', 'network-error', 'network-error', { status: 201, body: envelope(booking(5001, 'G-1')) }]);
    expect((await t.d.book(request('G-1'))).status).toBe('sending');
    await t.d.resume();
    expect(t.state.reservations['G-1']!.status).toBe('placed');
    expect(new Set(t.sent.map(key)).size).toBe(1);
  });

  it('breakage newKeyPerRetry: every retry has a new key (only external_booking_id saves it: duplicate: true)', async () => {
    const t = desk(['network-error', { status: 200, body: envelope({ ...booking(5001, 'G-1'), duplicate: true }) }], { newKeyPerRetry: true });
    expect((await t.d.book(request('G-1'))).status).toBe('placed');
    expect(key(t.sent[0]!)).not.toBe(key(t.sent[1]!));
  });

  it('breakage reuseKeyForNewBooking: two reservations for the same stay share a key', async () => {
    const t = desk([{ status: 201, body: envelope(booking(5001, 'G-1')) }, { status: 422, body: failure('IDEMPOTENCY_KEY_REUSED') }], { reuseKeyForNewBooking: true });
    await t.d.book(request('G-1'));
    expect(await t.d.book(request('G-2'))).toMatchObject({ status: 'failed', answer: { code: 'IDEMPOTENCY_KEY_REUSED' } });
    expect(key(t.sent[0]!)).toBe(key(t.sent[1]!));
  });
});

describe('pollBookings (§6.9)', () => {
  it('asks for changes since the highest updated_at it stored, and stores the new highest', async () => {
    const page = (data: unknown[]) => ({ status: 200, body: envelope(data, { pagination: { page: 1, per_page: 200, total: data.length, last_page: 1 } }) });
    const { fetch, sent } = scriptedFetch([
      page([booking(5001, 'G-1', 1, '2026-09-15T12:00:00.000+05:30'), booking(5002, 'G-2', 1, '2026-09-15T13:00:00.000+05:30')]),
      page([booking(5002, 'G-2', 1, '2026-09-15T13:00:00.000+05:30'), booking(5001, 'G-1', 2, '2026-09-16T09:00:00.000+05:30')]),
    ]);
    const api = new PartnerApi({ baseUrl: 'http://api.test/v1', credentials: new CredentialVault('dlk_k', []), clock: { now: () => 0 }, sleep: async () => {}, fetch });
    const state = emptyState();
    expect(await pollBookings(api, state)).toEqual({ seen: 2, applied: 2 });
    expect(state.bookings_updated_since).toBe('2026-09-15T13:00:00.000+05:30');
    expect(sent[0]!.path).not.toContain('updated_since');
    expect(await pollBookings(api, state)).toEqual({ seen: 2, applied: 1 });
    expect(sent[1]!.path).toContain(`updated_since=${encodeURIComponent('2026-09-15T13:00:00.000+05:30')}`);
    expect(state.bookings_updated_since).toBe('2026-09-16T09:00:00.000+05:30');
    expect(state.bookings['5001']!.booking.revision).toBe(2);
  });
});
