/**
 * A finding: one breach seen in traffic, on the `platform` or the `partner`
 * side, naming its clause, what was received and what the document says, and
 * where (the exchange). Findings are printed one line each as they happen.
 */
import type { WatchedExchange } from './exchange.ts';
import { whereOf } from './exchange.ts';

export type Side = 'platform' | 'partner';

export interface Finding {
  side: Side;
  /** The watch rule that saw it (rules.ts). */
  rule: string;
  clause: string;
  /** A noun naming the breach, as the suite names its failures (`ReplayPageSkipped`). */
  kind: string;
  received: string;
  documented: string;
  /** The integration (its slug once known, else the credential id). */
  integration: string;
  /** The exchange the breach showed in. */
  exchange: WatchedExchange;
}

/** `platform 4.6.R4 ReplayPageSkipped: … (documented: …) at GET /events?… → 200 at …`. */
export function findingLine(f: Finding): string {
  return `${f.side} ${f.clause} ${f.kind}: ${f.received} (documented: ${f.documented}) [${f.integration}] at ${whereOf(f.exchange)}`;
}
