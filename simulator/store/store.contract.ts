/**
 * The Store contract, run against every implementation (Hono's
 * `common.case.test.ts` style): `memory-store.test.ts` and
 * `file-store.test.ts` each call `runStoreContract`. A durable store also
 * passes the persistence cases: what was flushed survives a reopen and a
 * kill, a write torn by a crash is dropped back to the last complete
 * transaction, and a second opener of the same data is refused.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Store, StoreReader, Tables } from './store.ts';

/** How a durable store is opened on a place that keeps its data, and how that place can be damaged. */
export interface DurableStoreFactory {
  /** A new place for data (a directory), empty. */
  place(): string;
  open(place: string): Promise<Store>;
  /** A copy of `place` as a SIGKILL at this instant would leave it (the copy is opened, the original left alone). */
  killCopy(place: string): string;
  /** Cuts the last `bytes` bytes off what was last written at `place` (a write cut short). */
  tearLastWrite(place: string, bytes: number): void;
  /** Bytes written at `place` so far (all its files). */
  written(place: string): number;
  /** The error a second opener gets while the first holds `place`. */
  lockedError: new (...args: never[]) => Error;
}

type Booking = Tables['bookings'];

/** A small but complete booking record (the contract stores real record shapes). */
export function sampleBooking(id: number, overrides: Partial<Booking> = {}): Booking {
  return {
    id, integration_id: 1, external_booking_id: `EXT-${id}`, revision: 1, origin: 'partner', status: 'confirmed', property_id: 101,
    check_in: '2026-10-01', check_out: '2026-10-03',
    units: [{ inventory_id: 1001, external_unit_id: 'SEA-VIEW-1', adults: 2, children: 0, meal_plan: null, stay_price: 12000 }],
    pricing: { currency: 'INR', total: 12000, advance: 2000, balance: 10000, includes_gst: null, breakdown: { room: 12000 } },
    guest: { name: 'Āsha Rao "the guest" \\ 🏝', phone_code: '+91', mobile: '9800000000', email: null, country: 'IN' },
    payment: { status: 'partial', amount_collected: 2000, collected_by: 'partner', reference: 'tab\there' },
    source: { channel: null, reference: null }, notes: 'line one\nline two', created_at: 1_789_000_000_000, updated_at: 1_789_000_000_000,
    ...overrides,
  };
}

function contents(store: StoreReader, table: keyof Tables): unknown[] {
  return Array.from(store.values(table));
}

