/**
 * index.html of a merged report: the run page's style, script, escaping and
 * failure articles (reporting/html.ts), laid out with a column per deployment.
 * Self-contained and readable without JS, like a run's page.
 */
import type { MergedReport, Outcome } from '../conformance/types.ts';
import { compareSections, groupBySuite, humanDuration, humanTimestamp, OUTCOME_LABEL, OUTCOMES } from './format.ts';
import { partialOf, provedPhrase, verdictLabel } from '../conformance/verdict.ts';
import { attr, COVERAGE_HINT, COVERAGE_LABEL, COVERAGE_STATUSES, CSS, failureArticles, filterBar, levelBadge, SCRIPT, text, VERDICT_BADGE, VERDICT_CLASS } from './html.ts';
import { deploymentReport } from './merge.ts';

/** A run's or the merge's verdict as a badge: "passed, partial" when it proved less than the catalogue (a report.json from before `partial`: fewer applicable than selected). */
function badge(s: MergedReport['summary'], cls: string): string {
  const label = verdictLabel({ verdict: s.verdict, partial: partialOf(s) });
  return `<span class="${cls} v-${VERDICT_CLASS[label]}" title="${attr(provedPhrase(s))}">${VERDICT_BADGE[label]}</span>`;
}

/** The HTML page of a merged report. */
export function renderMergedHtml(m: MergedReport): string {
  const labels = m.deployments.map((d) => d.label);
  // Each deployment's failures keep the run page's articles, anchored under a prefix of their own.
  const articles = m.deployments.map((d, i) => ({ label: d.label, ...failureArticles(deploymentReport(m, d.label), `d${i + 1}-check-`) }));
  const problems = m.results.reduce((n, r) => n + Object.values(r.deployments).filter((c) => c.outcome === 'failed' || c.outcome === 'errored').length, 0);
  const reasons = m.results.flatMap((r) => labels.flatMap((label) => {
    const cell = r.deployments[label];
    return cell && (cell.outcome === 'not_applicable' || cell.outcome === 'skipped') ? [{ r, label, outcome: cell.outcome, reason: cell.reason }] : [];
  }));
  const nav: Array<[string, string]> = [['deployments', `Deployments (${labels.length})`]];
  if (problems > 0) nav.push(['failures', `Failures and errors (${problems})`]);
  nav.push(['coverage', 'Clause coverage'], ['results', `Results (${m.results.length})`]);
  if (reasons.length > 0) nav.push(['not-applicable', `Not applicable and skipped (${reasons.length})`]);
  const s = m.summary;
  const shown = verdictLabel({ verdict: s.verdict, partial: partialOf(s) });

  const deploymentRows = m.deployments.map((d) => {
    const caps = d.target.capabilities.map((c) => `<span class="chip">${text(c)}</span>`).join(' ');
    return `<tr><th scope="row" class="dep">${text(d.label)}</th>
<td><span class="kind">${d.target.kind === 'live' ? 'live' : 'in-process'}</span> <code class="url">${text(d.target.baseUrl)}</code><div class="caps">${caps}</div></td>
<td>${badge(d.summary, 'verdict-chip')}<div class="small muted">${text(provedPhrase(d.summary))}</div>${d.summary.gate.length > 0 ? `<div class="small muted">${text(d.summary.gate.join('; '))}</div>` : ''}</td>
<td class="num">${d.summary.passed}</td><td class="num">${d.summary.failed}</td><td class="num">${d.summary.errored}</td><td class="num">${d.summary.not_applicable}</td><td class="num">${d.summary.skipped}</td>
<td class="num">${d.summary.clauses_proven} / ${d.summary.clauses_testable}</td><td class="num">${d.summary.bookings_created}</td><td class="num">${text(humanDuration(d.summary.ms))}</td>
<td><code>${text(d.runId)}</code><div class="small muted">${text(humanTimestamp(d.startedAt))}</div></td></tr>`;
  }).join('\n');

  const coverageCounts = Object.fromEntries(COVERAGE_STATUSES.map((st) => [st, m.coverage.filter((c) => c.status === st).length])) as Record<(typeof COVERAGE_STATUSES)[number], number>;
  const coverageRows = [...m.coverage].sort((a, b) => compareSections(a.section, b.section)).map((c) => {
    const search = [c.id, c.title, ...c.checks].join(' ').toLowerCase();
    const cells = labels.map((label) => {
      const st = c.deployments[label];
      return st ? `<td><span class="badge c-${st}">${COVERAGE_LABEL[st]}</span></td>` : '<td><span class="muted" title="not in this run">–</span></td>';
    }).join('');
    return `<tr data-key="${c.status}" data-search="${attr(search)}"><td class="sec">§${text(c.section)}</td><td class="cid"><code>${text(c.id)}</code></td><td>${text(c.title)}</td>${cells}<td class="overall"><span class="badge c-${c.status}">${COVERAGE_LABEL[c.status]}</span>${c.why ? `<div class="small muted">${text(c.why)}</div>` : ''}</td></tr>`;
  }).join('\n');

  const outcomeCounts = Object.fromEntries(OUTCOMES.map((o) => [o, m.results.filter((r) => r.outcome === o).length])) as Record<Outcome, number>;
  const resultRows = groupBySuite(m.results).flatMap(({ results }) => results).map((r) => {
    const search = [r.suite, r.id, r.title, ...r.clauses].join(' ').toLowerCase();
    const cells = labels.map((label, i) => {
      const cell = r.deployments[label];
      if (!cell) return '<td><span class="muted" title="not selected in this run">–</span></td>';
      const badge = `<span class="badge o-${cell.outcome}"${cell.reason ? ` title="${attr(cell.reason)}"` : ''}>${OUTCOME_LABEL[cell.outcome]}</span>`;
      const linked = cell.outcome === 'failed' || cell.outcome === 'errored';
      return `<td>${linked ? `<a href="#${articles[i]!.anchor(r.id)}">${badge}</a>` : badge}</td>`;
    }).join('');
    return `<tr class="row o-${r.outcome}" data-key="${r.outcome}" data-search="${attr(search)}"><td class="suite">${text(r.suite)}</td><td class="cid"><code>${text(r.id)}</code></td><td>${text(r.title)}</td><td>${levelBadge(r.level)}</td>${cells}<td class="overall"><span class="badge o-${r.outcome}">${OUTCOME_LABEL[r.outcome]}</span></td></tr>`;
  }).join('\n');

  const columnHeads = labels.map((l) => `<th scope="col" class="depcol">${text(l)}</th>`).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${text(shown.charAt(0).toUpperCase() + shown.slice(1))} · ${labels.length} deployment(s) · Partner API ${attr(m.apiVersion)} conformance</title>
<style>${CSS}${MERGED_CSS}</style>
</head>
<body>
<header class="masthead">
<div class="wrap">
<div class="title-row">
<div>
<p class="eyebrow">Partner Integration API · conformance report of ${labels.length} deployment${labels.length === 1 ? '' : 's'}</p>
<h1>Merged <code>${text(m.runId)}</code></h1>
</div>
<div class="verdict v-${VERDICT_CLASS[shown]}" role="status">${VERDICT_BADGE[shown]}<span class="v-proof">${text(provedPhrase(s))}</span></div>
</div>
<dl class="meta">
<div><dt>Deployments</dt><dd>${labels.map((l) => `<span class="chip">${text(l)}</span>`).join(' ')}</dd></div>
<div><dt>API version</dt><dd><code>${text(m.apiVersion)}</code></dd></div>
<div><dt>Spec digest</dt><dd><code class="digest" title="${attr(m.specDigest)}">${text(m.specDigest)}</code></dd></div>
<div><dt>First run started</dt><dd>${text(humanTimestamp(m.startedAt))}</dd></div>
<div><dt>Last run finished</dt><dd>${text(humanTimestamp(m.finishedAt))}</dd></div>
<div><dt>Time in runs</dt><dd>${text(humanDuration(s.ms))}</dd></div>
</dl>
</div>
</header>
<nav class="toc" aria-label="Sections"><div class="wrap">${nav.map(([id, label]) => `<a href="#${id}">${text(label)}</a>`).join('')}</div></nav>
<main class="wrap">
<section id="deployments" aria-labelledby="deployments-h">
<h2 id="deployments-h">Deployments</h2>
<p class="muted">${s.passed} passed, ${s.failed} failed, ${s.errored} errored, ${s.not_applicable} not applicable, ${s.skipped} skipped over ${labels.length} run(s); ${s.clauses_proven} of ${s.clauses_testable} testable clauses proven on every deployment; ${s.bookings_created} booking(s) created.${s.gate.length > 0 ? ` Gate: ${text(s.gate.join('; '))}.` : ''}</p>
<div class="table-scroll"><table>
<thead><tr><th scope="col">Deployment</th><th scope="col">Target</th><th scope="col">Verdict</th><th scope="col" class="num">Passed</th><th scope="col" class="num">Failed</th><th scope="col" class="num">Errored</th><th scope="col" class="num">N/a</th><th scope="col" class="num">Skipped</th><th scope="col" class="num">Clauses proven</th><th scope="col" class="num">Bookings</th><th scope="col" class="num">Time</th><th scope="col">Run</th></tr></thead>
<tbody>
${deploymentRows}
</tbody>
</table></div>
</section>
${problems > 0 ? `<section id="failures" aria-labelledby="failures-h">
<h2 id="failures-h">Failures and errors</h2>
${articles.filter((a) => a.html !== '').map((a) => `<h3 class="dep-h">${text(a.label)}</h3>\n${a.html}`).join('\n')}
</section>` : ''}
<section id="coverage" aria-labelledby="coverage-h">
<h2 id="coverage-h">Clause coverage</h2>
<p class="muted">Every clause of the catalogue with its status on each deployment. Overall: failed if it failed anywhere, passed only when proven on every deployment.</p>
<div class="legend">${COVERAGE_STATUSES.map((st) => `<span class="key"><span class="sw c-${st}"></span><b>${COVERAGE_LABEL[st]}</b> ${coverageCounts[st]} <span class="muted">· ${COVERAGE_HINT[st]}</span></span>`).join('')}</div>
${filterBar('coverage-table', COVERAGE_STATUSES.map((st) => [st, `${COVERAGE_LABEL[st]} ${coverageCounts[st]}`]), 'Filter clauses by id, title or check')}
<div class="table-scroll"><table id="coverage-table" data-group>
<thead><tr><th scope="col">§</th><th scope="col">Clause</th><th scope="col">Title</th>${columnHeads}<th scope="col">Overall</th></tr></thead>
<tbody>
${coverageRows || `<tr><td colspan="${labels.length + 4}" class="muted">The reports have no clause catalogue.</td></tr>`}
</tbody>
</table></div>
</section>
<section id="results" aria-labelledby="results-h">
<h2 id="results-h">Results</h2>
<p class="muted">Each check on each deployment; overall, the worst outcome where it ran.</p>
${filterBar('results-table', OUTCOMES.filter((o) => outcomeCounts[o] > 0).map((o) => [o, `${OUTCOME_LABEL[o]} ${outcomeCounts[o]}`]), 'Filter checks by id, title, suite or clause')}
<div class="table-scroll"><table id="results-table" data-group>
<thead><tr><th scope="col">Suite</th><th scope="col">Check</th><th scope="col">Title</th><th scope="col">Level</th>${columnHeads}<th scope="col">Overall</th></tr></thead>
<tbody>
${resultRows || `<tr><td colspan="${labels.length + 5}" class="muted">No checks ran.</td></tr>`}
</tbody>
</table></div>
</section>
${reasons.length > 0 ? `<section id="not-applicable" aria-labelledby="not-applicable-h">
<h2 id="not-applicable-h">Not applicable and skipped</h2>
<p class="muted">Checks a deployment's run could not take part in or left out, with the reason.</p>
<div class="table-scroll"><table class="reasons">
<thead><tr><th scope="col">Check</th><th scope="col">Deployment</th><th scope="col">Outcome</th><th scope="col">Reason</th></tr></thead>
<tbody>${reasons.map(({ r, label, outcome, reason }) => `<tr><td class="cid"><code>${text(r.id)}</code></td><td>${text(label)}</td><td><span class="badge o-${outcome}">${OUTCOME_LABEL[outcome]}</span></td><td>${reason !== undefined ? text(reason) : '<span class="muted">no reason given</span>'}</td></tr>`).join('\n')}</tbody>
</table></div>
</section>` : ''}
</main>
<footer class="wrap foot">Merged <code>${text(m.runId)}</code> from ${m.deployments.map((d) => `<code>${text(d.source)}</code>`).join(', ')} · report.json and junit.xml sit beside this file · generated by the Partner API ${text(m.apiVersion)} conformance suite</footer>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

const MERGED_CSS = `
th.dep{white-space:nowrap;font-family:var(--mono);font-size:.9rem;text-transform:none;letter-spacing:0;color:var(--text);background:transparent}
th.depcol{text-transform:none;letter-spacing:0;font-family:var(--mono);font-size:.78rem;color:var(--text)}
.caps{margin-top:3px;display:flex;flex-wrap:wrap;gap:3px}
.verdict-chip{font-weight:700;font-size:.85rem;padding:1px 9px;border-radius:6px;border:1px solid;white-space:nowrap}
td.overall{white-space:nowrap}td.overall .small{white-space:normal;max-width:260px}
td.sec{font-family:var(--mono);font-weight:700;white-space:nowrap}
.dep-h{margin:1.2rem 0 .2rem;font-family:var(--mono)}
`;
