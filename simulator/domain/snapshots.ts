/**
 * §2.7, §4.8: availability, rates and restrictions snapshots. The watermark
 * `sequence` is read before the payload is built; the payload comes from the
 * same builders as the events, so it is byte-identical to the matching event.
 */
import { addDays, dateAt, daysBetween, type IsoDate } from '../../protocol/calendar.ts';
import { invalid, notFound } from './errors.ts';
import type { Integration, Property } from './model.ts';
import { windowedPayload } from './payloads.ts';
import type { StoreReader } from '../store/store.ts';
import { NO_FAULTS, type Faults } from './faults.ts';

export const SNAPSHOT_MAX_NIGHTS = 92;
export const SNAPSHOT_HORIZON_DAYS = 730;

export type SnapshotKind = 'availability' | 'rates' | 'restrictions';

/** A covered property by platform id or partner alias; anything else is NOT_FOUND (§4.8, §1). */
export function coveredProperty(r: StoreReader, integration: Integration, ref: string, faults: Faults = NO_FAULTS): Property {
  const covered = integration.coverage.map((id) => r.get('properties', String(id))).filter((p): p is Property => p !== undefined);
  // A release that only looks properties up by platform id: the partner alias answers 404.
  const byAlias = faults.has('snapshot-alias-not-found') ? undefined : covered.find((p) => p.external_id === ref);
  // A release that reads the id with parseInt: `101abc` and `+101` name property 101 (a fault).
  const id = faults.has('snapshot-ref-parse-int') ? parseInt(ref, 10) : /^[0-9]+$/.test(ref) ? Number(ref) : NaN;
  // A release that resolves an alias among every property, not the integration's own (a fault): §1 says 404.
  const anyAlias = byAlias ?? (faults.has('snapshot-alias-any-integration') ? Array.from(r.values('properties')).find((p) => p.external_id === ref) : undefined);
  const property = (Number.isNaN(id) ? undefined : covered.find((p) => p.id === id)) ?? anyAlias;
  if (!property) throw notFound();
  return property;
}

export function snapshot(r: StoreReader, integration: Integration, kind: SnapshotKind, ref: string, from: IsoDate, to: IsoDate, now: number, faults: Faults = NO_FAULTS) {
  const property = coveredProperty(r, integration, ref, faults);
  // §4.8: both window violations are reported against `to`.
  if (to < from) throw invalid('to', 'Must be on or after from.');
  if (daysBetween(from, to) + 1 > SNAPSHOT_MAX_NIGHTS) throw invalid('to', `The window may span at most ${SNAPSHOT_MAX_NIGHTS} nights.`);
  // A release that counts the horizon from tomorrow lets `to` 731 days ahead through.
  const last = addDays(dateAt(now), SNAPSHOT_HORIZON_DAYS + (faults.has('snapshot-731-accepted') ? 1 : 0));
  if (to > last) throw invalid('to', `Must be at most ${SNAPSHOT_HORIZON_DAYS} days ahead (${last}).`);
  // The watermark rule: read the sequence first, then build the payload.
  const sequence = faults.has('watermark-unset') ? 0 : (r.get('integrations', String(integration.id))?.last_sequence ?? 0) + (faults.has('watermark-after-payload') ? 1 : 0);
  let data = windowedPayload(r, `${kind}.changed`, property, from, to, faults);
  if (faults.has('snapshot-differs-from-event')) data = JSON.parse(JSON.stringify(data, (_k, v) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).reverse()) : v)));
  return { sequence, property: { doorloom_id: property.id, external_id: property.external_id }, window: { from, to }, data };
}
