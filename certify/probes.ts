/**
 * Crafted deliveries: the certifier posts them straight to the partner's
 * receiver, signed (or mis-signed) on purpose, exactly as the platform's
 * delivery worker would post a delivery: JSON body, X-Service-Signature
 * (`t=<unix>,v1=<hex>`, spec x-assumption), X-Service-Integration, the 10 s
 * delivery time-out. Bodies are genuine envelopes of the integration (or a
 * ping), so a receiver that wrongly accepts one applies nothing false.
 */
import { randomBytes } from 'node:crypto';
import { DELIVERY_TIMEOUT_MS } from '../simulator/domain/delivery.ts';
import { API_VERSION } from '../spec/document-tables.ts';
import { INTEGRATION_HEADER, SIGNATURE_HEADER, signatureHeader } from '../protocol/signature.ts';
import { describeFetchFailure } from './fetch-failure.ts';
import type { DeliveryEvidence } from './types.ts';

/** Further from the receiver's clock than the 5-minute tolerance of the contract, and unambiguously so. */
export const STALE_SECONDS = 900;

export interface ProbeSpec {
  name: string;
  body: string;
  /** The X-Service-Signature header, or null to leave it out. */
  signature: string | null;
  integrationHeader: string | null;
}

/** A ping as the platform sends it (§6.6; spec webhooks.ping): it consumes no sequence and changes nothing. */
export function pingBody(integration: { id: number; slug: string }, lastSequence: number, occurredAt: string): string {
  return JSON.stringify({ type: 'ping', version: API_VERSION, occurred_at: occurredAt, integration: { id: integration.id, slug: integration.slug }, last_sequence: lastSequence });
}

/** The header as the platform would sign `body` at unix time `t` with `secrets` (current first). */
export function signed(secrets: readonly string[], t: number, body: string): string {
  return signatureHeader([...secrets], t, body);
}

/** A secret of the right shape that the partner was never given. */
export function strangerSecret(): string {
  return `whsec_${randomBytes(24).toString('hex')}`;
}

export interface ProbeContext {
  url: string;
  slug: string;
  /** Platform time now, ms. */
  now: () => number;
  stamp: (ms?: number) => string;
  timeoutMs?: number;
}

/** The five deliveries of the receiver checks, built around one genuine body. */
export function receiverProbes(ctx: Pick<ProbeContext, 'slug'>, secrets: readonly string[], body: string, nowSeconds: number, otherSlug: string): ProbeSpec[] {
  return [
    { name: 'redelivery', body, signature: signed(secrets, nowSeconds, body), integrationHeader: ctx.slug },
    { name: 'wrong-signature', body, signature: signed([strangerSecret()], nowSeconds, body), integrationHeader: ctx.slug },
    { name: 'missing-signature', body, signature: null, integrationHeader: ctx.slug },
    { name: 'stale-timestamp', body, signature: signed(secrets, nowSeconds - STALE_SECONDS, body), integrationHeader: ctx.slug },
    { name: 'wrong-integration', body, signature: signed(secrets, nowSeconds, body), integrationHeader: otherSlug },
  ];
}

/** Posts one crafted delivery; never throws (no answer is evidence too). */
export async function deliver(ctx: ProbeContext, spec: ProbeSpec): Promise<DeliveryEvidence> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (spec.signature !== null) headers[SIGNATURE_HEADER] = spec.signature;
  if (spec.integrationHeader !== null) headers[INTEGRATION_HEADER] = spec.integrationHeader;
  let parsed: { type?: string; sequence?: number } = {};
  try {
    parsed = JSON.parse(spec.body);
  } catch {
    // Sent as is; the evidence says `?`.
  }
  const at = ctx.now();
  const started = performance.now();
  const base = {
    source: 'probe' as const,
    name: spec.name,
    at: ctx.stamp(at),
    type: parsed.type ?? '?',
    sequence: typeof parsed.sequence === 'number' ? parsed.sequence : null,
    signature: spec.signature,
    integrationHeader: spec.integrationHeader,
  };
  try {
    const res = await fetch(ctx.url, { method: 'POST', headers, body: spec.body, redirect: 'manual', signal: AbortSignal.timeout(ctx.timeoutMs ?? DELIVERY_TIMEOUT_MS) });
    await res.arrayBuffer().catch(() => undefined);
    return { ...base, status: res.status, ms: Math.round(performance.now() - started) };
  } catch (e) {
    const error = describeFetchFailure(e, ctx.timeoutMs ?? DELIVERY_TIMEOUT_MS);
    const timedOut = (e as Error | undefined)?.name === 'TimeoutError' ? { timedOut: true as const } : {};
    return { ...base, status: null, error, ...timedOut, ms: Math.round(performance.now() - started) };
  }
}
