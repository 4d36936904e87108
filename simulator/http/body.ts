/**
 * Request bodies: read raw, bounded, parsed as JSON. Bad input is always a
 * 422 VALIDATION_FAILED envelope, never a 5xx.
 */
import type { Context } from 'koa';
import { DomainError, invalid } from '../domain/errors.ts';
import { scanJsonText } from '../domain/json-text.ts';
import { addFieldError, newFieldErrors } from '../../spec/field-errors.ts';

/** Larger bodies are refused before parsing (20 units of 2000-character notes fit well inside). */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The client went away, or overran the server's time limit, before its body
 * arrived (Node's `aborted`): nobody is left to answer, and it is no bug, so
 * it is neither answered nor logged as an unexpected 500 (issue 29).
 */
export class RequestAbortedError extends Error {}

export async function readRaw(ctx: Context): Promise<Buffer> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > MAX_BODY_BYTES) throw invalid('_body', `The body may be at most ${MAX_BODY_BYTES} bytes.`);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) throw invalid('_body', `The body may be at most ${MAX_BODY_BYTES} bytes.`);
      chunks.push(chunk);
    }
  } catch (e) {
    // Stryker disable all: the client went away before its body arrived (issue 29): nobody is left to answer
    if (e instanceof DomainError) throw e;
    throw new RequestAbortedError(`the request body did not arrive: ${(e as Error).message}`);
  }
  // Stryker restore all
  return Buffer.concat(chunks);
}

/**
 * Deeper bodies are refused before parsing. The parsed body is walked
 * recursively afterwards (the §4.5 rule 1 fingerprint, validation, the stored
 * answer), and a body within MAX_BODY_BYTES can nest half a million levels,
 * which overflowed the stack and answered 500. No documented field nests
 * deeper than 3; the free-form `pricing.breakdown` keeps ample room.
 */
export const MAX_BODY_DEPTH = 64;

/** True when the JSON text opens more than `limit` arrays or objects at once (brackets in strings do not count). */
function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
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
  if (nestsDeeperThan(text, MAX_BODY_DEPTH)) throw invalid('_body', `The body may nest at most ${MAX_BODY_DEPTH} levels of arrays and objects.`);
  let value: unknown;
  try {
    // JSON.parse makes "__proto__" an own data property, never the prototype.
    value = JSON.parse(text);
  } catch (e) {
    throw invalid('_body', `The body is not valid JSON: ${(e as Error).message}`);
  }
  // Issue 17: numbers as sent. A number a double cannot hold unchanged is refused (it would be stored
  // and fingerprinted as something else); the canonical text keeps the rest for the §4.5 rule 1 fingerprint.
  const scan = scanJsonText(text);
  if (scan.unholdable.length > 0) {
    // Paths are the sender's keys (`constructor`, `__proto__`): a map without a prototype (issue 29).
    const errors = newFieldErrors();
    // Stryker disable next-line StringLiteral,ConditionalExpression,EqualityOperator,MethodExpression: message wording (§7: a field error is a string, never a text)
    for (const n of scan.unholdable) addFieldError(errors, n.path, `The number ${n.text.length > 40 ? `${n.text.slice(0, 40)}…` : n.text} cannot be kept as sent: ${n.reason}.`);
    throw new DomainError('VALIDATION_FAILED', errors);
  }
  ctx.state.bodyCanonical = scan.canonical;
  return value;
}

/**
 * A request that takes no body (staff actions such as rotate-api-key): a body
 * is refused with 422 before anything happens, except an empty JSON object
 * (`{}` as application/json, which clients send out of habit and which asks
 * for nothing). Issue 17: random bytes sent as text/plain to rotate-api-key
 * answered 200 and rotated the key.
 */
// Stryker disable all: only the staff control plane's actions (rotate-api-key and the like) read a request this way, not the partner API
export async function readNothing(ctx: Context): Promise<void> {
  const raw = await readRaw(ctx);
  if (raw.length === 0) return;
  if (ctx.is('application/json') && /^\s*\{\s*\}\s*$/.test(raw.toString('latin1'))) return;
  throw invalid('_body', 'This action takes no body.');
}
