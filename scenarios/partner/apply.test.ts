/** Apply-if-newer (§6.4) and the snapshot watermark rule (§4.8). */
import { describe, expect, it } from 'vitest';
import type { Booking, EventEnvelope, JsonObject, SnapshotEnvelope } from './api-types.ts';
import { applyBooking, applyEvent, applyRecord, applySnapshot, forgetNights, nightValues } from './apply.ts';
import { emptyState } from './state.ts';

const property = { doorloom_id: 101, external_id: 'SEA-VIEW', master_property_id: 101 };

function rates(sequence: number, from: string, nights: [string, number][]): EventEnvelope {
  return {
    id: `E${sequence}`, type: 'rates.changed', version: '2026-09', sequence, occurred_at: '2026-09-15T12:00:00.000+05:30',
    integration: { id: 1, slug: 'acme-channel' }, property, window: { from, to: nights.at(-1)![0] },
    data: { currency: 'INR', dates: nights.map(([date, base]) => ({ date, base_rate: base, extra_adult_rate: 800, extra_child_rate: 400 })) },
  };
}

function snapshot(sequence: number, nights: [string, number][]): SnapshotEnvelope {
  return { sequence, property: { doorloom_id: 101, external_id: 'SEA-VIEW' }, window: { from: nights[0]![0], to: nights.at(-1)![0] }, data: rates(0, nights[0]![0], nights).data };
}

const base = (state: ReturnType<typeof emptyState>, date: string) => state.properties['101']!.nights.rates[date];

describe('apply-if-newer per property, type and night (§6.4)', () => {
  it('a newer event applies; an older or equal one is dropped, whichever order they come in', () => {
    const s = emptyState();
    expect(applyEvent(s, rates(5, '2026-10-01', [['2026-10-01', 7000], ['2026-10-02', 7000]]))).toMatchObject({ applied: 2, dropped: 0, unknownProperty: true });
    expect(applyEvent(s, rates(3, '2026-10-01', [['2026-10-01', 5000]]))).toMatchObject({ applied: 0, dropped: 1 });
    expect(applyEvent(s, rates(5, '2026-10-01', [['2026-10-01', 7000]]))).toMatchObject({ applied: 0, dropped: 1 });
    expect(applyEvent(s, rates(9, '2026-10-02', [['2026-10-02', 8000], ['2026-10-03', 8000]]))).toMatchObject({ applied: 2, dropped: 0, unknownProperty: false });
    expect(base(s, '2026-10-01')).toEqual({ value: { base_rate: 7000, extra_adult_rate: 800, extra_child_rate: 400 }, sequence: 5 });
    expect(base(s, '2026-10-02')!.sequence).toBe(9);
  });

  it('overlapping windows: only the nights where the event is newer change', () => {
    const s = emptyState();
    applyEvent(s, rates(8, '2026-10-02', [['2026-10-02', 9000]]));
    const r = applyEvent(s, rates(6, '2026-10-01', [['2026-10-01', 6500], ['2026-10-02', 6500], ['2026-10-03', 6500]]));
    expect(r).toMatchObject({ applied: 2, dropped: 1 });
    expect(base(s, '2026-10-02')!.value.base_rate).toBe(9000);
  });

  it('availability keeps, per night, which units are held', () => {
    const payload = {
      total_units: 2,
      units: [{ inventory_id: 1002, unavailable_dates: ['2026-10-01'] }, { inventory_id: 1001, unavailable_dates: ['2026-10-01', '2026-10-02'] }],
      dates: [
        { date: '2026-10-01', available_units: 0, total_units: 2, is_blocked: false, block_scope: null, units_cap: null },
        { date: '2026-10-02', available_units: 1, total_units: 2, is_blocked: false, block_scope: null, units_cap: null },
      ],
    } as unknown as JsonObject;
    const nights = nightValues('availability', payload);
    expect(nights.get('2026-10-01')).toEqual({ available_units: 0, total_units: 2, is_blocked: false, block_scope: null, units_cap: null, held: [1001, 1002] });
    expect(nights.get('2026-10-02')!.held).toEqual([1001]);
  });
});

