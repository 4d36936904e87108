/**
 * Bookings: create (§4.5), read (§4.2–§4.4) and the staff transitions the
 * document leaves open (spec x-assumptions.booking-transitions).
 */
import { addDays, dateAt, daysBetween, isIsoDate, nights, parseInstant, timestamp, type IsoDate } from '../../protocol/calendar.ts';
import type { Change, ChangeRecorder } from './changes.ts';
import { DomainError, invalid, notFound } from './errors.ts';
import { nextId } from './ids.ts';
import { availabilityOn, holdKey, unitsOf, type AvailabilityDate } from './inventory.ts';
import type { Booking, BookingStatus, BookingUnit, Integration, Property, Unit } from './model.ts';
import { advanceAndBalance, unitPrices } from './pricing.ts';
import type { StoreReader, Transaction } from '../store/store.ts';
import type { Faults } from './faults.ts';

/** Platform maximum stay in nights (not shown; spec BookingCreateRequest x-assumption and x-max-stay-nights). */
export const MAX_STAY_NIGHTS = 30;

/** The body of POST /bookings after schema validation (spec BookingCreateRequest). */
export interface CreateBookingInput {
  external_booking_id: string;
  property: { doorloom_id?: number; external_id?: string };
  units: { inventory_id?: number; external_unit_id?: string; adults: number; children?: number; meal_plan?: BookingUnit['meal_plan']; stay_price?: number }[];
  check_in: string;
  check_out: string;
  guest: { name: string; phone_code?: string; mobile: string; email?: string; country?: string };
  pricing: { total: number; currency?: 'INR'; includes_gst?: boolean; breakdown?: Record<string, unknown> };
  payment?: { status?: Booking['payment']['status']; amount_collected?: number; collected_by?: Booking['payment']['collected_by']; reference?: string };
  source?: { channel?: string; reference?: string };
  status?: 'confirmed' | 'pending';
  notes?: string;
}

export interface BookingContext {
  changes: ChangeRecorder;
  now: number;
  faults?: Faults;
}

/** The booking object of §2.3 as every booking endpoint returns it. */
export function bookingView(r: StoreReader, booking: Booking): Record<string, unknown> {
  const property = r.get('properties', String(booking.property_id));
  const guests = booking.units.reduce((g, u) => ({ adults: g.adults + u.adults, children: g.children + u.children }), { adults: 0, children: 0 });
  return {
    id: booking.id,
    external_booking_id: booking.external_booking_id,
    revision: booking.revision,
    origin: booking.origin,
    status: booking.status,
    property: { doorloom_id: booking.property_id, external_id: property?.external_id ?? '' },
    check_in: booking.check_in,
    check_out: booking.check_out,
    guests,
    units: booking.units,
    pricing: booking.pricing,
    guest: booking.guest,
    payment: booking.payment,
    source: booking.source,
    notes: booking.notes,
    created_at: timestamp(booking.created_at),
    updated_at: timestamp(booking.updated_at),
  };
}

export type CreateOutcome = { kind: 'created'; booking: Booking } | { kind: 'duplicate'; booking: Booking };

/**
 * §4.5: answers an existing external_booking_id as a duplicate (rule 4),
 * validates the dates, resolves property and units, holds every unit for every
 * night or refuses with UNAVAILABLE and writes nothing (rules 6, 7).
 */
