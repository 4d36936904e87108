/**
 * The one judge of traffic: fed exchanges in order of time — by the live
 * proxy and webhook forwarder as they complete, or from a HAR or JSONL
 * recording — it finds each one's integration, runs the partner and the
 * platform judgements over it, and keeps what each rule observed and broke.
 * Pure: no clock, no I/O; a finding is handed to `onFinding` as it happens.
 */
import { ResponseCheck } from '../conformance/response-check.ts';
import { BoundedMap } from './bounded-map.ts';
import { jsonOf, splitPath, type WatchedExchange } from './exchange.ts';
import type { Finding, Side } from './findings.ts';
import type { Judgement } from './judgement.ts';
import { judgePartnerAnswer, judgePartnerCall } from './partner-judgements.ts';
import { judgeDelivery, judgePlatformAnswer } from './platform-judgements.ts';
import { ruleOf, WATCH_RULES, type RuleId } from './rules.ts';
import { DEFAULT_LIMITS, Streams, type IntegrationStream, type StreamLimits } from './stream-state.ts';
import { DEFAULT_TOLERANCE_SECONDS } from '../protocol/signature.ts';

/** How many unmatched calls are kept to be named. */
const UNMATCHED_KEPT = 5;

export interface JudgeOptions {
  /** Webhook secrets (current and previous): without them, signature rules are not observed. */
  secrets?: string[];
  /** The sides judged (default both): `platform` alone for a test tool's traffic, which breaks partner guidance on purpose. */
  sides?: Side[];
  limits?: Partial<StreamLimits>;
  toleranceSeconds?: number;
  responses?: ResponseCheck;
  onFinding?: (finding: Finding) => void;
  /** Findings kept for the report (all are counted and handed to onFinding). */
  keepFindings?: number;
}

/** What one rule saw: how often it judged, how often it was broken, and its first finding. */
export interface RuleTally {
  observed: number;
  broken: number;
  first?: Finding;
}

export class Judge {
  readonly streams: Streams;
  readonly findings: Finding[] = [];
  readonly tallies = new Map<RuleId, RuleTally>(WATCH_RULES.map((r) => [r.id, { observed: 0, broken: 0 }]));
  /** Findings per `side clause`. */
  readonly perClause = new Map<string, number>();
  /**
   * Exchanges seen; of the API calls, those with no answer (the upstream unreachable) and those whose method and path
   * match no operation of the contract (not judged: most often an API root that is not the platform's).
   */
  readonly seen = { api: 0, delivery: 0, findings: 0, unanswered: 0, unmatched: 0 };
  /** The first API calls that matched no operation (`GET /api/integrations/v1/me`), to say where traffic went astray. */
  readonly unmatchedFirst: string[] = [];
  /** Exchanges the judge itself failed on (a bug of watch, never of the traffic): counted and said, never fatal. */
  readonly internalErrors: { count: number; last?: string } = { count: 0 };
  private readonly sides: Set<Side>;
  private readonly owners: BoundedMap<number, string>;
  private readonly responses: ResponseCheck;

  constructor(private readonly options: JudgeOptions = {}) {
    const limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.streams = new Streams(limits);
    this.owners = new BoundedMap(limits.bookings);
    this.sides = new Set(options.sides ?? ['platform', 'partner']);
    this.responses = options.responses ?? new ResponseCheck();
  }

  /** Judges one exchange; returns the findings it gave. */
  observe(e: WatchedExchange): Finding[] {
    const found: Finding[] = [];
    this.seen[e.kind] += 1;
    if (e.kind === 'api') this.countUnjudged(e);
    try {
      const request = jsonOf(e.requestBody);
      const response = jsonOf(e.responseBody);
      const stream = e.kind === 'api' ? this.apiStream(e, response) : this.deliveryStream(e, request);
      const j = this.judgement(e, stream, request, response, found);
      // The partner side, when not judged, is not computed: its state is its own (the platform's judgements read none
      // of it, while the partner's read the keys and attempts the platform's record, so those always run).
      const partner = this.sides.has('partner');
      if (e.kind === 'api') {
        if (partner) judgePartnerCall(j);
        judgePlatformAnswer(j);
      } else {
        if (partner) judgePartnerAnswer(j);
        judgeDelivery(j);
      }
    } catch (err) {
      this.internalErrors.count += 1;
      this.internalErrors.last = `${e.method} ${e.path}: ${err instanceof Error ? err.stack ?? err.message : String(err)}`;
    }
    return found;
  }

