/**
 * The certification plan: the steps and drills of a run, fixed by the seed
 * before it starts (the certificate holds them), and the concrete choices
 * they use: stays for the orders, rates and nights of the outage drill.
 * Pure: dates are computed from the platform's "today".
 */
import { seeded } from '../conformance/seeded.ts';
import { addDays } from '../protocol/calendar.ts';
import type { BookingBody } from './credentials-file.ts';
import { RAW_BODY_VARIANTS } from './raw-body.ts';
import type { Plan, PlanStep } from './types.ts';

/**
 * Fits a partner that polls GET /me once a minute (§5.7) and reconciles
 * bookings by updated_since every 90 s (§6.9): two reconciliations, the
 * second up to 180 s in, and the outage drill's minute for GET /me. A run
 * ends earlier as soon as everything is observed.
 */
export const DEFAULT_DURATION_SECONDS = 240;
/** Events recorded while delivery is withheld: more than one replay page at any limit (§4.6: 1 to 200). */
export const OUTAGE_EVENTS = 210;
/** The rate limit of the Retry-After drill: one call per window. */
export const DRILL_RATE_LIMIT = { limit: 1, window_seconds: 2 } as const;
/** What the integration gets back after the drill (the simulator's default). */
export const NORMAL_RATE_LIMIT = { limit: 6000, window_seconds: 60 } as const;

/** The crash drill's nights: 1 changed twice and 4 more acknowledged before the kill, 6 in flight at it, the rest while the partner is down. */
export const CRASH_NIGHTS = 15;
export const CRASH_IN_FLIGHT = 6;
export const CRASH_WHILE_DOWN = 4;

export const STEPS: readonly PlanStep[] = [
  { id: 'ready', title: 'Receiver up', expects: 'A signed ping posted to the webhook URL is answered 2xx; then the URL is registered and the platform delivers to it.' },
  { id: 'drill.snapshot-watermark', title: 'Drill: snapshot watermark', expects: 'Before the webhook is registered, the answer of the partner\'s first rates snapshot is held after it was built while one night of its window changes (an event above its data.sequence). The partner sets its cursor to the snapshot\'s data.sequence, not to the latest sequence, so its replay after the snapshot reads the change and its copy of the night ends with the new rate (§4.8, cold start §6.8).' },
  { id: 'platform-events', title: 'Platform deliveries', expects: 'Receiver-only runs: staff change one night\'s rate twice; the platform delivers both events, signed, and each is answered 2xx (§6.2). The first becomes the older event re-sent later.' },
  { id: 'first-booking', title: 'First order', expects: 'Order 1 is placed with POST /bookings and an Idempotency-Key; its events are delivered and answered 2xx.' },
  { id: 'receiver-checks', title: 'Receiver checks', expects: 'A valid ping and a re-sent event: 2xx. Wrong signature, no signature, a stale timestamp, another integration in X-Service-Integration: 4xx.' },
  { id: 'drill.raw-body', title: 'Drill: raw-body signatures', expects: 'With delivery withheld, four new rates events are posted straight to the receiver, correctly signed over bytes that are valid JSON but not JSON.stringify form (whitespace, \\/ and \\u00e9-style escapes, 7840.0, keys in another order), and one booking event re-sent with its "/" and "é" escaped: every one answered 2xx and each new rate applied (signature over the raw body, spec x-assumption; §6.4).' },
  { id: 'drill.lost-answer', title: 'Drill: lost answer', expects: 'The answer of order 2\'s create is withheld (connection dropped after the booking was made); the partner retries with the same Idempotency-Key and the identical body and gets the original answer (§4.5 rule 1).' },
  { id: 'drill.rate-limit', title: 'Drill: rate limited', expects: 'With one call allowed per 2 s, orders 3 and 4 meet 429 RATE_LIMITED; the partner waits the Retry-After before any further call, then places them (§7).' },
  { id: 'drill.unavailable', title: 'Drill: 409 UNAVAILABLE', expects: 'Order 5\'s nights are blocked; its create is refused 409 UNAVAILABLE and the partner does not send it again (§4.5 rule 7).' },
  { id: 'drill.crash-restart', title: 'Drill: crash and restart', expects: `Only with --partner-command. Rates change on ${CRASH_NIGHTS} nights while delivery flows (the first night twice, both acknowledged); with more in flight the partner's process group is killed (SIGKILL), delivery is withheld, ${CRASH_WHILE_DOWN} more are recorded, and the same command is started again. Every event acknowledged before the kill is still held; the replay starts at the stored cursor, not at 0 and not at the newest sequence, and reads what was not acknowledged; no older value is applied over a newer one (§6.2, §4.6, §6.8, §6.4). Without --partner-command it is not run (recovery.crash-restart not observed).` },
  { id: 'drill.webhook-outage', title: 'Drill: webhook outage', expects: `Delivery is withheld (staff pause; GET /me shows it) while ${OUTAGE_EVENTS + 2} events are recorded, two of them superseded-and-superseding rates. When the run has time the partner first gets a minute to notice the pause by GET /me; then one delivery reveals the gap. The partner replays GET /events from its cursor, walking next_after_sequence, without applying the superseded event (§6.8, §4.6, §3.3).` },
  { id: 'older-event', title: 'Older event after a newer one', expects: 'The superseded rates event is re-sent after the newer one: 2xx, and the partner keeps the newer rates (§6.4).' },
  { id: 'drill.key-rotation', title: 'Drill: API key rotation', expects: 'Staff rotate the API key; the new key is written to the certification file. At most one call with the old key, then order 6 with the new one (§5.3).' },
  { id: 'drill.secret-rotation', title: 'Drill: webhook secret rotation', expects: 'Staff rotate the webhook secret; the file lists both. Deliveries with two v1= values (either order), one signed with the new secret only, and the platform\'s next delivery: all 2xx (§5.4).' },
  { id: 'observe', title: 'Observe', expects: 'Until --duration runs out, or earlier once all are observed: what the partner does on its own timers: GET /bookings by updated_since at least twice (§6.9), GET /me (§5.7), a replay walk (§4.6) and a snapshot followed by a replay (§4.8).' },
];

