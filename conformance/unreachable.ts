/**
 * A target that does not answer: Node's fetch throws `TypeError: fetch failed`
 * and hides the reason (ECONNREFUSED, ENOTFOUND, a certificate error) in
 * `cause`. Both the preflight and the client name it. Whether a call that got
 * no answer is sent again is resend.ts's to decide.
 */

/** The target stopped answering during a check: an error of the run, named by its cause, not a breach. */
export class TargetUnreachable extends Error {
  override name = 'TargetUnreachable';
}

/** Why fetch failed, from the cause Node hides under `TypeError: fetch failed`. */
export function unreachableCause(e: unknown): string {
  const err = e as { name?: string; message?: string; cause?: { code?: string; message?: string; errors?: { code?: string }[] } };
  if (err?.name === 'TimeoutError') return 'no answer within the time-out';
  const cause = err?.cause;
  const code = cause?.code ?? cause?.errors?.find((x) => x.code)?.code;
  if (code) return cause?.message && !cause.message.startsWith(code) ? `${code} (${cause.message})` : code;
  return cause?.message ?? err?.message ?? String(e);
}

