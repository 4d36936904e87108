/**
 * Creating bookings safely (§4.5) and polling them (§4.4, §6.9).
 *
 * A reservation is written to the partner's state, with a fresh
 * Idempotency-Key and the exact body text, BEFORE it is sent. Whatever
 * happens next (a lost answer, a 5xx, 409 IN_PROGRESS, a crash and restart),
 * the retry sends the same key and the byte-identical body, so the platform
 * replays the original answer instead of booking twice (§4.5 rule 1).
 * `duplicate: true` (rule 4) is success: the booking exists. 409 UNAVAILABLE
 * (rule 7) is the only "no" the guest hears.
 */
import { randomUUID } from 'node:crypto';
import { NetworkError, type PartnerApi } from './api-client.ts';
import type { Booking, JsonObject } from './api-types.ts';
import { applyBooking } from './apply.ts';
import type { Breakages } from './config.ts';
import type { PartnerObserver } from './observer.ts';
import type { PartnerState, Reservation } from './state.ts';

/** Attempts per reservation before it is left `sending` for a later re-drive. */
export const MAX_CREATE_ATTEMPTS = 6;
/** Back-off before the n-th retry: 1 s, 2 s, 4 s, ... */
export const backoffMs = (attempt: number): number => 1000 * 2 ** Math.max(0, attempt - 1);

/** The POST /bookings body (§4.5); the partner sends it exactly as given. */
export interface BookingRequest extends JsonObject {
  external_booking_id: string;
}

export function newIdempotencyKey(): string {
  return `bk_${randomUUID()}`;
}

export interface BookingDeskDeps {
  api: PartnerApi;
  state: () => PartnerState;
  save: () => Promise<void>;
  sleep: (ms: number) => Promise<void>;
  breakages: Pick<Breakages, 'newKeyPerRetry' | 'reuseKeyForNewBooking'>;
  observer?: PartnerObserver;
}

export class BookingDesk {
  constructor(private readonly d: BookingDeskDeps) {}

  /** Books on the platform; resolves with the reservation as it ended (placed, declined, failed or still sending). */
  async book(request: BookingRequest): Promise<Reservation> {
    const state = this.d.state();
    const existing = state.reservations[request.external_booking_id];
    if (existing) return existing.status === 'sending' ? this.drive(existing) : existing;
    const reservation: Reservation = {
      external_booking_id: request.external_booking_id,
      idempotency_key: this.d.breakages.reuseKeyForNewBooking ? stayKey(request) : newIdempotencyKey(),
      body: JSON.stringify(request),
      status: 'sending',
      attempts: 0,
      booking_id: null,
      answer: null,
    };
    state.reservations[reservation.external_booking_id] = reservation;
    // Durable before it leaves: a crash after sending is re-driven with the same key and body.
    await this.d.save();
    return this.drive(reservation);
  }

  /** Re-drives every reservation whose answer was never read (after a restart). */
  async resume(): Promise<Reservation[]> {
    const pending = Object.values(this.d.state().reservations).filter((r) => r.status === 'sending');
    const out: Reservation[] = [];
    for (const r of pending) {
      this.d.observer?.note?.(`re-driving reservation ${r.external_booking_id} with its Idempotency-Key and identical body`);
      out.push(await this.drive(r));
    }
    return out;
  }

  private async drive(r: Reservation): Promise<Reservation> {
    for (let attempt = 1; attempt <= MAX_CREATE_ATTEMPTS; attempt++) {
      if (attempt > 1) await this.d.sleep(backoffMs(attempt - 1));
      // BROKEN on purpose when newKeyPerRetry: §4.5 rule 1 wants the same key for the same request.
      const key = this.d.breakages.newKeyPerRetry && r.attempts > 0 ? newIdempotencyKey() : r.idempotency_key;
      r.attempts += 1;
      let res;
      try {
        res = await this.d.api.createBooking(key, r.body);
      } catch (e) {
        if (e instanceof NetworkError) continue; // the answer was lost: same key, same body again
        throw e;
      }
      const body = res.body as { code?: string; data?: Booking; errors?: { availability?: JsonObject } } | null;
      const code = body?.code ?? null;
      r.answer = { status: res.status, code };
      if ((res.status === 201 || res.status === 200) && body?.data) {
        // §4.5 rule 4: `duplicate: true` means it already exists: success.
        r.status = 'placed';
        r.booking_id = body.data.id;
        applyBooking(this.d.state(), body.data, null);
        await this.d.save();
        return r;
      }
      if (res.status === 409 && code === 'UNAVAILABLE') {
        r.status = 'declined';
        r.answer.availability = body?.errors?.availability;
        await this.d.save();
        return r;
      }
      if ((res.status === 409 && code === 'IN_PROGRESS') || res.status === 429 || res.status >= 500) continue;
      r.status = 'failed';
      await this.d.save();
      return r;
    }
    await this.d.save();
    return r;
  }
}

/** BROKEN on purpose (reuseKeyForNewBooking): one key per stay, not per reservation. */
function stayKey(request: BookingRequest): string {
  const p = request.property as { doorloom_id?: number; external_id?: string } | undefined;
  return `stay-${p?.doorloom_id ?? p?.external_id}-${request.check_in}-${request.check_out}`;
}

/**
 * §6.9: bookings changed since the highest `updated_at` processed (inclusive,
 * so the last one comes again and is dropped by revision), every page; the
 * new highest `updated_at` is stored. Without a stored value, every booking.
 */
export async function pollBookings(api: PartnerApi, state: PartnerState): Promise<{ seen: number; applied: number }> {
  const since = state.bookings_updated_since;
  const list = await api.bookings(since);
  let highest = since;
  let applied = 0;
  for (const b of list) {
    if (applyBooking(state, b, null)) applied += 1;
    if (highest === null || Date.parse(b.updated_at) > Date.parse(highest)) highest = b.updated_at;
  }
  state.bookings_updated_since = highest;
  return { seen: list.length, applied };
}