export { seeded };

export interface PlanChoices {
  /** The property every order and outage event uses (the covered one with most active units). */
  propertyId: number;
  /** Seven stays, one per order (index 4 is the blocked one). */
  stays: Array<{ check_in: string; check_out: string }>;
  /** Rates drill: two nights, first rate X then rate Y over the same window (X superseded). */
  ratesWindow: { from: string; to: string };
  rateX: number;
  rateY: number;
  /** One night each, while delivery is withheld. */
  fillerNights: string[];
  /** Raw-body drill: one night and rate per encoding variant (inside a 120-night window, clear of every other choice). */
  rawBodyNights: string[];
  rawBodyRates: number[];
  /** The night changed to produce the first delivery signed with two secrets. */
  rotationNight: string;
  /** Crash drill: its nights (inside the 120-night window, clear of every other choice) and a rate for each. */
  crashNights: string[];
  crashRates: number[];
  /** Crash drill: the second rate of its first night (changed twice before the kill). */
  crashSecondRate: number;
  /** Snapshot-watermark drill: the night changed while a snapshot answer is held (if the snapshot's window holds it), and its new rate. */
  watermarkNight: string;
  watermarkRate: number;
}

/**
 * The seed's choices, from the platform's today: stays 3 to 25 days ahead
 * (before the demo world's festive minimum stays at +30), the rates drill at
 * +26 and +27, filler nights from +130 (inside the 365-day event horizon).
 */
