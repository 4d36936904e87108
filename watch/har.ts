/**
 * HAR 1.2 recordings (what browsers, Redocly's `proxy`, mitmproxy and most
 * gateways export) read as watch's exchanges: an entry whose URL lies below
 * the API root is a call to the API (`api`, its path taken below the root),
 * an entry carrying X-Service-Signature or X-Service-Integration is a webhook
 * delivery; the rest is not the API's and is counted, not judged. The API
 * key is turned into its credential id here, so nothing secret goes further.
 */
import { readFileSync } from 'node:fs';
import { INTEGRATION_HEADER, SIGNATURE_HEADER } from '../protocol/signature.ts';
import { credentialOf } from './credential.ts';
import type { WatchedExchange } from './exchange.ts';
import { RecordingError } from './jsonl.ts';

/** The API root below the base URL (§4: all paths are relative to `{base_url}/api/integrations/v1`). */
export const API_ROOT = '/api/integrations/v1';

export interface HarReading {
  exchanges: WatchedExchange[];
  /** Entries that are neither a call to the API nor a delivery. */
  unrelated: number;
}

interface HarHeader { name: string; value: string }

function headersOf(list: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!Array.isArray(list)) return out;
  for (const h of list as HarHeader[]) {
    if (typeof h?.name !== 'string') continue;
    const name = h.name.toLowerCase();
    // HTTP/2 pseudo-headers are not headers of the message.
    if (name.startsWith(':')) continue;
    out[name] = out[name] === undefined ? String(h.value) : `${out[name]}, ${String(h.value)}`;
  }
  return out;
}

/** HAR content text, decoded when the exporter stored it in base64 (§ HAR 1.2 `content.encoding`). */
function textOf(content: any): string {
  if (typeof content?.text !== 'string') return '';
  return content.encoding === 'base64' ? Buffer.from(content.text, 'base64').toString('utf8') : content.text;
}

/** Reads a HAR 1.2 file; `apiRoot` is the path below which the API's operations lie. */
export function readHar(file: string, apiRoot: string = API_ROOT): HarReading {
  let doc: any;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new RecordingError(`${file}: not a HAR file (${(err as Error).message})`);
  }
  const entries = doc?.log?.entries;
  if (!Array.isArray(entries)) throw new RecordingError(`${file}: not a HAR file (no log.entries)`);
  const exchanges: WatchedExchange[] = [];
  let unrelated = 0;
  entries.forEach((entry: any, i: number) => {
    const request = entry?.request;
    const response = entry?.response;
    let url: URL;
    try {
      url = new URL(request?.url);
    } catch {
      throw new RecordingError(`${file}: entry ${i} has no valid request.url`);
    }
    if (typeof entry.startedDateTime !== 'string' || Number.isNaN(Date.parse(entry.startedDateTime))) throw new RecordingError(`${file}: entry ${i} has no valid startedDateTime`);
    const requestHeaders = headersOf(request.headers);
    const at = new Date(Date.parse(entry.startedDateTime)).toISOString();
    const status = Number.isInteger(response?.status) && response.status > 0 ? response.status as number : null;
    // HAR timings up to the first byte of the answer (-1: not applicable), when the exporter gave them.
    const t = entry.timings ?? {};
    const untilAnswer = ['blocked', 'dns', 'connect', 'send', 'wait'].reduce((n, k) => n + Math.max(0, Number(t[k]) || 0), 0);
    const base = {
      at, ms: Math.max(0, Number(entry.time) || 0), ...(Number.isFinite(Number(t.wait)) && Number(t.wait) >= 0 ? { answerMs: untilAnswer } : {}), method: String(request.method ?? 'GET').toUpperCase(),
      requestBody: typeof request.postData?.text === 'string' ? request.postData.text : '',
      status, responseHeaders: headersOf(response?.headers), responseBody: textOf(response?.content),
    };
    const root = apiRoot.replace(/\/$/, '');
    const below = url.pathname.indexOf(`${root}/`);
    if (below >= 0) {
      const { authorization, ...rest } = requestHeaders;
      exchanges.push({ kind: 'api', ...base, path: url.pathname.slice(below + root.length) + url.search, requestHeaders: rest, credential: credentialOf(authorization) });
    } else if (requestHeaders[SIGNATURE_HEADER.toLowerCase()] !== undefined || requestHeaders[INTEGRATION_HEADER.toLowerCase()] !== undefined) {
      exchanges.push({ kind: 'delivery', ...base, path: url.pathname + url.search, requestHeaders });
    } else unrelated += 1;
  });
  return { exchanges, unrelated };
}
