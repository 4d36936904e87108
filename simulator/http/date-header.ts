/**
 * The `Date` header of every answer (RFC 9110 §6.6.1: the origin server's
 * clock). The simulator's clock is the virtual one staff can move, so a
 * client that reads the platform's time from its answers, as the conformance
 * suite does on a live target without a control plane, sees the moved clock,
 * not this machine's (Node would write the host's time).
 */
export function httpDateHeader(now: () => number): () => string {
  let second = Number.NaN;
  let text = '';
  // Formatted once per second of platform time: GET /me is the hot path.
  return () => {
    const s = Math.floor(now() / 1000);
    if (s !== second) {
      second = s;
      text = new Date(s * 1000).toUTCString();
    }
    return text;
  };
}
