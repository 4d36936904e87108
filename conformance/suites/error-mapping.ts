/**
 * Part 7's endpoint-to-error mapping, driven (§7 C2): each endpoint is made
 * to refuse in every way a partner's own credentials can provoke, and each
 * answer must be the refusal the document names, with a (status, code) pair
 * the mapping gives that endpoint. The pairs come from spec/openapi.yaml
 * (each error response lists its codes), where part 7 is transcribed once.
 * The /sync refusals beyond 401 are sent once per run by the sync suite
 * (conformance/sync-allowance.ts), which judges them (7.C2e).
 */
import { loadContract } from '../../spec/contract.ts';
import { defineCheck, type CheckContext } from '../check.ts';
import type { Response } from '../client.ts';
import { bookingBody, createBooking, describe, horizonStay, knownProperty } from './support.ts';

const suite = 'schema';

/** §7: "create uses …; list and get use …; /me uses …; /events …; /sync …; snapshots …". */
const MAPPING_CLAUSE: Record<string, string> = {
  createBooking: '7.C2a', getBooking: '7.C2b', getBookingByExternalId: '7.C2b', listBookings: '7.C2b',
  getMe: '7.C2c', listEvents: '7.C2d', requestSync: '7.C2e', getAvailabilitySnapshot: '7.C2f',
};

/** A platform id far above any a deployment hands out. */
const UNKNOWN_ID = 2_000_000_000;

/** A refusal: its status and codes; codes null: any the mapping gives that status. */
interface Refusal {
  status: number;
  codes: string[] | null;
}

interface Probe {
  operation: keyof typeof MAPPING_CLAUSE;
  what: string;
  /** The refusal the document names for this request. */
  want: Refusal;
  /** Another refusal the document allows just as well, where it names two in no order (§4.8, §7: 404 and 422 on snapshots). */
  orElse?: Refusal;
  clause: string;
}

function refusalText({ status, codes }: Refusal): string {
  return `${status} ${codes ? codes.join(' or ') : '(a mapped code)'}`;
}

/** The (status, code) pairs an operation may answer, from its declared responses. */
function mapped(operationId: string): Map<number, string[]> {
  const op = loadContract().operation(operationId);
  return new Map(Object.entries(op.responses).filter(([s]) => Number(s) >= 400).map(([s, r]) => [Number(s), r.codes]));
}

function judge(ctx: CheckContext, probe: Probe, res: Response): void {
  const wanted = probe.orElse ? [probe.want, probe.orElse] : [probe.want];
  const documented = wanted.map(refusalText).join(', or ');
  if (res.status < 400) ctx.fail('NotRefused', `${describe(res)} for ${probe.what}`, documented, probe.clause);
  const mapping = mapped(probe.operation);
  const codes = mapping.get(res.status);
  const code = res.body?.code;
  // The bare 404 (API switched off) is declared on every operation but is never an answer to these probes.
  if (codes === undefined || codes.length === 0 || !codes.includes(code)) {
    const allowed = [...mapping].flatMap(([s, cs]) => cs.map((c) => `${s} ${c}`)).join(', ');
    ctx.fail('ErrorNotMapped', `${describe(res)} for ${probe.what}`, `one of the refusals part 7 maps to this endpoint: ${allowed}`, MAPPING_CLAUSE[probe.operation]!);
  }
  if (!wanted.some((w) => res.status === w.status && (w.codes === null || w.codes.includes(code)))) {
    ctx.fail('WrongRefusal', `${describe(res)} for ${probe.what}`, documented, probe.clause);
  }
}

function queryText(query: Record<string, string | number>): string {
  return Object.entries(query).map(([k, v]) => `${k}=${v}`).join('&');
}