export function createBooking(tx: Transaction, ctx: BookingContext, integration: Integration, input: CreateBookingInput): CreateOutcome {
  // Rule 4 first: a retry under a new key after check_in has passed is still "treat as success".
  // A release whose external ids are unique platform-wide (a fault): §2.3 says unique within the integration.
  const existingId = tx.get('bookingKeys', bookingKey(integration.id, input.external_booking_id))?.booking_id
    ?? (ctx.faults?.has('external-id-global') ? Array.from(tx.values('bookings')).find((b) => b.external_booking_id === input.external_booking_id)?.id : undefined);
  if (existingId !== undefined && !ctx.faults?.has('duplicate-creates-booking')) return { kind: 'duplicate', booking: tx.get('bookings', String(existingId))! };
  checkStayDates(input.check_in, input.check_out, ctx.now, ctx.faults?.has('check-in-yesterday-refused') ? 0 : -1, ctx.faults);

  const property = resolveProperty(tx, integration, input.property, ctx.faults);
  const units = unitsOf(tx, property.id);
  // A release that looks unit aliases up across every covered property books another property's unit.
  const aliases = ctx.faults?.has('unit-alias-any-property') ? integration.coverage.flatMap((id) => unitsOf(tx, id)) : units;
  const pinned = resolvePinnedUnits(units, input.units, aliases);
  const lastNight = addDays(input.check_out, -1);
  const stay = nights(input.check_in, lastNight);
  // A release that treats a taken pin as a preference: the unit is swapped for a free one.
  const allocation = allocate(tx, property.id, units, pinned, stay)
    ?? (ctx.faults?.has('pinned-unit-swapped') ? allocate(tx, property.id, units, pinned.map(() => null), stay) : null);
  if (!allocation) throw unavailable(tx, property, units, input.check_in, ctx.faults?.has('conflict-window-includes-checkout') ? input.check_out : lastNight);

  const prices = unitPrices(input.pricing.total, input.units.map((u) => (ctx.faults?.has('stay-price-ignored') ? undefined : u.stay_price)), ctx.faults);
  const total = ctx.faults?.has('total-rounded') ? Math.round(input.pricing.total) : input.pricing.total;
  const money = advanceAndBalance(total, input.payment?.amount_collected);
  if (ctx.faults?.has('balance-ignores-advance')) money.balance = total;
  const breakdown = input.pricing.breakdown && ctx.faults?.has('breakdown-keys-sorted') ? sortedKeys(input.pricing.breakdown) : input.pricing.breakdown;
  const id = nextId(tx, 'booking');
  const booking: Booking = {
    id,
    integration_id: integration.id,
    external_booking_id: input.external_booking_id,
    revision: 1,
    origin: ctx.faults?.has('origin-not-partner') ? 'platform' : 'partner',
    status: input.status ?? (ctx.faults?.has('status-default-pending') ? 'pending' : 'confirmed'),
    property_id: property.id,
    check_in: input.check_in,
    check_out: input.check_out,
    units: input.units.map((u, i) => ({
      inventory_id: allocation[i]!.id,
      external_unit_id: allocation[i]!.external_unit_id,
      adults: u.adults,
      children: u.children ?? (ctx.faults?.has('children-default-1') ? 1 : 0),
      meal_plan: u.meal_plan ?? null,
      stay_price: prices[i]!,
    })),
    pricing: {
      // A release that stores the currency as sent, so an omitted one is null.
      currency: (ctx.faults?.has('currency-default-null') ? input.pricing.currency ?? null : 'INR') as 'INR',
      total,
      ...money,
      includes_gst: input.pricing.includes_gst ?? null,
      breakdown: (breakdown as Record<string, unknown> | undefined) ?? null,
    },
    guest: {
      name: input.guest.name,
      // A release that applies the default over a value sent (a fault).
      phone_code: ctx.faults?.has('phone-code-always-default') ? '+91' : input.guest.phone_code ?? (ctx.faults?.has('phone-code-default-empty') ? '' : '+91'),
      mobile: input.guest.mobile,
      email: input.guest.email ?? null,
      country: input.guest.country ?? null,
    },
    payment: {
      status: input.payment?.status ?? null,
      amount_collected: input.payment?.amount_collected ?? 0,
      collected_by: input.payment?.collected_by ?? null,
      reference: input.payment?.reference ?? null,
    },
    source: { channel: input.source?.channel ?? null, reference: input.source?.reference ?? null },
    notes: input.notes ?? null,
    created_at: ctx.now,
    updated_at: ctx.now,
  };
  tx.put('bookings', String(id), booking);
  tx.put('bookingKeys', bookingKey(integration.id, booking.external_booking_id), { booking_id: id });
  // §3.2: pending and confirmed both hold (a release that treats pending as a quote holds nothing and changes no availability).
  const holds = !(booking.status === 'pending' && ctx.faults?.has('pending-holds-nothing'));
  if (holds) hold(tx, booking);
  // §4.5 rule 9, §3.2: availability.changed for the stay and booking.changed with origin partner.
  if (holds && !ctx.faults?.has('create-emits-no-availability')) ctx.changes.record(tx, { kind: 'availability', property_id: property.id, from: input.check_in, to: lastNight });
  ctx.changes.record(tx, { kind: 'booking', booking_id: id, origin: booking.origin });
  return { kind: 'created', booking };
}

