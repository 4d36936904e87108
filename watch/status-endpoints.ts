/**
 * watch's own endpoints for a long-running monitor, answered on the proxy's
 * port before anything is forwarded: `/__watch/status` (JSON: exchanges
 * seen, the API calls not judged and why, findings per side and clause,
 * each rule's tally) and
 * `/__watch/metrics` (Prometheus text exposition format 0.0.4, the format
 * every dashboard reads). The API has no path under `/__watch/`.
 */
import type { Judge } from './judge.ts';
import type { LocalAnswer } from './proxy.ts';

export const STATUS_PATH = '/__watch/status';
export const METRICS_PATH = '/__watch/metrics';

/** The status document. */
export function watchStatus(judge: Judge, startedAt: string): Record<string, unknown> {
  const perSide = { platform: 0, partner: 0 };
  const perClause: Record<string, number> = {};
  for (const [key, n] of judge.perClause) {
    const [side, clause] = key.split(' ') as ['platform' | 'partner', string];
    perSide[side] += n;
    perClause[`${side} ${clause}`] = n;
  }
  return {
    startedAt,
    exchanges: { api: judge.seen.api, delivery: judge.seen.delivery },
    // API calls the platform's rules could not judge (issue 41): at no operation of the contract (astray: most often an
    // --upstream or a partner's base URL that is not the API root) and with no answer (the upstream unreachable). A
    // monitor sees a wrong root on the dashboard while the run goes on, not only in the run's closing gate (gate.ts).
    notJudged: { unmatched: judge.seen.unmatched, unanswered: judge.seen.unanswered, unmatchedFirst: [...judge.unmatchedFirst] },
    integrations: judge.streams.size,
    findings: { total: judge.seen.findings, perSide, perClause },
    rules: Object.fromEntries(judge.rules().map((r) => {
      const { observed, broken } = judge.tallies.get(r.id)!;
      return [r.id, { side: r.side, clauses: r.clauses, observed, broken }];
    })),
    internalErrors: judge.internalErrors.count,
  };
}

function label(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** The metrics in Prometheus text format. */
export function watchMetrics(judge: Judge): string {
  const lines: string[] = [];
  const family = (name: string, type: 'counter' | 'gauge', help: string, samples: [Record<string, string>, number][]) => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, value] of samples) {
      const text = Object.entries(labels).map(([k, v]) => `${k}="${label(v)}"`).join(',');
      lines.push(`${name}${text ? `{${text}}` : ''} ${value}`);
    }
  };
  family('watch_exchanges_total', 'counter', 'Exchanges judged, by kind (api: a call to the API; delivery: a webhook delivery).', [[{ kind: 'api' }, judge.seen.api], [{ kind: 'delivery' }, judge.seen.delivery]]);
  family('watch_unjudged_api_calls_total', 'counter', 'API calls not judged, by reason (unmatched: at no operation of the contract; unanswered: no answer from the upstream).', [[{ reason: 'unmatched' }, judge.seen.unmatched], [{ reason: 'unanswered' }, judge.seen.unanswered]]);
  family('watch_findings_total', 'counter', 'Findings, by side and clause of the API document.', [...judge.perClause].map(([key, n]) => {
    const [side, clause] = key.split(' ');
    return [{ side: side!, clause: clause! }, n];
  }));
  family('watch_rule_observations_total', 'counter', 'Times a rule had something to judge.', judge.rules().map((r) => [{ rule: r.id, side: r.side }, judge.tallies.get(r.id)!.observed]));
  family('watch_integrations', 'gauge', 'Integrations followed now (bounded).', [[{}, judge.streams.size]]);
  family('watch_internal_errors_total', 'counter', 'Exchanges watch failed to judge (its own bug; forwarding went on).', [[{}, judge.internalErrors.count]]);
  return `${lines.join('\n')}\n`;
}

/**
 * The answer to a request for a watch endpoint, made when its turn comes on its connection (`flush` first: the
 * exchanges still waiting for the judge are judged, so the counts include every exchange answered before);
 * undefined when the target is not one (it is forwarded).
 */
export function watchEndpoint(target: string, judge: Judge, startedAt: string, flush: () => void = () => {}): (() => LocalAnswer) | undefined {
  // Most requests are the API's: one test says so without splitting the target.
  if (!target.startsWith('/__watch/')) return undefined;
  const path = target.split('?')[0];
  if (path === STATUS_PATH) {
    return () => {
      flush();
      return { status: 200, contentType: 'application/json', body: `${JSON.stringify(watchStatus(judge, startedAt), null, 2)}\n` };
    };
  }
  if (path === METRICS_PATH) {
    return () => {
      flush();
      return { status: 200, contentType: 'text/plain; version=0.0.4; charset=utf-8', body: watchMetrics(judge) };
    };
  }
  return undefined;
}
