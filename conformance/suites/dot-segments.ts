/**
 * An id `.` or `..` in a path segment (§4.2, §4.3, §4.8). Each segment the
 * API takes is the id it names, "URL-encoded if needed" (§4.3): a platform
 * that lets a URL normaliser resolve `..` before routing answers another
 * resource (GET /bookings/external/.. becomes the booking list). The probes
 * go on the wire as written (`rawPath`: fetch would resolve them first), in
 * plain and percent-encoded spellings, on every path parameter of §4.
 */
import { defineCheck, type CheckContext } from '../check.ts';
import type { Response } from '../client.ts';
import { describe, horizonStay, knownProperty } from './support.ts';

// With the other visibility checks (auth.ts): what an id in a path names.
const suite = 'auth';

/** `.` and `..` as a partner's client may send them: plain, percent-encoded in either case, and mixed. */
export const DOT_SPELLINGS = ['.', '..', '%2E', '%2e', '%2E%2E', '%2e%2e', '.%2E', '%2e.'] as const;

interface Segment {
  /** The path with the segment in place. */
  path(spelling: string): string;
  /** Whether a 200's data is the resource the id names (never, where no resource can have such an id). */
  names(data: any, id: string): boolean;
  clause: string;
  what: string;
}

/** §4 path parameters: the booking's platform id, its partner id, the snapshot's property (platform id or alias). */
function segments(ctx: CheckContext): Segment[] {
  const stay = horizonStay(ctx, 1);
  const window = `from=${stay.check_in}&to=${stay.check_in}`;
  return [
    // §4.2: the segment must be numeric; anything else is no booking (§7 maps no 422 to get).
    { path: (s) => `/bookings/${s}`, names: () => false, clause: '4.2.Q1', what: 'GET /bookings/{doorloom_id}' },
    // §4.3: the partner id, URL-encoded if needed: the booking whose external_booking_id it is, otherwise 404.
    { path: (s) => `/bookings/external/${s}`, names: (d, id) => d?.external_booking_id === id, clause: '4.3.R2', what: 'GET /bookings/external/{external_booking_id}' },
    // §4.8: a platform id or the partner alias; an unknown property is 404.
    { path: (s) => `/properties/${s}/availability?${window}`, names: (d, id) => d?.property?.external_id === id, clause: '4.8.R3', what: 'GET /properties/{property}/availability' },
  ];
}

function judge(ctx: CheckContext, segment: Segment, spelling: string, res: Response): void {
  const id = decodeURIComponent(spelling);
  const what = `GET ${segment.path(spelling)} (${segment.what} with the id ${JSON.stringify(id)} spelled ${spelling})`;
  const documented = `404 NOT_FOUND in the error envelope (no such id), or 200 with the resource whose id is ${JSON.stringify(id)}: the segment is the id, never a path step`;
  if (res.status >= 500) return ctx.fail('ServerError', `${describe(res)} for ${what}`, documented, '4.R2');
  if (res.status === 200) {
    if (!segment.names(res.body?.data, id)) ctx.fail('OtherResource', `200 for ${what}: ${res.text.slice(0, 160)}`, documented, segment.clause);
    return;
  }
  if (res.status !== 404 || res.body?.success !== false || res.body?.code !== 'NOT_FOUND') ctx.fail('DotSegmentMisrouted', `${describe(res)} for ${what}${res.body === undefined ? ` (body ${JSON.stringify(res.text.slice(0, 80))})` : ''}`, documented, segment.clause);
}

export const dotSegmentChecks = [
  defineCheck({
    id: 'visibility.dot-segment-ids', title: 'An id . or .. (plain or percent-encoded) in any path segment is that id: 404 NOT_FOUND or its own resource, never another resource or a 5xx', suite,
    clauses: ['4.2.Q1', '4.2.R2', '4.3.Q1', '4.3.R2', '4.8.Q1', '4.8.R3', '4.R2'], level: 'normative', needs: ['read'],
    async run(ctx) {
      const property = knownProperty(ctx);
      for (const segment of segments(ctx)) {
        for (const spelling of DOT_SPELLINGS) judge(ctx, segment, spelling, await ctx.api.get(segment.path(spelling), { rawPath: true }));
      }
      // The same request with a real id, sent the same way, answers: the 404s above were not a 404 for everything.
      if (property !== null) {
        const stay = horizonStay(ctx, 1);
        const own = await ctx.api.get(`/properties/${property}/availability?from=${stay.check_in}&to=${stay.check_in}`, { rawPath: true });
        if (own.status !== 200) ctx.fail('UnexpectedStatus', `${describe(own)} for the snapshot of property ${property} sent the same way`, '200: the same request with a real id answers', '4.8.R1');
      }
    },
  }),
];
