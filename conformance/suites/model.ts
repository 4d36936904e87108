/**
 * Model-based runs (fast-check commands, as in fast-check's own
 * CommandsArbitrary tests): random sequences of partner calls and staff
 * actions against a model of what must be true; every invariant is checked
 * after each step, and a failure shrinks to a minimal sequence of calls.
 */
import fc from 'fast-check';
import { addDays, dateAt } from '../../protocol/calendar.ts';
import { defineCheck, type CheckContext } from '../check.ts';
import { control } from '../control.ts';
import { allEvents, bookingBody, changeRates, coveringRow, createBooking, farStay, knownProperty } from './support.ts';

const suite = 'model';

interface Model {
  bookings: Map<number, { revision: number; status: string; property: number }>;
  /** Highest sequence already checked. */
  seen: number;
  /** The events the last command's change must have recorded after `seen` (§1, §6.1, §6.5). */
  expected: Expected[];
  /** Event types the integration subscribes to (webhook.event_types): only those are recorded. */
  subscribed: string[];
}

/** An event a change must record: its type and property, and for booking.changed the booking where the payload names it. */
interface Expected {
  type: string;
  property: number;
  booking?: number;
  clause: string;
  what: string;
}

/** Whether `row` is the event `e` describes. booking.changed's payload is not shown (§6): its `id` is compared only where it has one. */
function recordedAs(row: any, e: Expected): boolean {
  if (row.event.type !== e.type || row.event.property?.doorloom_id !== e.property) return false;
  return e.booking === undefined || row.event.data?.id === undefined || row.event.data.id === e.booking;
}

interface Real {
  ctx: CheckContext;
}

/** Checks every invariant against the model; called after each command. */
async function invariants(m: Model, { ctx }: Real): Promise<void> {
  const rows = await allEvents(ctx, { include_superseded: true }, m.seen);
  const me = (await ctx.api.get('/me')).body.data;
  const latest = (await ctx.api.get('/events', { query: { limit: 1 } })).body.cursor.latest_sequence;
  if (me.webhook.last_sequence !== latest) ctx.fail('LatestSequenceMismatch', `/me ${me.webhook.last_sequence}, cursor ${latest}`, 'equal', '2.1.R3');
  let previous = m.seen;
  for (const r of rows) {
    if (r.sequence !== previous + 1) ctx.fail('SequenceGapOrReuse', `sequence ${r.sequence} after ${previous}`, `${previous + 1}: strictly increasing, every one retained`, '1.R3a');
    previous = r.sequence;
  }
  if (rows.length > 0 && previous !== latest) ctx.fail('LatestSequenceMismatch', `newest row ${previous}`, `latest_sequence ${latest}`, '4.6.R6');
  for (const e of m.expected.filter((x) => m.subscribed.includes(x.type))) {
    if (!rows.some((r) => recordedAs(r, e))) ctx.fail('ChangeNotPushed', `no ${e.type} for property ${e.property}${e.booking === undefined ? '' : ` (booking ${e.booking})`} after sequence ${m.seen}, following ${e.what}; recorded: ${rows.map((r) => `${r.sequence} ${r.event.type}`).join(', ') || 'nothing'}`, `${e.what} is pushed as ${e.type}`, e.clause);
  }
  m.expected = [];
  const all = await allEvents(ctx, { include_superseded: true });
  for (const old of rows.filter((r) => r.status === 'superseded')) {
    if (!coveringRow(all, old)) ctx.fail('SupersededUncovered', `event ${old.sequence}`, 'covered by a newer event of the same type and property', '3.3.T1');
  }
  if ((await allEvents(ctx, {}, m.seen)).some((r) => r.status === 'superseded')) ctx.fail('SupersededInReplay', 'a superseded row in default replay', 'omitted unless include_superseded', '3.3.R2');
  m.seen = latest;
  for (const [id, want] of m.bookings) {
    const got = (await ctx.api.get(`/bookings/${id}`)).body?.data;
    if (got?.revision !== want.revision || got?.status !== want.status) ctx.fail('BookingDiverged', `booking ${id} at revision ${got?.revision} ${got?.status}`, `revision ${want.revision} ${want.status}`, '2.3.R3');
  }
}

class CreateBooking implements fc.AsyncCommand<Model, Real> {
  constructor(readonly slot: number, readonly nights: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const res = await createBooking(r.ctx, bookingBody(r.ctx, farStay(r.ctx, this.nights, this.slot)));
    if (res.status === 201) {
      const property = res.body.data.property?.doorloom_id as number;
      m.bookings.set(res.body.data.id, { revision: 1, status: 'confirmed', property });
      // §6.5: a create emits booking.changed (its availability.changed falls beyond the horizon for these far stays).
      m.expected.push({ type: 'booking.changed', property, booking: res.body.data.id, clause: '6.R5', what: `the create of booking ${res.body.data.id}` });
    }
    else if (res.status !== 409) r.ctx.fail('UnexpectedStatus', String(res.status), '201 or 409 UNAVAILABLE', '4.5.R8');
    await invariants(m, r);
  }
  toString = () => `POST /bookings (stay slot ${this.slot}, ${this.nights} nights)`;
}