/** check_in not before yesterday; check_out after check_in; stay at most the platform maximum, refused on check_out. */
function checkStayDates(checkIn: IsoDate, checkOut: IsoDate, now: number, earliest: number, faults?: Faults): void {
  const yesterday = addDays(dateAt(now), earliest);
  if (checkIn < yesterday) throw invalid('check_in', `Must be on or after ${yesterday} (yesterday).`);
  if (checkOut <= checkIn) throw invalid('check_out', 'Must be after check_in.');
  // A release that counts the stay inclusively of check_out lets one night too many through.
  if (daysBetween(checkIn, checkOut) > MAX_STAY_NIGHTS + (faults?.has('max-stay-off-by-one') ? 1 : 0)) throw invalid('check_out', `The stay may be at most ${MAX_STAY_NIGHTS} nights.`);
}

// Stryker disable all: runs only under the breakdown-keys-sorted fault (conformance --mutants proves it caught)
/** What a JSON column that normalises objects does to a free-form value: keys sorted at every depth (a fault). */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortedKeys((value as Record<string, unknown>)[k])]));
}
// Stryker restore all

function bookingKey(integrationId: number, externalBookingId: string): string {
  return `${integrationId}:${externalBookingId}`;
}

/** A covered property by platform id or alias; §4.5 PROPERTY_NOT_MAPPED, PROPERTY_ARCHIVED. */
export function resolveProperty(r: StoreReader, integration: Integration, ref: { doorloom_id?: number; external_id?: string }, faults?: Faults): Property {
  const covered = integration.coverage.map((id) => r.get('properties', String(id))).filter((p): p is Property => p !== undefined);
  const byId = ref.doorloom_id === undefined ? undefined : covered.find((p) => p.id === ref.doorloom_id);
  // A release that resolves an alias among every property, not the integration's own (a fault): §1, §7 PROPERTY_NOT_MAPPED.
  const byAlias = ref.external_id === undefined ? undefined : covered.find((p) => p.external_id === ref.external_id)
    ?? (faults?.has('create-alias-any-integration') ? Array.from(r.values('properties')).find((p) => p.external_id === ref.external_id) : undefined);
  const notMapped = (field: string) => new DomainError('PROPERTY_NOT_MAPPED', { [field]: ['Unknown or uncovered property.'] });
  if (ref.doorloom_id !== undefined && !byId) throw notMapped('property.doorloom_id');
  if (ref.external_id !== undefined && !byAlias) throw notMapped('property.external_id');
  // Both given must name the same property (spec x-assumption on BookingCreateRequest); a release may book the id's (a fault).
  if (byId && byAlias && byId.id !== byAlias.id && !faults?.has('refs-disagree-accepted')) throw notMapped('property.external_id');
  const property = (byId ?? byAlias)!;
  if (property.archived) throw new DomainError('PROPERTY_ARCHIVED', { property: ['The property is archived.'] });
  return property;
}

