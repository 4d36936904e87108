/**
 * Which request a client may send again when its connection closed before any answer (RFC 9110 §9.2.2, and §4.5 for the
 * partner API's create): one rule for the suite's clients (conformance/resend.ts) and npm run sandbox's proxy
 * (simulator/sandbox.ts), which both import it from here.
 */
import { IDEMPOTENCY_KEY_LENGTH } from './idempotency-key.ts';

/** The methods RFC 9110 §9.2.2 defines as idempotent. */
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);

/** What the rule needs to know of a request. */
export interface Call {
  method: string;
  /**
   * The caller's word that this call is idempotent by its meaning though its method is not: a POST that sets a state
   * (pause, resume), or `POST /clock/advance` of 0 s, which moves nothing and sends what is due. Without it a POST is
   * sent again only as a create under a usable Idempotency-Key (`keyedCreate`: the document's word, §4.5). GET, PUT and
   * DELETE need no word: they are idempotent by their method.
   */
  idempotent?: boolean;
  /** The path it goes to (a query after it is ignored): a POST is a partner API create when it ends in `/bookings`. */
  path?: string;
  /** The headers it carries, any spelling of their names (a fetch init's, or Node's IncomingMessage's). */
  headers?: Readonly<Record<string, string | string[] | undefined>>;
}


/** §4.5: `POST /bookings`, whatever base path is before it. */
export const isCreate = (call: Call) => call.method.toUpperCase() === 'POST' && /\/bookings$/.test((call.path ?? '').split('?')[0]!);

/**
 * Whether `call` is a partner API create under a usable Idempotency-Key: a POST to `…/bookings` carrying one key of 8
 * to 128 characters. Why it may be sent again: §4.5 rule 1, the same key and body within 24 hours replays the original
 * answer (refusals too) and creates nothing new; rule 3, an identical create still being processed answers 409
 * IN_PROGRESS and writes nothing. Sent twice, it has the effect of once: idempotent by the document's meaning.
 * A create without a key, or with an unusable one (missing, repeated, too short or too long: rule 2's 422
 * IDEMPOTENCY_KEY_REQUIRED), has no such promise, and a key on any other POST (POST /sync, whose calls count against
 * §8's daily cap, refusals included) promises nothing either.
 */
export function keyedCreate(call: Call): boolean {
  if (!isCreate(call)) return false;
  const keys = Object.entries(call.headers ?? {}).filter(([name, value]) => name.toLowerCase() === 'idempotency-key' && value !== undefined);
  if (keys.length !== 1) return false;
  const key = keys[0]![1];
  return typeof key === 'string' && key.length >= IDEMPOTENCY_KEY_LENGTH.min && key.length <= IDEMPOTENCY_KEY_LENGTH.max;
}

/**
 * Whether `call` may be sent again (RFC 9110 §9.2.2): by its method, by its caller's word, or as a create under a usable
 * Idempotency-Key (§4.5 rules 1 and 3: `keyedCreate`).
 */
export function resendable(call: Call): boolean {
  return IDEMPOTENT_METHODS.has(call.method.toUpperCase()) || call.idempotent === true || keyedCreate(call);
}
