/**
 * Request bodies: read raw, bounded, parsed as JSON. Bad input is always a
 * 422 VALIDATION_FAILED envelope, never a 5xx.
 */
import type { Context } from 'koa';
import { invalid } from '../domain/errors.ts';

/** Larger bodies are refused before parsing (20 units of 2000-character notes fit well inside). */
export const MAX_BODY_BYTES = 1024 * 1024;

export async function readRaw(ctx: Context): Promise<Buffer> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > MAX_BODY_BYTES) throw invalid('_body', `The body may be at most ${MAX_BODY_BYTES} bytes.`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw invalid('_body', `The body may be at most ${MAX_BODY_BYTES} bytes.`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * The JSON body of a request that requires `Content-Type: application/json`.
 * `emptyAs` is what an empty body means (POST /sync: everything).
 */
export async function readJson(ctx: Context, emptyAs?: unknown): Promise<unknown> {
  const raw = await readRaw(ctx);
  if (raw.length === 0 && emptyAs !== undefined) return emptyAs;
  if (!ctx.is('application/json')) throw invalid('Content-Type', 'Must be application/json.');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    throw invalid('_body', 'The body is not valid UTF-8.');
  }
  try {
    // JSON.parse makes "__proto__" an own data property, never the prototype.
    return JSON.parse(text);
  } catch (e) {
    throw invalid('_body', `The body is not valid JSON: ${(e as Error).message}`);
  }
}