/** Per requested unit: the pinned unit, or null for "any free unit" (§4.5 rule 6). */
function resolvePinnedUnits(units: Unit[], requested: CreateBookingInput['units'], aliases: Unit[] = units): (Unit | null)[] {
  const seen = new Map<number, number>();
  return requested.map((u, i) => {
    if (u.inventory_id === undefined && u.external_unit_id === undefined) return null;
    const byId = u.inventory_id === undefined ? undefined : units.find((x) => x.id === u.inventory_id);
    const byAlias = u.external_unit_id === undefined ? undefined : aliases.find((x) => x.external_unit_id === u.external_unit_id);
    const field = u.inventory_id !== undefined && !byId ? 'inventory_id' : 'external_unit_id';
    if ((u.inventory_id !== undefined && !byId) || (u.external_unit_id !== undefined && !byAlias) || (byId && byAlias && byId.id !== byAlias.id)) {
      throw new DomainError('UNIT_NOT_MAPPED', { [`units.${i}.${field}`]: ['Unknown unit for this property.'] });
    }
    const unit = (byId ?? byAlias)!;
    if (!unit.active) throw new DomainError('UNIT_INACTIVE', { [`units.${i}.${u.inventory_id !== undefined ? 'inventory_id' : 'external_unit_id'}`]: ['The unit is inactive.'] });
    const earlier = seen.get(unit.id);
    if (earlier !== undefined) throw invalid(`units.${i}`, `Pins the same unit as units.${earlier}.`);
    seen.set(unit.id, i);
    return unit;
  });
}

/**
 * Picks one unit per requested entry, free for every night of the stay and
 * within each night's sellable count; pinned units are never swapped. Null
 * when the stay cannot be held.
 */
function allocate(r: StoreReader, propertyId: number, units: Unit[], pinned: (Unit | null)[], stay: IsoDate[]): Unit[] | null {
  const freeAllStay = (u: Unit) => u.active && stay.every((d) => !r.get('holds', holdKey(u.id, d)));
  if (pinned.some((u) => u && !freeAllStay(u))) return null;
  const taken = new Set(pinned.filter((u): u is Unit => u !== null).map((u) => u.id));
  const pool = units.filter((u) => !taken.has(u.id) && freeAllStay(u));
  const chosen: Unit[] = [];
  for (const u of pinned) {
    if (u) chosen.push(u);
    else {
      const next = pool.shift();
      if (!next) return null;
      chosen.push(next);
    }
  }
  const sellableEveryNight = stay.every((d) => availabilityOn(r, propertyId, units, d).available_units >= chosen.length);
  return sellableEveryNight ? chosen : null;
}

/** §4.5 rule 7: the 409 body; window.to is the last night, dates[] as in availability.changed. */
function unavailable(r: StoreReader, property: Property, units: Unit[], from: IsoDate, to: IsoDate): DomainError {
  const dates: AvailabilityDate[] = nights(from, to).map((d) => availabilityOn(r, property.id, units, d));
  return new DomainError('UNAVAILABLE', {
    availability: {
      property: { doorloom_id: property.id },
      window: { from, to },
      total_units: units.filter((u) => u.active).length,
      dates,
    },
  });
}

// Stryker disable all: the document shows no booking transition after create (§3.2: 'All other booking transitions: not shown'; spec x-assumptions.booking-transitions), so which staff transitions exist and what they do to inventory is the staff plane's side of the world, and no check may hold a platform to it; §6.1's booking.changed for every change stays mutated (emitBookingChange)
/** Statuses that hold inventory (§3.2: pending and confirmed both hold). */
const HOLDING: ReadonlySet<BookingStatus> = new Set(['pending', 'confirmed', 'completed']);
// Stryker restore all

function hold(tx: Transaction, booking: Booking): void {
  for (const d of nights(booking.check_in, addDays(booking.check_out, -1))) {
    for (const u of booking.units) tx.put('holds', holdKey(u.inventory_id, d), { booking_id: booking.id });
  }
}

// Stryker disable all: releasing a booking's nights runs only on a staff transition (see HOLDING)
function release(tx: Transaction, booking: Booking): void {
  for (const d of nights(booking.check_in, addDays(booking.check_out, -1))) {
    for (const u of booking.units) {
      if (tx.get('holds', holdKey(u.inventory_id, d))?.booking_id === booking.id) tx.delete('holds', holdKey(u.inventory_id, d));
    }
  }
}
// Stryker restore all