export const errorMappingChecks = [
  defineCheck({
    id: 'schema.error-mapping', title: 'Each endpoint refuses with the errors part 7 maps to it: 401 everywhere, 404 on get and snapshots, 422 on list, events and create', suite,
    clauses: ['7.C2', '7.C2a', '7.C2b', '7.C2c', '7.C2d', '7.C2f', '4.R3', '4.2.Q1', '4.5.Q1', '4.1.R1'], level: 'normative', needs: ['read'],
    async run(ctx) {
      const property = knownProperty(ctx) ?? UNKNOWN_ID;
      const stay = horizonStay(ctx, 1);
      const window = { from: stay.check_in, to: stay.check_in };
      const probes: [Probe, () => Promise<Response>][] = [
        // §4 "every endpoint can answer 401": each without a key (§4.1: /me takes nothing, so this is its one refusal).
        ...([
          ['getMe', 'GET', '/me'], ['getBooking', 'GET', '/bookings/1'], ['getBookingByExternalId', 'GET', '/bookings/external/x'],
          ['listBookings', 'GET', '/bookings'], ['createBooking', 'POST', '/bookings'], ['listEvents', 'GET', '/events'],
          ['requestSync', 'POST', '/sync'], ['getAvailabilitySnapshot', 'GET', `/properties/${property}/availability?from=${window.from}&to=${window.to}`],
        ] as const).map(([operation, method, path]): [Probe, () => Promise<Response>] => [
          { operation, what: `${method} ${path.split('?')[0]} without a key`, clause: '4.R3', want: { status: 401, codes: ['UNAUTHENTICATED'] } },
          () => ctx.api.request(method, path, { token: null, body: method === 'POST' ? {} : undefined }),
        ]),
        // §4.2: the segment must be numeric; get maps no 422 (§7), so anything else is an unknown booking.
        ...['abc', '1.5', '0', String(UNKNOWN_ID)].map((id): [Probe, () => Promise<Response>] => [
          { operation: 'getBooking', what: `GET /bookings/${id}`, clause: id === String(UNKNOWN_ID) ? '7.C2b' : '4.2.Q1', want: { status: 404, codes: ['NOT_FOUND'] } },
          () => ctx.api.get(`/bookings/${encodeURIComponent(id)}`),
        ]),
        [
          { operation: 'getBookingByExternalId', what: 'GET /bookings/external/{an id never used}', clause: '7.C2b', want: { status: 404, codes: ['NOT_FOUND'] } },
          () => ctx.api.get(`/bookings/external/${encodeURIComponent(ctx.uniqueId('never'))}`),
        ],
        ...([{ per_page: 0 }, { status: 'archived' }, { page: 0 }] as Record<string, string | number>[]).map((query): [Probe, () => Promise<Response>] => [
          { operation: 'listBookings', what: `GET /bookings?${queryText(query)}`, clause: '7.C2b', want: { status: 422, codes: ['VALIDATION_FAILED'] } },
          () => ctx.api.get('/bookings', { query }),
        ]),
        ...([{ limit: 201 }, { after_sequence: -1 }, { include_superseded: 'maybe' }] as Record<string, string | number>[]).map((query): [Probe, () => Promise<Response>] => [
          { operation: 'listEvents', what: `GET /events?${queryText(query)}`, clause: '7.C2d', want: { status: 422, codes: ['VALIDATION_FAILED'] } },
          () => ctx.api.get('/events', { query }),
        ]),
        [
          { operation: 'getAvailabilitySnapshot', what: 'an availability snapshot of an unknown property', clause: '7.C2f', want: { status: 404, codes: ['NOT_FOUND'] } },
          () => ctx.api.get(`/properties/${UNKNOWN_ID}/availability`, { query: window }),
        ],
        // A known property's snapshot without from can only be refused for the query. An unknown property's is refused for
        // both: §4.8 and §7 list 404 and 422 in no order, so whichever a platform checks first is its answer.
        ...(property === UNKNOWN_ID ? [] : [[
          { operation: 'getAvailabilitySnapshot', what: 'an availability snapshot without from', clause: '7.C2f', want: { status: 422, codes: ['VALIDATION_FAILED'] } },
          () => ctx.api.get(`/properties/${property}/availability`, { query: { to: window.to } }),
        ] as [Probe, () => Promise<Response>]]),
        [
          { operation: 'getAvailabilitySnapshot', what: 'an availability snapshot of an unknown property without from', clause: '7.C2f', want: { status: 422, codes: ['VALIDATION_FAILED'] }, orElse: { status: 404, codes: ['NOT_FOUND'] } },
          () => ctx.api.get(`/properties/${UNKNOWN_ID}/availability`, { query: { to: window.to } }),
        ],
        // Refused whatever a platform checks first (key or body), so nothing can be written.
        [
          { operation: 'createBooking', what: 'POST /bookings with an empty body and no Idempotency-Key', clause: '7.C2a', want: { status: 422, codes: null } },
          () => ctx.api.post('/bookings', { body: {} }),
        ],
      ];
      for (const [probe, send] of probes) judge(ctx, probe, await send());
      // §4.2: numeric is digits only. Spellings a number parser reads as an existing booking's id (`7.0`, `+7`) name no booking.
      let known = (await ctx.api.get('/bookings', { query: { per_page: 1 } })).body?.data?.[0]?.id;
      if (known === undefined && ctx.target.capabilities.includes('write')) known = (await createBooking(ctx, bookingBody(ctx))).body?.data?.id;
      if (Number.isInteger(known)) {
        for (const id of [`${known}.0`, `+${known}`]) {
          judge(ctx, { operation: 'getBooking', what: `GET /bookings/${id} (booking ${known} spelled otherwise)`, clause: '4.2.Q1', want: { status: 404, codes: ['NOT_FOUND'] } }, await ctx.api.get(`/bookings/${encodeURIComponent(id)}`));
        }
      }

      // §4.1: GET /me takes no parameters, so there is nothing in a query to refuse (§7 maps no 422 to /me): one
      // sent anyway changes nothing, and the answer is the integration object.
      const plain = await ctx.api.get('/me');
      const withQuery = await ctx.api.get('/me', { query: { page: 0, limit: 'x', after_sequence: -1 } });
      if (withQuery.status !== 200 || withQuery.body?.data?.id !== plain.body?.data?.id) {
        ctx.fail('MeTookParameters', `${describe(withQuery)} for GET /me?page=0&limit=x&after_sequence=-1 (integration ${withQuery.body?.data?.id}; ${describe(plain)} without)`, 'GET /me has no parameters: 200 with the integration object whatever the query', '4.1.R1');
      }

      // §4.5: Content-Type application/json is required. A platform that ignored it would book, so only with writes.
      if (ctx.target.capabilities.includes('write')) {
        for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
          const body = bookingBody(ctx);
          const res = await ctx.api.post('/bookings', { rawBody: JSON.stringify(body), headers: { 'Idempotency-Key': ctx.uniqueKey(32), 'Content-Type': type } });
          judge(ctx, { operation: 'createBooking', what: `a valid create body sent as ${type}`, clause: '4.5.Q1', want: { status: 422, codes: ['VALIDATION_FAILED'] } }, res);
          const stored = await ctx.api.get(`/bookings/external/${encodeURIComponent(body.external_booking_id)}`);
          if (stored.status !== 404) ctx.fail('WrittenDespiteRefusal', `${describe(stored)} for the booking sent as ${type}`, 'a create without Content-Type: application/json is refused and writes nothing', '4.5.Q1');
        }
      }
    },
  }),
];
