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
import { isCreate, resendable, type Call } from '../protocol/resend-rule.ts';
import { unreachableCause } from './unreachable.ts';

export { keyedCreate, resendable, type Call } from '../protocol/resend-rule.ts';

/** Times a request whose connection closed before any answer is sent again, at most: a server that closes twice running is not busy but broken. */
export const RESENDS = 1;

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
