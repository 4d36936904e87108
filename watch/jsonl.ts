/**
 * watch's own capture format, JSONL: one exchange (exchange.ts) per line, in
 * the order they were judged. `--record FILE` appends each line as it passes
 * (nothing is held in memory: Redocly's `proxy` keeps its captures the same
 * way), with every secret redacted; `--jsonl FILE` reads it back to be judged
 * offline by the same judge.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { redact } from '../conformance/redact.ts';
import { redactSecrets } from '../reporting/write.ts';
import type { WatchedExchange } from './exchange.ts';

/** Headers whose whole value is a credential: never written. */
const SECRET_HEADERS = new Set(['authorization', 'cookie', 'set-cookie', 'proxy-authorization']);

/** The exchange with every credential replaced by `<redacted>` (the signature header stays: it is a MAC, not a secret). */
export function redactExchange(e: WatchedExchange, known: string[] = []): WatchedExchange {
  const clean = (s: string) => redactSecrets(redact(s, known));
  const headers = (h: Record<string, string>) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k, SECRET_HEADERS.has(k) ? '<redacted>' : clean(v)]));
  return {
    ...e,
    path: clean(e.path),
    requestHeaders: headers(e.requestHeaders),
    requestBody: clean(e.requestBody),
    responseHeaders: headers(e.responseHeaders),
    responseBody: clean(e.responseBody),
  };
}

/** Appends exchanges to a JSONL file, one line each, redacted. */
export class JsonlRecorder {
  constructor(readonly file: string, private readonly secrets: string[] = []) {}

  record(e: WatchedExchange): void {
    appendFileSync(this.file, `${JSON.stringify(redactExchange(e, this.secrets))}\n`, { encoding: 'utf8', mode: 0o600 });
  }
}

/** A recording that cannot be read, naming the file and line. */
export class RecordingError extends Error {}

/** The exchanges of a JSONL recording, in file order; throws RecordingError naming the first bad line. */
export function readJsonl(file: string): WatchedExchange[] {
  const text = readFileSync(file, 'utf8');
  const out: WatchedExchange[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let e: any;
    try {
      e = JSON.parse(line);
    } catch (err) {
      throw new RecordingError(`${file}:${i + 1}: not JSON (${(err as Error).message})`);
    }
    if ((e?.kind !== 'api' && e?.kind !== 'delivery') || typeof e.at !== 'string' || Number.isNaN(Date.parse(e.at)) || typeof e.method !== 'string' || typeof e.path !== 'string') {
      throw new RecordingError(`${file}:${i + 1}: not an exchange (kind api|delivery, at, method, path are required)`);
    }
    out.push({
      kind: e.kind, at: e.at, ms: Number(e.ms) || 0, ...(Number.isFinite(e.answerMs) ? { answerMs: Number(e.answerMs) } : {}), method: e.method.toUpperCase(), path: e.path,
      requestHeaders: lowerKeys(e.requestHeaders), requestBody: typeof e.requestBody === 'string' ? e.requestBody : '',
      status: Number.isInteger(e.status) ? e.status : null,
      responseHeaders: lowerKeys(e.responseHeaders), responseBody: typeof e.responseBody === 'string' ? e.responseBody : '',
      ...(typeof e.credential === 'string' ? { credential: e.credential } : {}),
      ...(e.truncated === true ? { truncated: true } : {}),
    });
  });
  return out;
}

function lowerKeys(h: unknown): Record<string, string> {
  if (h === null || typeof h !== 'object') return {};
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), String(v)]));
}
