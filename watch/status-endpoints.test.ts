import { describe, expect, it } from 'vitest';
import { Judge } from './judge.ts';
import { watchMetrics, watchStatus } from './status-endpoints.ts';
import { envelope, Traffic } from './test-support.ts';

function judgeWithFinding(): Judge {
  const t = new Traffic();
  const judge = new Judge();
  judge.observe(t.delivery(envelope(2)));
  judge.observe(t.delivery(envelope(1)));
  return judge;
}

describe('/__watch/status and /__watch/metrics', () => {
  it('status counts exchanges and findings per side and clause', () => {
    const status = watchStatus(judgeWithFinding(), '2026-10-01T10:00:00.000Z') as any;
    expect(status.exchanges).toEqual({ api: 0, delivery: 2 });
    expect(status.notJudged).toEqual({ unmatched: 0, unanswered: 0, unmatchedFirst: [] });
    expect(status.findings.perSide).toEqual({ platform: 1, partner: 0 });
    expect(status.findings.perClause).toEqual({ 'platform 6.R2a': 1 });
    expect(status.rules['platform.delivery-order']).toMatchObject({ observed: 2, broken: 1 });
  });

  it('metrics are Prometheus text: HELP and TYPE before each family, labels for side and clause', () => {
    const text = watchMetrics(judgeWithFinding());
    expect(text).toContain('# TYPE watch_findings_total counter\nwatch_findings_total{side="platform",clause="6.R2a"} 1\n');
    expect(text).toContain('watch_exchanges_total{kind="delivery"} 2');
    // Every sample line is `name{labels} value` or `name value` (exposition format 0.0.4).
    for (const line of text.trim().split('\n').filter((l) => !l.startsWith('#'))) expect(line).toMatch(/^[a-z_]+(\{[^}]*\})? \d+$/);
  });

  it('astray calls (at no operation of the contract) and unanswered ones are counted in status and metrics while the run goes on', () => {
    const t = new Traffic();
    const judge = new Judge();
    // The partner calls below the origin, not the API root (issue 41 item 1): nothing of it is judged.
    judge.observe(t.api('GET', '/api/integrations/v1/me', 404, { error: 'not found' }));
    judge.observe(t.api('GET', '/v0/bookings?per_page=5', 404, ''));
    judge.observe({ ...t.api('GET', '/me', 200, {}), status: null });
    const status = watchStatus(judge, '2026-10-01T10:00:00.000Z') as any;
    expect(status.exchanges).toEqual({ api: 3, delivery: 0 });
    expect(status.notJudged).toEqual({ unmatched: 2, unanswered: 1, unmatchedFirst: ['GET /api/integrations/v1/me', 'GET /v0/bookings'] });
    const text = watchMetrics(judge);
    expect(text).toContain('# TYPE watch_unjudged_api_calls_total counter\nwatch_unjudged_api_calls_total{reason="unmatched"} 2\nwatch_unjudged_api_calls_total{reason="unanswered"} 1\n');
  });

  it('a call at an operation of the contract is not counted astray', () => {
    const t = new Traffic();
    const judge = new Judge();
    judge.observe(t.api('GET', '/me', 401, { error: { code: 'UNAUTHENTICATED', message: 'no key', errors: [] } }));
    expect((watchStatus(judge, '2026-10-01T10:00:00.000Z') as any).notJudged).toEqual({ unmatched: 0, unanswered: 0, unmatchedFirst: [] });
    expect(watchMetrics(judge)).toContain('watch_unjudged_api_calls_total{reason="unmatched"} 0\n');
  });
});
