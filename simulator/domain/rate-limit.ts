/**
 * §7 RATE_LIMITED: a fixed-window counter per integration. The numbers are
 * an assumption (spec X-RateLimit-Limit); each response carries the
 * X-RateLimit-* headers, and a refusal adds Retry-After.
 */
import { DomainError } from './errors.ts';
import type { Integration } from './model.ts';
import type { Transaction } from '../store/store.ts';

export type RateLimitHeaders = {
  'X-RateLimit-Limit': string;
  'X-RateLimit-Remaining': string;
  'X-RateLimit-Reset': string;
};

/** Counts one request; throws RATE_LIMITED (with headers) once the window is spent. */
export function spend(tx: Transaction, integration: Integration, now: number): RateLimitHeaders {
  const { limit, window_seconds } = integration.rate_limit;
  const windowMs = window_seconds * 1000;
  const key = String(integration.id);
  const current = tx.get('rateWindows', key);
  const window = current && now - current.started_at < windowMs && now >= current.started_at ? current : { started_at: now, count: 0 };
  const reset = Math.max(1, Math.ceil((window.started_at + windowMs - now) / 1000));
  if (window.count >= limit) {
    const headers = { 'X-RateLimit-Limit': String(limit), 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': String(reset) };
    throw new DomainError('RATE_LIMITED', {}, undefined, { ...headers, 'Retry-After': String(reset) });
  }
  tx.put('rateWindows', key, { started_at: window.started_at, count: window.count + 1 });
  return { 'X-RateLimit-Limit': String(limit), 'X-RateLimit-Remaining': String(limit - window.count - 1), 'X-RateLimit-Reset': String(reset) };
}
