/**
 * junit.xml of a certification run: one <testsuite> per requirement group
 * (receiver, usage, recovery), one <testcase> per requirement; a failed
 * requirement is a <failure>, a requirement not observed is <skipped> with
 * the reason. Drills and evidence go to <system-out>.
 */
import { seconds } from '../reporting/format.ts';
import type { CertReport, RequirementResult } from './types.ts';

export function renderJunit(report: CertReport): string {
  const groups = new Map<string, RequirementResult[]>();
  for (const r of report.results) groups.set(r.group, [...(groups.get(r.group) ?? []), r]);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attrs({ name: `Partner API ${report.apiVersion} certification ${report.runId}`, tests: report.summary.total, failures: report.summary.fail, errors: 0, skipped: report.summary.not_observed, time: seconds(report.summary.ms), timestamp: report.startedAt })}>`,
  ];
  [...groups].forEach(([group, results], id) => {
    lines.push(`  <testsuite${attrs({
      name: `certify.${group}`, id, tests: results.length,
      failures: results.filter((r) => r.outcome === 'fail').length, errors: 0,
      skipped: results.filter((r) => r.outcome === 'not_observed').length, time: '0.000', timestamp: report.startedAt,
    })}>`);
    lines.push('    <properties>');
    for (const [name, value] of [['run.id', report.runId], ['seed', String(report.plan.seed)], ['api.version', report.apiVersion], ['spec.digest', report.specDigest], ['verdict', report.verdict], ['webhook.url', report.partner.webhookUrl]]) {
      lines.push(`      <property${attrs({ name: name!, value: value! })}/>`);
    }
    lines.push('    </properties>');
    for (const r of results) lines.push(...testcase(r, report));
    lines.push('  </testsuite>');
  });
  lines.push('</testsuites>');
  return `${lines.join('\n')}\n`;
}

function testcase(r: RequirementResult, report: CertReport): string[] {
  const out = [`    <testcase${attrs({ classname: `certify.${r.group}`, name: `${r.id}: ${r.title}`, time: '0.000' })}>`];
  if (r.outcome === 'fail') out.push(`      <failure${attrs({ type: r.id, message: r.summary.slice(0, 500) })}>${cdata(r.summary)}</failure>`);
  if (r.outcome === 'not_observed') out.push(`      <skipped${attrs({ message: `not observed: ${r.summary}`.slice(0, 500) })}/>`);
  const drills = report.drills.filter((d) => r.drills.includes(d.id)).map((d) => `drill ${d.id}\n  expected: ${d.expected}\n  did: ${d.did}`);
  const calls = r.evidence.calls.map((e) => `#${e.n} ${e.method} ${e.path}${Object.keys(e.query).length ? `?${new URLSearchParams(e.query as Record<string, string>).toString()}` : ''} → ${e.status}${e.code ? ` ${e.code}` : ''}${e.idempotency_key ? ` key=${e.idempotency_key}` : ''}${e.credential === 'retired' ? ' (retired key)' : ''}`);
  const deliveries = r.evidence.deliveries.map((d) => `${d.source} ${d.name} ${d.type}${d.sequence !== null ? ` #${d.sequence}` : ''} → ${d.status ?? d.error}`);
  const text = [`clauses: ${r.clauses.join(', ')}`, `rule: ${r.rule}`, ...drills, ...calls, ...deliveries, ...r.evidence.notes].join('\n');
  out.push(`      <system-out>${cdata(text)}</system-out>`, '    </testcase>');
  return out;
}

/** Characters XML 1.0 cannot hold, dropped. */
function clean(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '');
}

function attrs(o: Record<string, string | number>): string {
  return Object.entries(o).map(([k, v]) => ` ${k}="${clean(String(v)).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/\n/g, '&#10;')}"`).join('');
}

function cdata(s: string): string {
  return `<![CDATA[${clean(s).split(']]>').join(']]]]><![CDATA[>')}]]>`;
}