describe('the snapshot watermark rule (§4.8)', () => {
  it('nights are current as of data.sequence: events at or below are dropped, events above apply', () => {
    const s = emptyState();
    applySnapshot(s, 'rates', snapshot(10, [['2026-10-01', 6000], ['2026-10-02', 6000]]), 10);
    expect(s.properties['101']!.watermarks.rates).toBe(10);
    expect(applyEvent(s, rates(10, '2026-10-01', [['2026-10-01', 1]]))).toMatchObject({ applied: 0, dropped: 1 });
    expect(applyEvent(s, rates(11, '2026-10-02', [['2026-10-02', 6600]]))).toMatchObject({ applied: 1 });
    expect(base(s, '2026-10-02')!.value.base_rate).toBe(6600);
  });

  it('a snapshot replaces nights stamped at or below its watermark, and keeps newer ones', () => {
    const s = emptyState();
    applyEvent(s, rates(4, '2026-10-01', [['2026-10-01', 4000]]));
    applyEvent(s, rates(12, '2026-10-02', [['2026-10-02', 12000]]));
    const r = applySnapshot(s, 'rates', snapshot(10, [['2026-10-01', 6000], ['2026-10-02', 6000]]), 10);
    expect(r).toMatchObject({ applied: 1, dropped: 1 });
    expect(base(s, '2026-10-01')).toMatchObject({ sequence: 10, value: { base_rate: 6000 } });
    expect(base(s, '2026-10-02')).toMatchObject({ sequence: 12, value: { base_rate: 12000 } });
  });

  it('stamping a snapshot above its watermark (the ignoreWatermark breakage) loses the events in between', () => {
    const s = emptyState();
    applySnapshot(s, 'rates', snapshot(10, [['2026-10-01', 6000]]), 11);
    expect(applyEvent(s, rates(11, '2026-10-01', [['2026-10-01', 6600]]))).toMatchObject({ applied: 0 });
    expect(base(s, '2026-10-01')!.value.base_rate).toBe(6000);
  });

  it('forgetting a property\'s nights lets any snapshot rebuild it', () => {
    const s = emptyState();
    applyEvent(s, rates(50, '2026-10-01', [['2026-10-01', 1]]));
    forgetNights(s, 101);
    applySnapshot(s, 'rates', snapshot(20, [['2026-10-01', 6000]]), 20);
    expect(base(s, '2026-10-01')).toMatchObject({ sequence: 20, value: { base_rate: 6000 } });
  });

  it('property list records: stamped with the sequence read before the list', () => {
    const s = emptyState();
    expect(applyRecord(s, 101, 'SEA-VIEW', 'inventory', { total_units: 4 }, 7)).toBe(true);
    expect(applyRecord(s, 101, 'SEA-VIEW', 'inventory', { total_units: 3 }, 6)).toBe(false);
    expect(s.properties['101']!.inventory).toEqual({ value: { total_units: 4 }, sequence: 7 });
  });
});

describe('bookings by revision', () => {
  const booking = (revision: number, status: string) => ({ id: 5001, external_booking_id: 'G-1', revision, status, updated_at: '2026-09-15T12:00:00.000+05:30' }) as unknown as Booking;

  it('a higher revision applies, a lower or equal one does not; duplicate: true is not stored', () => {
    const s = emptyState();
    expect(applyBooking(s, { ...booking(1, 'confirmed'), duplicate: true } as Booking, null)).toBe(true);
    expect(s.bookings['5001']!.booking).not.toHaveProperty('duplicate');
    expect(applyBooking(s, booking(2, 'cancelled'), 9)).toBe(true);
    expect(applyBooking(s, booking(1, 'confirmed'), 4)).toBe(false);
    expect(applyBooking(s, booking(2, 'cancelled'), null)).toBe(false);
    expect(s.bookings['5001']).toEqual({ booking: booking(2, 'cancelled'), sequence: 9 });
  });
});
