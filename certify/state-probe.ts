/**
 * The partner's optional state probe: how certification sees whether a
 * superseded or older event regressed the partner's copy (§3.3, §6.4).
 *
 * Contract (`--state-url URL`): `GET URL?property_id=<doorloom_id>&type=rates&date=<YYYY-MM-DD>`
 * answers 200 with the night as the partner holds it, a JSON object with the
 * fields of the event's `data.dates[]` entry (`base_rate`, ...), or 404 when
 * it holds nothing for that night. Read-only; no credentials.
 */
import { describeFetchFailure } from './fetch-failure.ts';

export interface StateQuery {
  property_id: number;
  type: 'rates';
  date: string;
}

/** The night as held, or null when the partner holds nothing for it. */
export type StateProbe = (q: StateQuery) => Promise<Record<string, unknown> | null>;

export function httpStateProbe(url: string, timeoutMs = 5_000): StateProbe {
  return async (q) => {
    const target = new URL(url);
    target.searchParams.set('property_id', String(q.property_id));
    target.searchParams.set('type', q.type);
    target.searchParams.set('date', q.date);
    const res = await fetch(target, { headers: { Accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs) }).catch((e: unknown) => {
      throw new Error(`the state probe ${url} gave no answer: ${describeFetchFailure(e, timeoutMs)}`);
    });
    if (res.status === 404) return null;
    const text = await res.text();
    if (res.status !== 200) throw new Error(`the state probe answered ${res.status}`);
    const body = JSON.parse(text) as unknown;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new Error('the state probe did not answer a JSON object');
    return body as Record<string, unknown>;
  };
}