/** §4.2, §4.3 and the §1 visibility rule: another integration's booking is NOT_FOUND. */
export function visibleBooking(r: StoreReader, integration: Integration, id: number): Booking {
  const booking = r.get('bookings', String(id));
  if (!booking || booking.integration_id !== integration.id) throw notFound();
  return booking;
}

export function bookingByExternalId(r: StoreReader, integration: Integration, externalId: string): Booking {
  const id = r.get('bookingKeys', bookingKey(integration.id, externalId))?.booking_id;
  if (id === undefined) throw notFound();
  return visibleBooking(r, integration, id);
}

export interface ListQuery {
  updated_since?: string;
  status?: BookingStatus;
  property_id?: number;
  check_in_from?: string;
  check_in_to?: string;
  page: number;
  per_page: number;
}

/**
 * §4.4: filtered, ordered by updated_at oldest first with booking id as the
 * tie-break (spec x-assumption-ordering), paged with top-level pagination.
 */
export function listBookings(r: StoreReader, integration: Integration, q: ListQuery, faults?: Faults): { items: Booking[]; pagination: { page: number; per_page: number; total: number; last_page: number } } {
  let since: number | null = null;
  if (q.updated_since !== undefined) {
    since = parseInstant(q.updated_since);
    if (since === null) throw invalid('updated_since', 'Must be a parseable date or timestamp.');
  }
  for (const field of ['check_in_from', 'check_in_to'] as const) {
    const v = q[field];
    if (v !== undefined && !isIsoDate(v)) throw invalid(field, 'Must be a valid date (YYYY-MM-DD).');
  }
  if (q.property_id !== undefined && !integration.coverage.includes(q.property_id)) throw notFound();
  const matches = Array.from(r.values('bookings')).filter((b) =>
    b.integration_id === integration.id &&
    (since === null || b.updated_at >= since || faults?.has('updated-since-ignored') === true) &&
    (q.status === undefined || b.status === q.status || faults?.has('status-filter-ignored') === true) &&
    (q.property_id === undefined || b.property_id === q.property_id) &&
    (q.check_in_from === undefined || b.check_in >= q.check_in_from) &&
    (q.check_in_to === undefined || b.check_in < q.check_in_to || (b.check_in === q.check_in_to && !faults?.has('filter-check-in-to-exclusive'))));
  matches.sort((a, b) => a.updated_at - b.updated_at || a.id - b.id);
  const start = (q.page - 1) * q.per_page;
  // A release that reads per_page + 1 rows to learn whether more follow, under a hard LIMIT 200 (a fault): at
  // per_page 200 the look-ahead never comes, so the last booking of a page that more follow is dropped as one.
  const end = faults?.has('per-page-200-short-by-one') === true && q.per_page === 200 && matches.length - start >= 200 ? start + q.per_page - 1 : start + q.per_page;
  return {
    items: matches.slice(start, end),
    pagination: { page: q.page, per_page: q.per_page, total: matches.length, last_page: Math.max(1, Math.ceil(matches.length / q.per_page)) },
  };
}

// Stryker disable all: which staff transitions exist (see HOLDING for the reason)
/** Staff transitions (spec x-assumptions.booking-transitions). */
const TRANSITIONS: Record<BookingStatus, BookingStatus[]> = {
  pending: ['confirmed', 'cancelled'],
  confirmed: ['cancelled', 'completed'],
  cancelled: ['refunded'],
  completed: ['refunded'],
  refunded: [],
};
// Stryker restore all

