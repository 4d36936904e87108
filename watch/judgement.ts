/**
 * What a judgement of one exchange is handed: the exchange, its
 * integration's stream, the bodies parsed, and how to say that a rule was
 * observed or broken. Platform and partner judgements take it; the judge
 * (judge.ts) builds it per exchange.
 */
import type { BoundedMap } from './bounded-map.ts';
import type { WatchedExchange } from './exchange.ts';
import type { RuleId } from './rules.ts';
import type { IntegrationStream } from './stream-state.ts';
import type { ResponseCheck } from '../conformance/response-check.ts';

export interface Judgement {
  e: WatchedExchange;
  stream: IntegrationStream;
  /** The request body parsed as JSON (undefined when empty or not JSON). */
  request: any;
  /** The answer's body parsed as JSON (undefined when empty or not JSON). */
  response: any;
  /** The webhook secrets watch was given; empty when it was given none (signature rules are then not observed). */
  secrets: string[];
  toleranceSeconds: number;
  responses: ResponseCheck;
  /** Booking id → the integration it was created or first served under (§1 visibility). */
  owners: BoundedMap<number, string>;
  /** The rule had something to judge here. */
  judged(rule: RuleId): void;
  /** The rule is broken; `at` is the exchange it showed in when not this one. */
  breach(rule: RuleId, clause: string, kind: string, received: string, documented: string, at?: WatchedExchange): void;
}
