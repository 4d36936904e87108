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
});