/** A staff transition: §2.3 a new revision and updated_at, §6.1 booking.changed; the rest is the staff plane's (see HOLDING). */
export function changeBookingStatus(tx: Transaction, ctx: BookingContext, bookingId: number, status: BookingStatus): Booking {
  const booking = tx.get('bookings', String(bookingId));
  // Stryker disable next-line all: the staff plane's refusal of an unknown booking or a transition it does not offer (see HOLDING)
  if (!booking) throw notFound();
  // Stryker disable next-line all: the staff plane's refusal of an unknown booking or a transition it does not offer (see HOLDING)
  if (!TRANSITIONS[booking.status].includes(status)) throw invalid('status', `A ${booking.status} booking cannot become ${status}.`);
  const next: Booking = { ...booking, status, revision: booking.revision + 1, updated_at: ctx.now };
  // Stryker disable next-line all: what a staff transition does to inventory (see HOLDING)
  if (HOLDING.has(booking.status) && !HOLDING.has(status)) release(tx, booking);
  tx.put('bookings', String(bookingId), next);
  // Stryker disable next-line all: what a staff transition does to inventory (see HOLDING)
  const released = HOLDING.has(booking.status) !== HOLDING.has(status) ? [stayWindow(booking)] : [];
  emitBookingChange(tx, ctx, next, released);
  return next;
}

/** Moves a holding booking to new dates, same units; refused with UNAVAILABLE when they cannot be held. */
export function changeBookingDates(tx: Transaction, ctx: BookingContext, bookingId: number, checkIn: IsoDate, checkOut: IsoDate): Booking {
  const booking = tx.get('bookings', String(bookingId));
  // Stryker disable all: the staff plane's date move: its refusals, and the nights it holds and releases (see HOLDING)
  if (!booking) throw notFound();
  if (!isIsoDate(checkIn)) throw invalid('check_in', 'Must be a valid date (YYYY-MM-DD).');
  if (!isIsoDate(checkOut)) throw invalid('check_out', 'Must be a valid date (YYYY-MM-DD).');
  if (checkOut <= checkIn) throw invalid('check_out', 'Must be after check_in.');
  if (daysBetween(checkIn, checkOut) > MAX_STAY_NIGHTS) throw invalid('check_out', `The stay may be at most ${MAX_STAY_NIGHTS} nights.`);
  // Stryker restore all
  const next: Booking = { ...booking, check_in: checkIn, check_out: checkOut, revision: booking.revision + 1, updated_at: ctx.now };
  // Stryker disable all: the staff plane's date move: its refusals, and the nights it holds and releases (see HOLDING)
  const windows = [stayWindow(booking), stayWindow(next)];
  if (HOLDING.has(booking.status)) {
    release(tx, booking);
    const property = tx.get('properties', String(booking.property_id))!;
    const units = unitsOf(tx, property.id);
    const lastNight = addDays(checkOut, -1);
    const stay = nights(checkIn, lastNight);
    const mine = booking.units.map((u) => units.find((x) => x.id === u.inventory_id)!);
    if (!allocate(tx, property.id, units, mine, stay)) throw unavailable(tx, property, units, checkIn, lastNight);
    hold(tx, next);
  }
  const moved = HOLDING.has(booking.status) ? windows : [];
  // Stryker restore all
  tx.put('bookings', String(bookingId), next);
  emitBookingChange(tx, ctx, next, moved);
  return next;
}

// Stryker disable all: the nights a staff transition releases or moves (see HOLDING)
function stayWindow(b: Booking): { from: IsoDate; to: IsoDate } {
  return { from: b.check_in, to: addDays(b.check_out, -1) };
}
// Stryker restore all

function emitBookingChange(tx: Transaction, ctx: BookingContext, booking: Booking, availability: { from: IsoDate; to: IsoDate }[]): void {
  // Stryker disable all: the availability a staff transition changes (see HOLDING)
  for (const w of availability) {
    const change: Change = { kind: 'availability', property_id: booking.property_id, ...w };
    ctx.changes.record(tx, change);
  }
  // Stryker restore all
  // §6.1: every change to a booking of the integration is pushed as booking.changed (a fault: only a new booking is).
  if (!ctx.faults?.has('staff-change-not-pushed')) ctx.changes.record(tx, { kind: 'booking', booking_id: booking.id, origin: booking.origin });
}