export function choose(seed: number, today: string, propertyId: number): PlanChoices {
  const rnd = seeded(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  const base = int(3, 4);
  const stays = Array.from({ length: 7 }, (_, i) => {
    const checkIn = addDays(today, base + 3 * i);
    return { check_in: checkIn, check_out: addDays(checkIn, int(1, 2)) };
  });
  const rateX = 7000 + 10 * int(0, 49);
  return {
    propertyId,
    stays,
    ratesWindow: { from: addDays(today, 26), to: addDays(today, 27) },
    rateX,
    rateY: rateX + 500 + 10 * int(0, 9),
    fillerNights: Array.from({ length: OUTAGE_EVENTS }, (_, i) => addDays(today, 130 + i)),
    rotationNight: addDays(today, 350),
    rawBodyNights: RAW_BODY_VARIANTS.map((_, i) => addDays(today, 100 + i)),
    rawBodyRates: RAW_BODY_VARIANTS.map((_, i) => 8000 + 1000 * i + 10 * int(0, 49)),
    // Drawn last, so the choices above stay what they were for a seed. Inside any window of 60 nights from today.
    watermarkNight: addDays(today, 31 + int(0, 24)),
    watermarkRate: 5000 + 10 * int(0, 49),
    // The crash drill's, drawn after those.
    crashNights: Array.from({ length: CRASH_NIGHTS }, (_, i) => addDays(today, 40 + i)),
    crashRates: Array.from({ length: CRASH_NIGHTS }, (_, i) => 5000 + 20 * i + int(1, 9)),
    crashSecondRate: 5500 + 10 * int(1, 9),
  };
}

const IN_PROCESS_ONLY = ['drill.lost-answer', 'drill.snapshot-watermark'];

/**
 * The steps of a `--receiver-only` run (issue 41 item 7): only what the platform and certify do to the receiver,
 * nothing that waits for the partner's own API calls, so it ends in seconds. The events the redelivery and
 * older-event probes re-send come from rate changes staff make ('platform-events'), not from an order.
 */
export const RECEIVER_ONLY_STEPS = ['ready', 'platform-events', 'receiver-checks', 'drill.raw-body', 'older-event', 'drill.secret-rotation'] as const;

export function buildPlan(seed: number, durationSeconds: number, choices: PlanChoices, inProcess: boolean, receiverOnly = false): Plan {
  const steps = receiverOnly
    ? STEPS.filter((s) => (RECEIVER_ONLY_STEPS as readonly string[]).includes(s.id))
    // Withholding a create's answer and holding a snapshot's answer take the in-process simulator's own HTTP server.
    : STEPS.filter((s) => s.id !== 'platform-events' && (inProcess || !IN_PROCESS_ONLY.includes(s.id)));
  return {
    seed,
    durationSeconds,
    ...(receiverOnly ? { scope: 'receiver-only' as const } : {}),
    steps: steps.map((s) => ({ ...s })),
    parameters: {
      property_id: choices.propertyId,
      stays: choices.stays,
      rates_window: choices.ratesWindow,
      rate_x: choices.rateX,
      rate_y: choices.rateY,
      outage_events: choices.fillerNights.length + 2,
      filler_nights: { from: choices.fillerNights[0], to: choices.fillerNights.at(-1) },
      rotation_night: choices.rotationNight,
      watermark: { night: choices.watermarkNight, base_rate: choices.watermarkRate },
      raw_body: RAW_BODY_VARIANTS.map((variant, i) => ({ variant, night: choices.rawBodyNights[i], base_rate: choices.rawBodyRates[i] })),
      drill_rate_limit: DRILL_RATE_LIMIT,
      crash_restart: { nights: { from: choices.crashNights[0], to: choices.crashNights.at(-1) }, rates: choices.crashRates, second_rate: choices.crashSecondRate, in_flight: CRASH_IN_FLIGHT, while_down: CRASH_WHILE_DOWN },
    },
  };
}

/** The POST /bookings body of order `n` (1-based). */
export function orderBody(runId: string, n: number, choices: PlanChoices): BookingBody {
  const stay = choices.stays[n - 1]!;
  return {
    external_booking_id: `CERT-${runId}-${n}`,
    property: { doorloom_id: choices.propertyId },
    units: [{ adults: 2 }],
    check_in: stay.check_in,
    check_out: stay.check_out,
    // A "/" and an "é" the raw-body drill re-sends escaped (\/, \u00e9) in the booking's event.
    guest: { name: `Certification Guest ${n} / Zoé`, mobile: `98765${String(43210 + n).slice(-5)}` },
    pricing: { total: 6000 * nights(stay), currency: 'INR' },
    source: { channel: 'certification' },
  };
}

function nights(stay: { check_in: string; check_out: string }): number {
  return Math.round((Date.parse(`${stay.check_out}T00:00:00Z`) - Date.parse(`${stay.check_in}T00:00:00Z`)) / 86_400_000);
}