class CancelBooking implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number) {}
  check = (m: Readonly<Model>) => [...m.bookings.values()].some((b) => b.status === 'confirmed');
  async run(m: Model, r: Real) {
    const open = [...m.bookings.entries()].filter(([, b]) => b.status === 'confirmed');
    const [id, b] = open[this.pick % open.length]!;
    await r.ctx.control!.setBookingStatus(id, 'cancelled');
    m.bookings.set(id, { ...b, revision: b.revision + 1, status: 'cancelled' });
    m.expected.push({ type: 'booking.changed', property: b.property, booking: id, clause: '6.R1', what: `staff cancelling booking ${id}` });
    await invariants(m, r);
  }
  toString = () => `control: cancel booking #${this.pick}`;
}

class MoveBooking implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number, readonly nights: number) {}
  check = (m: Readonly<Model>) => [...m.bookings.values()].some((b) => b.status === 'confirmed');
  async run(m: Model, r: Real) {
    const open = [...m.bookings.entries()].filter(([, b]) => b.status === 'confirmed');
    const [id, b] = open[this.pick % open.length]!;
    const stay = farStay(r.ctx, this.nights);
    // §2.3 revision increases with changes, §6.1 every change to a booking is pushed as booking.changed: a staff move of
    // the stay is a change (the control plane answers 409 when the new nights cannot be held, and nothing changes).
    if (await r.ctx.control!.setBookingDates(id, stay.check_in, stay.check_out)) {
      m.bookings.set(id, { ...b, revision: b.revision + 1 });
      m.expected.push({ type: 'booking.changed', property: b.property, booking: id, clause: '6.R1', what: `staff moving booking ${id} to ${stay.check_in}` });
    }
    await invariants(m, r);
  }
  toString = () => `control: move booking #${this.pick} (${this.nights} nights)`;
}

class ChangeRates implements fc.AsyncCommand<Model, Real> {
  constructor(readonly offset: number, readonly span: number, readonly rate: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const from = addDays(dateAt(r.ctx.now()), 20 + this.offset);
    const property = knownProperty(r.ctx)!;
    await changeRates(r.ctx, property, from, addDays(from, this.span), this.rate);
    m.expected.push({ type: 'rates.changed', property, clause: '1.R3', what: `a rates change from ${from}` });
    await invariants(m, r);
  }
  toString = () => `control: rates +${this.offset}d for ${this.span + 1} nights = ${this.rate}`;
}

class AdvanceClock implements fc.AsyncCommand<Model, Real> {
  constructor(readonly hours: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    await r.ctx.control!.advanceClock(this.hours * 3600);
    await invariants(m, r);
  }
  toString = () => `control: clock +${this.hours} h`;
}

export const modelChecks = [
  defineCheck({
    id: 'model.partner-and-staff-commands', title: 'Random sequences of creates, cancellations, date moves, rate changes and clock moves keep every event invariant', suite,
    clauses: ['1.R3', '1.R3a', '2.1.R3', '3.3.T1', '3.3.R2', '4.6.R6', '6.R1', '6.R5', '2.3.R3'], level: 'normative',
    needs: ['write', control('booking.status'), control('rates.set'), control('clock.advance')],
    async run(ctx) {
      // Staff date moves where the control plane offers them (booking.dates is not among the check's needs).
      const moves = ctx.control?.offers('booking.dates') ? [fc.tuple(fc.nat(), fc.integer({ min: 1, max: 3 })).map(([p, n]) => new MoveBooking(p, n))] : [];
      const commands = fc.commands([
        fc.tuple(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 1, max: 3 })).map(([s, n]) => new CreateBooking(s, n)),
        fc.nat().map((p) => new CancelBooking(p)),
        ...moves,
        fc.tuple(fc.integer({ min: 0, max: 10 }), fc.integer({ min: 0, max: 4 }), fc.integer({ min: 1000, max: 9000 })).map(([o, s, rate]) => new ChangeRates(o, s, rate)),
        fc.integer({ min: 0, max: 6 }).map((h) => new AdvanceClock(h)),
      ], { maxCommands: 12 });
      const subscribed = ((await ctx.api.get('/me')).body.data.webhook.event_types ?? []) as string[];
      await ctx.forAll(commands, async (cmds) => {
        const latest = (await ctx.api.get('/events', { query: { limit: 1 } })).body.cursor.latest_sequence as number;
        await fc.asyncModelRun(() => ({ model: { bookings: new Map(), seen: latest, expected: [], subscribed }, real: { ctx } }), cmds);
      }, { books: true });
    },
  }),
];
