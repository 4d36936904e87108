/**
 * Sending a request again when its connection closed before any answer, and only a request that may be: the one rule
 * every client of a platform follows here, for the partner API (client.ts, preflight.ts) and for the staff and control
 * planes (control.ts, certify/stage.ts, scenarios/kit/staff.ts).
 *
 * A busy server loses such a request in the plainest way: a keep-alive socket it closed as idle just as the request
 * went out on it (Node's server closes one after 5 s idle by default, fetch reuses it for up to a second less, and a loaded
 * machine loses that margin), or a connection it reset. RFC 9110 §9.2.2: a client may then send an idempotent request
 * again, since sending it twice has the effect of sending it once; it does not resend a non-idempotent one on its own,
 * since the server may have applied it before the connection went. The partner API's create is a POST the document
 * makes idempotent by its Idempotency-Key (§4.5 rules 1 and 3, `keyedCreate`); npm run sandbox's proxy
 * (simulator/sandbox.ts) forwards a request again on the same rule.
 */
import { unreachableCause } from './unreachable.ts';

/** Times a request whose connection closed before any answer is sent again, at most: a server that closes twice running is not busy but broken. */
export const RESENDS = 1;

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

/** §8: an Idempotency-Key is 8 to 128 characters; outside them it is unusable (§4.5 rule 2). */
const KEY_LENGTH = { min: 8, max: 128 } as const;

/** §4.5: `POST /bookings`, whatever base path is before it. */
const isCreate = (call: Call) => call.method.toUpperCase() === 'POST' && /\/bookings$/.test((call.path ?? '').split('?')[0]!);

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
  return typeof key === 'string' && key.length >= KEY_LENGTH.min && key.length <= KEY_LENGTH.max;
}

/** The call got no answer: `cause` is what fetch threw the last time, `note` says whether it was sent again and why not. */
export class NoAnswer extends Error {
  override name = 'NoAnswer';
  constructor(override readonly cause: unknown, readonly note: string) {
    super(`no answer: ${unreachableCause(cause)}${note}`, { cause });
  }
}

/**
 * The connection closed before any answer came: undici's "other side closed" (UND_ERR_SOCKET) or a reset
 * (ECONNRESET), thrown by fetch itself, so before the answer's head was read. A time-out is not one (the answer may be
 * in progress), and neither is a body cut off once the head arrived (fetch has resolved then; reading the body throws).
 * A server that sent part of a status line and then closed is reported the same as one that sent nothing; only an
 * idempotent call is resent on it, which RFC 9110 §9.2.2 allows after any failed connection.
 */
export function closedBeforeAnswer(e: unknown): boolean {
  const code = (e as { cause?: { code?: string } })?.cause?.code;
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET';
}

/**
 * Whether `call` may be sent again (RFC 9110 §9.2.2): by its method, by its caller's word, or as a create under a usable
 * Idempotency-Key (§4.5 rules 1 and 3: `keyedCreate`).
 */
export function resendable(call: Call): boolean {
  return IDEMPOTENT_METHODS.has(call.method.toUpperCase()) || call.idempotent === true || keyedCreate(call);
}

/** Why a call that lost its connection was not sent again, for NoAnswer's note. */
function notResentBecause(call: Call): string {
  const method = call.method.toUpperCase();
  const why = isCreate(call) ? 'this create carries no usable Idempotency-Key (§4.5 rules 1 and 2), so it is not idempotent' : `this ${method} is not idempotent`;
  return `; not sent again: ${why} (RFC 9110 §9.2.2), and the platform may or may not have applied it`;
}

/**
 * `send()`, and once more (`RESENDS`) when its connection closed before any answer and the call is idempotent.
 * Rejects only with `NoAnswer`, whose note says why a call that lost its connection was not sent again: the caller
 * names the call and the cause in its own words and appends the note. `send` is told which sending this is (1, then 2
 * for the resend): an answer to a resend may need reading as one (client.ts: 409 IN_PROGRESS to a resent create).
 */
export async function sendResending<T>(call: Call, send: (sent: number) => Promise<T>): Promise<T> {
  for (let sent = 1; ; sent++) {
    try {
      return await send(sent);
    } catch (e) {
      if (!closedBeforeAnswer(e)) throw new NoAnswer(e, sent > 1 ? `; sent ${times(sent)}, the connection closed before any answer the first time` : '');
      if (!resendable(call)) throw new NoAnswer(e, notResentBecause(call));
      if (sent > RESENDS) throw new NoAnswer(e, `; sent ${times(sent)}, the connection closed before any answer each time`);
    }
  }
}

const times = (n: number) => (n === 2 ? 'twice' : `${n} times`);