export function runStoreContract(name: string, makeStore: () => Promise<Store>, durable?: DurableStoreFactory): void {
  describe(`Store contract: ${name}`, () => {
    const open: Store[] = [];
    const track = <S extends Store>(s: S): S => {
      open.push(s);
      return s;
    };
    const fresh = async () => track(await makeStore());
    afterEach(async () => {
      for (const s of open.splice(0).reverse()) await s.close().catch(() => undefined);
    });

    it('a transaction sees its own writes (get, values, size) before they commit; others see them only after', async () => {
      const store = await fresh();
      store.transaction((tx) => tx.put('counters', 'booking', { value: 1 }));
      store.transaction((tx) => {
        tx.put('bookings', '1', sampleBooking(1));
        tx.put('counters', 'booking', { value: 2 });
        tx.delete('counters', 'missing');
        expect(tx.get('bookings', '1')).toEqual(sampleBooking(1));
        expect(tx.get('counters', 'booking')).toEqual({ value: 2 });
        expect(contents(tx, 'bookings')).toEqual([sampleBooking(1)]);
        expect(tx.size('bookings')).toBe(1);
        // Outside the transaction nothing has happened yet.
        expect(store.get('bookings', '1')).toBeUndefined();
        expect(store.get('counters', 'booking')).toEqual({ value: 1 });
        expect(store.size('bookings')).toBe(0);
      });
      expect(store.get('bookings', '1')).toEqual(sampleBooking(1));
      expect(store.get('counters', 'booking')).toEqual({ value: 2 });
      await store.flush();
    });

    it('a transaction that throws writes nothing and runs no onCommit', async () => {
      const store = await fresh();
      store.transaction((tx) => tx.put('bookings', '1', sampleBooking(1)));
      const ran: string[] = [];
      expect(() => store.transaction((tx) => {
        tx.put('bookings', '2', sampleBooking(2));
        tx.put('bookings', '1', sampleBooking(1, { revision: 9 }));
        tx.delete('counters', 'booking');
        tx.onCommit(() => ran.push('commit'));
        throw new Error('refused');
      })).toThrow('refused');
      expect(ran).toEqual([]);
      expect(store.get('bookings', '2')).toBeUndefined();
      expect(store.get('bookings', '1')?.revision).toBe(1);
      expect(store.size('bookings')).toBe(1);
      await store.flush();
    });

    it('onCommit runs after the commit, in order, and sees the committed state', async () => {
      const store = await fresh();
      const seen: unknown[] = [];
      const result = store.transaction((tx) => {
        tx.onCommit(() => seen.push(['first', store.get('bookings', '7')?.id]));
        tx.put('bookings', '7', sampleBooking(7));
        tx.onCommit(() => seen.push(['second', store.size('bookings')]));
        expect(seen).toEqual([]);
        return 'answer';
      });
      expect(result).toBe('answer');
      expect(seen).toEqual([['first', 7], ['second', 1]]);
      await store.flush();
    });

    it('deletes remove a record; re-putting it appends it; deleting a missing key is harmless', async () => {
      const store = await fresh();
      store.transaction((tx) => {
        for (const id of ['a', 'b', 'c']) tx.put('supersedable', id, { sequences: [id.charCodeAt(0)] });
      });
      store.transaction((tx) => {
        tx.delete('supersedable', 'a');
        tx.delete('supersedable', 'nope');
        expect(tx.get('supersedable', 'a')).toBeUndefined();
        expect(contents(tx, 'supersedable')).toEqual([{ sequences: [98] }, { sequences: [99] }]);
      });
      expect(store.get('supersedable', 'a')).toBeUndefined();
      expect(store.size('supersedable')).toBe(2);
      store.transaction((tx) => tx.put('supersedable', 'a', { sequences: [1] }));
      store.transaction((tx) => tx.put('supersedable', 'b', { sequences: [2] }));
      // Insertion order: an overwrite keeps its place, a re-put after a delete goes last.
      expect(contents(store, 'supersedable')).toEqual([{ sequences: [2] }, { sequences: [99] }, { sequences: [1] }]);
      await store.flush();
    });

    it('values and size cover every record of a table and no other table', async () => {
      const store = await fresh();
      store.transaction((tx) => {
        for (let i = 1; i <= 50; i++) tx.put('bookings', String(i), sampleBooking(i));
        tx.put('counters', 'booking', { value: 50 });
      });
      expect(store.size('bookings')).toBe(50);
      expect(store.size('events')).toBe(0);
      expect(contents(store, 'bookings').map((b) => (b as Booking).id)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      expect(contents(store, 'events')).toEqual([]);
      await store.flush();
    });

    it('flush resolves for concurrent callers, with or without writes pending', async () => {
      const store = await fresh();
      await store.flush();
      const flushes: Promise<void>[] = [];
      for (let i = 0; i < 20; i++) {
        store.transaction((tx) => tx.put('bookings', String(i), sampleBooking(i)));
        flushes.push(store.flush());
      }
      await Promise.all(flushes);
      expect(store.size('bookings')).toBe(20);
    });

    if (!durable) return;

    describe('durability', () => {
      const reopen = async (place: string) => track(await durable.open(place));
      const close = async (store: Store) => {
        open.splice(open.indexOf(store), 1);
        await store.close();
      };

      it('every table comes back after close and reopen: puts, overwrites and deletes, values byte for byte', async () => {
        const place = durable.place();
        const store = await reopen(place);
        const idem = { integration_id: 1, key: 'k-1', fingerprint: 'f', state: 'done' as const, status: 201, body: '{"success":true,"data":{"id":1}}', created_at: 1, expires_at: 86_400_001 };
        store.transaction((tx) => {
          for (let i = 1; i <= 30; i++) tx.put('bookings', String(i), sampleBooking(i));
          tx.put('idempotency', '1:k-1', idem);
          tx.put('counters', 'booking', { value: 30 });
          tx.put('settings', 'platform', { api_enabled: false, staff_token_hash: 'h', create_latency_ms: 0, clock: { offsetMs: -3_600_000, frozenAt: null } });
        });
        store.transaction((tx) => {
          tx.put('bookings', '2', sampleBooking(2, { revision: 2, status: 'cancelled' }));
          tx.delete('bookings', '3');
        });
        await close(store);
        const again = await reopen(place);
        expect(again.size('bookings')).toBe(29);
        expect(again.get('bookings', '3')).toBeUndefined();
        expect(again.get('bookings', '2')).toEqual(sampleBooking(2, { revision: 2, status: 'cancelled' }));
        expect(again.get('bookings', '30')).toEqual(sampleBooking(30));
        expect(again.get('idempotency', '1:k-1')!.body).toBe(idem.body);
        expect(again.get('settings', 'platform')!.clock).toEqual({ offsetMs: -3_600_000, frozenAt: null });
        expect(again.get('counters', 'booking')).toEqual({ value: 30 });
      });

      it('volatile tables (rate-limit windows) are never written: a reopen starts them empty, a transaction of only those writes nothing', async () => {
        const place = durable.place();
        const store = await reopen(place);
        store.transaction((tx) => tx.put('counters', 'booking', { value: 1 }));
        store.transaction((tx) => {
          tx.put('rateWindows', '1', { started_at: 5, count: 7 });
          tx.put('counters', 'booking', { value: 2 });
        });
        await store.flush();
        const written = durable.written(place);
        for (let i = 0; i < 50; i++) store.transaction((tx) => tx.put('rateWindows', '1', { started_at: 5, count: 8 + i }));
        await store.flush();
        expect(store.get('rateWindows', '1')).toEqual({ started_at: 5, count: 57 });
        expect(durable.written(place)).toBe(written);
        await close(store);
        const again = await reopen(place);
        expect(again.get('rateWindows', '1')).toBeUndefined();
        expect(again.get('counters', 'booking')).toEqual({ value: 2 });
      });

      it('what a flush acknowledged survives a kill; a transaction is whole or absent after it', async () => {
        const place = durable.place();
        const store = await reopen(place);
        store.transaction((tx) => {
          tx.put('bookings', '1', sampleBooking(1));
          tx.put('bookingKeys', '1:EXT-1', { booking_id: 1 });
        });
        await store.flush();
        const killed = await reopen(durable.killCopy(place));
        expect(killed.get('bookings', '1')).toEqual(sampleBooking(1));
        expect(killed.get('bookingKeys', '1:EXT-1')).toEqual({ booking_id: 1 });
        // Not flushed yet: a kill may keep it or drop it, but only whole.
        store.transaction((tx) => {
          tx.put('bookings', '2', sampleBooking(2));
          tx.put('bookingKeys', '1:EXT-2', { booking_id: 2 });
        });
        const maybe = await reopen(durable.killCopy(place));
        expect(maybe.get('bookings', '2') === undefined).toBe(maybe.get('bookingKeys', '1:EXT-2') === undefined);
        expect(maybe.get('bookings', '1')).toEqual(sampleBooking(1));
      });

      it('a write torn by a crash is dropped: the store recovers to the last complete transaction and carries on', async () => {
        const place = durable.place();
        const store = await reopen(place);
        store.transaction((tx) => tx.put('bookings', '1', sampleBooking(1)));
        await store.flush();
        store.transaction((tx) => {
          tx.put('bookings', '2', sampleBooking(2));
          tx.put('counters', 'booking', { value: 2 });
        });
        await store.flush();
        // A crash, not a clean close: after a clean close a shorter history is damage, not a torn write.
        const crashed = durable.killCopy(place);
        await close(store);
        durable.tearLastWrite(crashed, 7);
        const recovered = await reopen(crashed);
        expect(recovered.get('bookings', '1')).toEqual(sampleBooking(1));
        expect(recovered.get('bookings', '2')).toBeUndefined();
        expect(recovered.get('counters', 'booking')).toBeUndefined();
        // Writes after the recovery are not glued to the torn remains.
        recovered.transaction((tx) => tx.put('bookings', '3', sampleBooking(3)));
        await close(recovered);
        const later = await reopen(crashed);
        expect(contents(later, 'bookings')).toEqual([sampleBooking(1), sampleBooking(3)]);
      });

      it('a second opener of the same data is refused while the first holds it, and admitted after it closes', async () => {
        const place = durable.place();
        const first = await reopen(place);
        first.transaction((tx) => tx.put('bookings', '1', sampleBooking(1)));
        await expect(durable.open(place)).rejects.toBeInstanceOf(durable.lockedError);
        await expect(durable.open(place)).rejects.toThrow(/in use by/);
        // The refused opener changed nothing.
        expect(first.get('bookings', '1')).toEqual(sampleBooking(1));
        await close(first);
        const second = await reopen(place);
        expect(second.get('bookings', '1')).toEqual(sampleBooking(1));
      });
    });
  });
}
