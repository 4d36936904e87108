/**
 * index.html of a certification run for people: one self-contained file
 * (inline CSS, no script, no external resource) with the verdict, one row
 * per requirement, the drills (what was done, expected, what the partner
 * did), and per requirement its evidence: the journal entries and the
 * deliveries involved. Everything from the report is escaped.
 */
import { humanDuration, humanTimestamp } from '../reporting/format.ts';
import type { CertReport, DeliveryEvidence, JournalEntry, Outcome, RequirementResult } from './types.ts';

const LABEL: Record<Outcome | 'not_run', string> = { pass: 'Pass', fail: 'Fail', not_observed: 'Not observed', not_run: 'Not run' };
const VERDICT: Record<CertReport['verdict'], string> = {
  certified: 'Certified',
  'certified-with-gaps': 'Certified with gaps (some requirements not observed)',
  'not-certified': 'Not certified',
};

export function renderHtml(report: CertReport): string {
  const start = Date.parse(report.startedAt);
  const failed = report.results.filter((r) => r.outcome === 'fail');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${esc(VERDICT[report.verdict])} · certification ${esc(report.runId)} · Partner API ${esc(report.apiVersion)}</title>
<style>${CSS}</style>
</head>
<body>
<header class="${report.verdict}">
<div class="wrap">
<p class="eyebrow">Partner Integration API ${esc(report.apiVersion)} · certification report</p>
<h1>${esc(VERDICT[report.verdict])}</h1>
<dl class="facts">
${fact('partner', [report.partner.name ?? 'not named', report.partner.version, report.partner.commit && `commit ${report.partner.commit}`].filter(Boolean).join(' '))}${fact('run', report.runId)}${fact('seed', String(report.plan.seed))}${fact('webhook', report.partner.webhookUrl)}${fact('integration', `#${report.partner.integration.id} ${report.partner.integration.slug}`)}
${fact('target', `${report.target.kind} · ${report.target.baseUrl}`)}${fact('state probe', report.partner.stateUrl ?? 'none')}
${fact('started', humanTimestamp(report.startedAt))}${fact('took', humanDuration(report.summary.ms))}${fact('spec digest', report.specDigest)}
</dl>
<p class="counts"><span class="chip pass">${report.summary.pass} pass</span> <span class="chip fail">${report.summary.fail} fail</span> <span class="chip not_observed">${report.summary.not_observed} not observed</span></p>
</div>
</header>
<main class="wrap">
${report.warnings.length ? `<section><h2>Warnings</h2><ul>${report.warnings.map((w) => `<li>${esc(w)}</li>`).join('')}</ul></section>` : ''}
${failed.length ? `<section><h2>Failed</h2><ul>${failed.map((r) => `<li><a href="#${anchor(r.id)}"><code>${esc(r.id)}</code></a>: ${esc(r.summary)}</li>`).join('')}</ul></section>` : ''}
<section>
<h2>Requirements</h2>
<table class="results"><thead><tr><th>outcome</th><th>requirement</th><th>clauses</th><th>why</th></tr></thead><tbody>
${report.results.map((r) => `<tr><td><span class="chip ${r.outcome}">${LABEL[r.outcome]}</span></td><td><a href="#${anchor(r.id)}"><code>${esc(r.id)}</code></a><br>${esc(r.title)}</td><td>${r.clauses.map((c) => `<code>${esc(c)}</code>`).join(' ')}</td><td>${esc(r.summary)}</td></tr>`).join('\n')}
</tbody></table>
</section>
<section>
<h2>Drills</h2>
${report.drills.map((d) => `<article class="drill"><h3><span class="chip ${d.outcome}">${LABEL[d.outcome]}</span> ${esc(d.title)} <code>${esc(d.id)}</code></h3>
<dl><dt>done to the platform</dt><dd>${esc(d.action || '–')}</dd><dt>expected of the partner</dt><dd>${esc(d.expected)}</dd><dt>what it did</dt><dd>${esc(d.did)}</dd><dt>requirement</dt><dd><a href="#${anchor(d.requirement)}"><code>${esc(d.requirement)}</code></a></dd></dl></article>`).join('\n')}
</section>
<section>
<h2>Evidence</h2>
${report.results.map((r) => evidence(r, start)).join('\n')}
</section>
<section>
<h2>Plan</h2>
<p>Fixed by seed <code>${report.plan.seed}</code> before the run; bounded by ${report.plan.durationSeconds} s.</p>
<ol>${report.plan.steps.map((s) => `<li><strong>${esc(s.title)}</strong> <code>${esc(s.id)}</code>: ${esc(s.expects)}</li>`).join('')}</ol>
<pre>${esc(JSON.stringify(report.plan.parameters, null, 2))}</pre>
</section>
</main>
<footer class="wrap">report.json, junit.xml and certificate.json sit beside this file · <code>npm run certify -- --verify certificate.json</code> checks the certificate</footer>
</body>
</html>
`;
}

function evidence(r: RequirementResult, start: number): string {
  const e = r.evidence;
  return `<details id="${anchor(r.id)}"${r.outcome === 'fail' ? ' open' : ''}>
<summary><span class="chip ${r.outcome}">${LABEL[r.outcome]}</span> <code>${esc(r.id)}</code> ${esc(r.title)}</summary>
<p class="rule">${esc(r.rule)}${r.assumption ? ' <em>(rests on an x-assumption of spec/openapi.yaml)</em>' : ''}</p>
<p>${esc(r.summary)}</p>
${e.notes.length ? `<ul>${e.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : ''}
${e.calls.length ? callTable(e.calls, start) : ''}${e.omitted ? `<p class="muted">${e.omitted} more journal entries left out (report.json has the ones listed).</p>` : ''}
${e.deliveries.length ? deliveryTable(e.deliveries) : ''}
${e.state.length ? `<table><thead><tr><th>when</th><th>night</th><th>field</th><th>newest</th><th>superseded</th><th>partner holds</th></tr></thead><tbody>${e.state.map((s) => `<tr><td>${esc(s.when)}</td><td>${s.property_id} ${esc(s.date)}</td><td>${esc(s.field)}</td><td>${esc(JSON.stringify(s.expected))}</td><td>${esc(JSON.stringify(s.older))}</td><td>${esc(s.error ?? (s.held === undefined ? 'nothing' : JSON.stringify(s.held)))}</td></tr>`).join('')}</tbody></table>` : ''}
${!e.calls.length && !e.deliveries.length && !e.state.length ? '<p class="muted">No evidence recorded.</p>' : ''}
</details>`;
}

function callTable(calls: JournalEntry[], start: number): string {
  const rows = calls.map((c) => {
    const q = new URLSearchParams(Object.entries(c.query).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x): [string, string] => [k, x]) : [[k, v] as [string, string]]))).toString();
    const extra = [
      c.idempotency_key ? `key ${c.idempotency_key}` : '',
      c.body_fingerprint && c.operation === 'createBooking' ? `body ${c.body_fingerprint.slice(0, 12)}…` : '',
      c.retry_after !== null ? `Retry-After ${c.retry_after}` : '',
      c.cursor ? `after ${c.cursor.after_sequence} → next ${c.cursor.next_after_sequence}${c.cursor.has_more ? ', has_more' : ''}` : '',
      c.watermark !== undefined ? `watermark ${c.watermark}` : '',
      c.max_updated_at ? `max updated_at ${c.max_updated_at}` : '',
    ].filter(Boolean).join(' · ');
    return `<tr><td>#${c.n}</td><td>+${((c.at - start) / 1000).toFixed(3)} s</td><td><code>${esc(c.method)} ${esc(c.path)}${q ? `?${esc(q)}` : ''}</code></td><td>${c.status}${c.code ? ` ${esc(c.code)}` : ''}</td><td>${c.credential === 'retired' ? '<strong>retired key</strong>' : 'current key'}</td><td>${esc(extra)}</td></tr>`;
  });
  return `<table><thead><tr><th>call</th><th>at</th><th>request</th><th>answer</th><th>credential</th><th>detail</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function deliveryTable(deliveries: DeliveryEvidence[]): string {
  const rows = deliveries.slice(0, 60).map((d) => `<tr><td>${esc(d.source)}</td><td>${esc(d.name)}</td><td>${esc(humanTimestamp(d.at))}</td><td>${esc(d.type)}${d.sequence !== null ? ` #${d.sequence}` : ''}</td><td><code>${esc(d.signature === undefined ? '' : d.signature === null ? '(none)' : d.signature.length > 40 ? `${d.signature.slice(0, 40)}…` : d.signature)}</code>${d.integrationHeader !== undefined ? `<br>X-Service-Integration: <code>${esc(d.integrationHeader ?? '(none)')}</code>` : ''}</td><td>${d.status ?? esc(d.error ?? 'no answer')}${d.ms !== undefined ? ` <span class="muted">${d.ms} ms</span>` : ''}</td></tr>`);
  const more = deliveries.length > 60 ? `<p class="muted">${deliveries.length - 60} more deliveries in report.json.</p>` : '';
  return `<table><thead><tr><th>source</th><th>delivery</th><th>at</th><th>event</th><th>headers sent</th><th>answer</th></tr></thead><tbody>${rows.join('')}</tbody></table>${more}`;
}

function fact(name: string, value: string): string {
  return `<div><dt>${esc(name)}</dt><dd>${esc(value)}</dd></div>`;
}

function anchor(id: string): string {
  return `req-${id.replace(/[^A-Za-z0-9_-]+/g, '-')}`;
}

function esc(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const CSS = `
:root{--fg:#1d2330;--muted:#667085;--bg:#fff;--line:#e4e7ec;--pass:#067647;--fail:#b42318;--no:#b54708;--head:#f2f4f7}
@media (prefers-color-scheme:dark){:root{--fg:#e4e7ec;--muted:#98a2b3;--bg:#101828;--line:#344054;--head:#1d2939}}
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,sans-serif;color:var(--fg);background:var(--bg)}
.wrap{max-width:1200px;margin:0 auto;padding:0 20px}header{background:var(--head);border-bottom:4px solid var(--no);padding:16px 0}
header.certified{border-color:var(--pass)}header.not-certified{border-color:var(--fail)}
.eyebrow{margin:0;color:var(--muted);text-transform:uppercase;font-size:12px;letter-spacing:.05em}h1{margin:4px 0 8px}
.facts{display:flex;flex-wrap:wrap;gap:4px 24px;margin:0}.facts div{display:flex;gap:6px}.facts dt{color:var(--muted)}.facts dd{margin:0;word-break:break-all}
.chip{display:inline-block;border-radius:10px;padding:0 8px;font-size:13px;font-weight:600;color:#fff;background:var(--muted);white-space:nowrap}
.chip.pass{background:var(--pass)}.chip.fail{background:var(--fail)}.chip.not_observed{background:var(--no)}
section{margin:24px 0}table{border-collapse:collapse;width:100%;margin:8px 0;font-size:14px}th,td{border-bottom:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
code{font:13px ui-monospace,monospace;word-break:break-all}.results td:nth-child(3) code{white-space:nowrap;word-break:normal}pre{background:var(--head);padding:8px;overflow:auto}
details{border:1px solid var(--line);border-radius:6px;padding:6px 10px;margin:8px 0}summary{cursor:pointer}
.drill dl{display:grid;grid-template-columns:200px 1fr;gap:2px 12px}.drill dt{color:var(--muted)}.drill dd{margin:0}
.muted{color:var(--muted)}.rule{color:var(--muted)}footer{color:var(--muted);padding:24px 20px}
`;