  /** An API call watch cannot judge the platform by: no answer, or no operation of the contract at its path. */
  private countUnjudged(e: WatchedExchange): void {
    if (e.status === null) this.seen.unanswered += 1;
    else if (!this.responses.operation(e.method, splitPath(e.path).pathname)) {
      this.seen.unmatched += 1;
      if (this.unmatchedFirst.length < UNMATCHED_KEPT) this.unmatchedFirst.push(`${e.method} ${splitPath(e.path).pathname}`);
    }
  }

  /** API calls with an answer at a path of the contract: what the platform's rules could judge. */
  get judgedApi(): number {
    return this.seen.api - this.seen.unanswered - this.seen.unmatched;
  }

  /** Rules of the judged sides that traffic gave something to judge. */
  observedRules(): number {
    return this.rules().filter((r) => this.tallies.get(r.id)!.observed > 0).length;
  }

  /** Whether any rule of a judged side was broken. */
  get broken(): boolean {
    return this.seen.findings > 0;
  }

  /** Rules of the judged sides. */
  rules(): (typeof WATCH_RULES)[number][] {
    return WATCH_RULES.filter((r) => this.sides.has(r.side));
  }

  private apiStream(e: WatchedExchange, response: any): IntegrationStream {
    const credential = e.credential ?? 'anonymous';
    const { pathname } = splitPath(e.path);
    // An answer that names the integration ties the key to its slug (deliveries carry the slug, §6.3).
    let slug: unknown;
    if (e.status === 200 && pathname === '/me') slug = response?.data?.slug;
    else if (e.status === 200 && pathname === '/events' && Array.isArray(response?.data)) slug = response.data[0]?.event?.integration?.slug;
    return typeof slug === 'string' && credential !== 'anonymous' ? this.streams.bind(credential, slug) : this.streams.forCredential(credential);
  }

  private deliveryStream(e: WatchedExchange, envelope: any): IntegrationStream {
    const slug = typeof envelope?.integration?.slug === 'string' ? envelope.integration.slug : e.requestHeaders['x-service-integration'] ?? 'unknown';
    return this.streams.forSlug(slug);
  }

  private judgement(e: WatchedExchange, stream: IntegrationStream, request: any, response: any, found: Finding[]): Judgement {
    return new ExchangeJudgement(this, this.options, e, stream, request, response, found);
  }

  /** Whether `side` is judged. */
  judges(side: Side): boolean {
    return this.sides.has(side);
  }

  /** @internal the owners map handed to judgements. */
  get bookingOwners(): BoundedMap<number, string> {
    return this.owners;
  }

  /** @internal the response check handed to judgements. */
  get responseCheck(): ResponseCheck {
    return this.responses;
  }
}

/**
 * The judgement of one exchange: a class rather than an object of closures, so that judging an exchange makes no
 * function objects (a fifth of the CPU of judging a `GET /me` went to making them).
 */
class ExchangeJudgement implements Judgement {
  readonly secrets: string[];
  readonly toleranceSeconds: number;
  readonly responses: ResponseCheck;
  readonly owners: BoundedMap<number, string>;

  constructor(
    private readonly judge: Judge,
    private readonly options: JudgeOptions,
    readonly e: WatchedExchange,
    readonly stream: IntegrationStream,
    readonly request: any,
    readonly response: any,
    private readonly found: Finding[],
  ) {
    this.secrets = options.secrets ?? [];
    this.toleranceSeconds = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
    this.responses = judge.responseCheck;
    this.owners = judge.bookingOwners;
  }

  judged(rule: RuleId): void {
    if (!this.judge.judges(ruleOf(rule).side)) return;
    this.judge.tallies.get(rule)!.observed += 1;
  }

  breach(rule: RuleId, clause: string, kind: string, received: string, documented: string, at?: WatchedExchange): void {
    const { side } = ruleOf(rule);
    const judge = this.judge;
    if (!judge.judges(side)) return;
    const finding: Finding = { side, rule, clause, kind, received, documented, integration: this.stream.name, exchange: at ?? this.e };
    const tally = judge.tallies.get(rule)!;
    tally.broken += 1;
    tally.first ??= finding;
    judge.seen.findings += 1;
    judge.perClause.set(`${side} ${clause}`, (judge.perClause.get(`${side} ${clause}`) ?? 0) + 1);
    if (judge.findings.length < (this.options.keepFindings ?? 1_000)) judge.findings.push(finding);
    this.found.push(finding);
    this.options.onFinding?.(finding);
  }
}
