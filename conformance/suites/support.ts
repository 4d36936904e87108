/** Request builders shared by the suites: safe far-future stays on the target's own properties. */
import { addDays, dateAt } from '../../simulator/domain/calendar.ts';
import type { CheckContext } from '../check.ts';
import { NotApplicable } from '../check.ts';
import type { Response } from '../client.ts';

/** A property the check may read, or null when a live run named none. */
export function knownProperty(ctx: CheckContext): number | null {
  return ctx.target.properties.find((p) => !p.archived)?.doorloom_id ?? null;
}

/** A property the check may book on: live runs name them; the simulator's demo world has several. */
export function writableProperty(ctx: CheckContext, index = 0): number {
  const usable = ctx.target.properties.filter((p) => !p.archived);
  const property = usable[index % Math.max(1, usable.length)];
  if (!property) throw new NotApplicable('no property to write on: name one with --property ID');
  return property.doorloom_id;
}

/**
 * A stay far in the future (400 to 700 days ahead), so live writes never
 * touch real near-term inventory; `slot` spreads checks over distinct nights.
 */
export function farStay(ctx: CheckContext, nights = 1, slot = Math.floor(Math.random() * 300)): { check_in: string; check_out: string } {
  const start = addDays(dateAt(Date.now()), 400 + slot);
  return { check_in: start, check_out: addDays(start, nights) };
}

export function bookingBody(ctx: CheckContext, overrides: Record<string, unknown> = {}): Record<string, any> {
  return {
    external_booking_id: ctx.uniqueId('bk'),
    property: { doorloom_id: writableProperty(ctx) },
    units: [{ adults: 2 }],
    ...farStay(ctx),
    guest: { name: 'Conformance Check', mobile: '9000000000' },
    pricing: { total: 1000 },
    notes: `conformance run ${ctx.runId}`,
    ...overrides,
  };
}

export function createBooking(ctx: CheckContext, body: unknown, key: string | null = ctx.uniqueId('key')) {
  return ctx.api.post('/bookings', { body, headers: key === null ? {} : { 'Idempotency-Key': key } });
}

export function describe(res: Response): string {
  return `${res.status}${res.body?.code ? ` ${res.body.code}` : ''}`;
}

/** Every partner operation with a request that is valid apart from authentication. */
export function everyOperation(ctx: CheckContext): { name: string; method: 'GET' | 'POST'; path: string; body?: unknown }[] {
  const property = ctx.target.properties[0]?.doorloom_id ?? 1;
  const stay = farStay(ctx);
  return [
    { name: 'GET /me', method: 'GET', path: '/me' },
    { name: 'GET /bookings/{doorloom_id}', method: 'GET', path: '/bookings/1' },
    { name: 'GET /bookings/external/{external_booking_id}', method: 'GET', path: '/bookings/external/x' },
    { name: 'GET /bookings', method: 'GET', path: '/bookings' },
    { name: 'POST /bookings', method: 'POST', path: '/bookings', body: {} },
    { name: 'GET /events', method: 'GET', path: '/events' },
    { name: 'POST /sync', method: 'POST', path: '/sync', body: { types: ['nope'] } },
    { name: 'GET /properties/{property}/availability', method: 'GET', path: `/properties/${property}/availability?from=${stay.check_in}&to=${stay.check_in}` },
  ];
}
