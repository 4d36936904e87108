/**
 * Why a request got no answer, in the words a partner can act on: undici's
 * `fetch` throws "fetch failed" and keeps the cause (the socket error, with
 * its code, address and port) one level down, or several when a host name
 * resolved to more than one address (an AggregateError).
 */
export function describeFetchFailure(e: unknown, timeoutMs?: number): string {
  const err = e as Error & { cause?: unknown };
  if (err?.name === 'TimeoutError') return timeoutMs === undefined ? 'no answer in time' : `no answer within ${timeoutMs} ms`;
  const causes = socketErrors(err?.cause ?? err);
  if (causes.length > 0) return [...new Set(causes)].join('; ');
  return err?.message ?? String(e);
}

interface SocketError { code?: string; address?: string; port?: number; message?: string; errors?: unknown[]; cause?: unknown }

function socketErrors(value: unknown, depth = 0): string[] {
  if (value === null || typeof value !== 'object' || depth > 4) return [];
  const s = value as SocketError;
  if (Array.isArray(s.errors) && s.errors.length > 0) return s.errors.flatMap((x) => socketErrors(x, depth + 1));
  if (typeof s.code === 'string') {
    const where = s.address ? ` ${s.address.includes(':') ? `[${s.address}]` : s.address}${s.port ? `:${s.port}` : ''}` : '';
    return [`${s.code}${where}`];
  }
  return s.cause ? socketErrors(s.cause, depth + 1) : [];
}
