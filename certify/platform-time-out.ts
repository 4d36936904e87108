/**
 * Which of the platform's delivery errors is a time-out. The document shows
 * no delivery time-out (§6 gaps), so an attempt the platform gave up on
 * waiting for is no refusal by the partner: on a loaded machine it is the
 * machine's lateness (issue 38). Read from the simulator's delivery log, in
 * its words: the transport's for a post that ran out, the delivery worker's
 * for a clock moved past an attempt in flight. Any other error is a refused
 * or cut connection.
 */
const TIME_OUT = /^(no answer within \d+ ms|timed out)$/;

export function platformTimedOut(error: string): boolean {
  return TIME_OUT.test(error);
}
