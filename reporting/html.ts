/**
 * index.html for people: one self-contained file (inline CSS, a little inline
 * JS for filtering and copying, no external fonts, scripts or images) that
 * reads completely without JS. Everything taken from the report is escaped:
 * response bodies can hold markup and control characters.
 */
import type { CheckResult, ClauseCoverage, Exchange, RunReport } from '../conformance/types.ts';
import { catalogueChecks, partialOf, verdictLabel, type VerdictLabel } from '../conformance/verdict.ts';
import { likeness, LIKENESS_TO_MARK, wordDiff } from './word-diff.ts';
import {
  compareSections,
  countOutcomes,
  groupBySuite,
  humanDuration,
  humanTimestamp,
  listOf,
  OUTCOME_LABEL,
  OUTCOMES,
  passRate,
  truncate,
  verdict,
} from './format.ts';

/** Bodies longer than this many characters are cut in the page; report.json keeps them whole. */
export const HTML_BODY_LIMIT = 10_000;
/** The exchanges shown open in a failure; earlier ones are folded (native <details>, no JS needed). */
const OPEN_EXCHANGES = 3;

type CoverageStatus = ClauseCoverage['status'];
export const COVERAGE_STATUSES: readonly CoverageStatus[] = ['failed', 'not_run', 'uncovered', 'passed', 'untestable'];
export const COVERAGE_LABEL: Record<CoverageStatus, string> = { passed: 'Passed', failed: 'Failed', not_run: 'Not run', uncovered: 'Uncovered', untestable: 'Not testable' };
export const COVERAGE_HINT: Record<CoverageStatus, string> = {
  passed: 'every applicable check passed',
  failed: 'a check failed or errored',
  not_run: 'has checks, none of them ran',
  uncovered: 'no check proves it yet',
  untestable: 'no check against a platform can observe it (why on the tile)',
};

/** The badge's class and text for each verdict a page shows. */
export const VERDICT_CLASS: Record<VerdictLabel, string> = { passed: 'passed', 'passed, partial': 'partial', failed: 'failed', insufficient: 'insufficient' };
export const VERDICT_BADGE: Record<VerdictLabel, string> = { passed: '✓ Passed', 'passed, partial': '✓ Passed, partial', failed: '✕ Failed', insufficient: '△ Insufficient' };

/**
 * The verdict a page shows: the results' (format.ts `verdict`, so an edited
 * report.json cannot show a failure as passed), partial as the summary says;
 * a report.json from before `partial` existed is partial when fewer checks
 * were applicable than it selected.
 */
export function shownVerdict(r: RunReport): VerdictLabel {
  return verdictLabel({ verdict: verdict(r), partial: partialOf(r.summary) });
}

function capitalised(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** The HTML page of the run. */
export function renderHtml(report: RunReport): string {
  const page = new Page(report);
  return page.render();
}

/**
 * The failure and error articles of a run (what its page shows under
 * "Failures and errors"), with anchors that start with `anchorPrefix` so
 * several runs can share a page; `anchor(id)` is where a check's article is.
 */
export function failureArticles(report: RunReport, anchorPrefix: string): { html: string; anchor(checkId: string): string } {
  const page = new Page(report, anchorPrefix);
  const problems = report.results.filter((x) => x.outcome === 'failed' || x.outcome === 'errored');
  return { html: problems.map((p) => page.failure(p)).join('\n'), anchor: (id) => page.anchor(id) };
}

class Page {
  private readonly clauseTitles: Map<string, string>;
  private readonly anchors = new Map<string, string>();

  constructor(private readonly report: RunReport, private readonly anchorPrefix = 'check-') {
    this.clauseTitles = new Map(report.coverage.map((c) => [c.id, c.title]));
    const used = new Set<string>();
    for (const r of report.results) {
      if (this.anchors.has(r.id)) continue;
      let anchor = `${anchorPrefix}${r.id.replace(/[^A-Za-z0-9_-]+/g, '-')}`;
      for (let i = 2; used.has(anchor); i++) anchor = `${anchorPrefix}${r.id.replace(/[^A-Za-z0-9_-]+/g, '-')}-${i}`;
      used.add(anchor);
      this.anchors.set(r.id, anchor);
    }
  }

  render(): string {
    const r = this.report;
    const problems = r.results.filter((x) => x.outcome === 'failed' || x.outcome === 'errored');
    const notApplicable = r.results.filter((x) => x.outcome === 'not_applicable');
    const skipped = r.results.filter((x) => x.outcome === 'skipped');
    const label = shownVerdict(r);
    const nav: Array<[string, string]> = [['summary', 'Summary']];
    if (problems.length > 0) nav.push(['failures', `Failures and errors (${problems.length})`]);
    nav.push(['coverage', 'Clause coverage'], ['results', `Results (${r.results.length})`]);
    if (notApplicable.length > 0) nav.push(['not-applicable', `Not applicable (${notApplicable.length})`]);
    if (skipped.length > 0) nav.push(['skipped', `Skipped (${skipped.length})`]);

    return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${text(capitalised(label))} · conformance run ${attr(r.runId)} · Partner API ${attr(r.apiVersion)}</title>
<style>${CSS}</style>
</head>
<body>
${this.header(label)}
<nav class="toc" aria-label="Sections"><div class="wrap">${nav.map(([id, label]) => `<a href="#${id}">${text(label)}</a>`).join('')}</div></nav>
<main class="wrap">
${this.summary(problems, label)}
${problems.length > 0 ? this.failures(problems) : ''}
${this.coverage()}
${this.results()}
${notApplicable.length > 0 ? this.reasons('not-applicable', 'Not applicable', 'Checks the target cannot take part in, with the reason.', notApplicable) : ''}
${skipped.length > 0 ? this.reasons('skipped', 'Skipped', 'Checks left out of this run, with the reason.', skipped) : ''}
</main>
<footer class="wrap foot">Run <code>${text(r.runId)}</code> · report.json and junit.xml sit beside this file · generated by the Partner API ${text(r.apiVersion)} conformance suite</footer>
<script>${SCRIPT}</script>
</body>
</html>
`;
  }

  // ------------------------------------------------------------ header

  private header(label: VerdictLabel): string {
    const r = this.report;
    const o = r.options;
    const caps = r.target.capabilities.length > 0
      ? r.target.capabilities.map((c) => `<span class="chip">${text(c)}</span>`).join(' ')
      : '<span class="muted">none</span>';
    const options: Array<[string, string]> = [
      ['suites', o.suites.length > 0 ? o.suites.join(', ') : 'all'],
      ['checks', o.checks.length > 0 ? o.checks.join(', ') : 'all'],
      ['runs', String(o.runs)],
      ['seed', o.seed === null ? 'random' : String(o.seed)],
      ['normative only', o.normativeOnly ? 'yes' : 'no'],
      ['writes allowed', o.allowWrites ? 'yes' : 'no'],
    ];
    return `<header class="masthead">
<div class="wrap">
<div class="title-row">
<div>
<p class="eyebrow">Partner Integration API · conformance report</p>
<h1>Run <code>${text(r.runId)}</code></h1>
</div>
<div class="verdict v-${VERDICT_CLASS[label]}" role="status">${VERDICT_BADGE[label]}<span class="v-proof">${text(this.proofLine())}</span></div>
</div>
<dl class="meta">
<div><dt>Target</dt><dd>${r.target.label !== undefined ? `<b>${text(r.target.label)}</b> · ` : ''}<span class="kind">${r.target.kind === 'live' ? 'live deployment' : 'in-process simulator'}</span> <code class="url">${text(r.target.baseUrl)}</code></dd></div>
<div><dt>Capabilities</dt><dd>${caps}</dd></div>
<div><dt>API version</dt><dd><code>${text(r.apiVersion)}</code></dd></div>
<div><dt>Spec digest</dt><dd><code class="digest" title="${attr(r.specDigest)}">${text(r.specDigest)}</code></dd></div>
<div><dt>Started</dt><dd>${text(humanTimestamp(r.startedAt))}</dd></div>
<div><dt>Finished</dt><dd>${text(humanTimestamp(r.finishedAt))}</dd></div>
<div><dt>Duration</dt><dd>${text(humanDuration(r.summary.ms))}</dd></div>
<div class="wide"><dt>Options</dt><dd class="options">${options.map(([k, val]) => `<span class="opt"><span class="k">${text(k)}</span> ${text(val)}</span>`).join('')}</dd></div>
</dl>
</div>
</header>`;
  }

  // ------------------------------------------------------------ summary

  /** `9 of 82 checks applicable · 12 of 250 testable clauses proven`: what the badge rests on. */
  private proofLine(): string {
    const s = this.report.summary;
    return `${s.applicable} of ${catalogueChecks(s)} checks applicable · ${s.clauses_proven} of ${s.clauses_testable} testable clauses proven`;
  }

  private summary(problems: CheckResult[], label: VerdictLabel): string {
    const s = this.report.summary;
    const counts = countOutcomes(this.report.results);
    const total = this.report.results.length;
    const rate = passRate(counts);
    const ran = counts.passed + counts.failed + counts.errored;
    const catalogue = catalogueChecks(s);
    const cards = OUTCOMES.map((o) => `<div class="card o-${o}"><div class="n">${counts[o]}</div><div class="l">${OUTCOME_LABEL[o]}</div></div>`).join('');
    const segments = OUTCOMES.filter((o) => counts[o] > 0)
      .map((o) => `<span class="seg o-${o}" style="width:${pct(counts[o], total)}" title="${attr(`${OUTCOME_LABEL[o]}: ${counts[o]}`)}"></span>`).join('');
    const legend = OUTCOMES.filter((o) => counts[o] > 0)
      .map((o) => `<span class="key"><span class="sw o-${o}"></span>${OUTCOME_LABEL[o]} ${counts[o]} (${pct(counts[o], total)})</span>`).join('');
    const attention = problems.length === 0 ? '' : `<div class="attention">
<h3>Needs attention</h3>
<ul>${problems.map((p) => `<li><a href="#${this.anchor(p.id)}"><code>${text(p.id)}</code></a> <span class="badge o-${p.outcome}">${OUTCOME_LABEL[p.outcome]}</span> ${p.failure ? `<span class="kindname">${text(p.failure.kind)}</span> <span class="muted">§${text(p.failure.clause)}</span>` : `<span class="muted">${text(firstLine(p.error ?? ''))}</span>`}</li>`).join('')}</ul>
</div>`;
    const cov = this.coverageCounts();
    // Issue 27 item 4: the figures that say how much was proven come first; the pass rate of what ran is never the headline.
    const unproven = catalogue - s.applicable;
    const meaning = label === 'passed, partial'
      ? `<p class="partial-note"><b>Passed, partial.</b> Every check that ran passed, but ${unproven} of the ${catalogue} checks of the catalogue did not run here (not applicable, skipped or not selected): this run proves nothing about the clauses only they cover. A gate fails such a run: <code>--require-applicable N</code> or <code>--fail-on-not-applicable</code>.</p>`
      : label === 'insufficient' ? `<p class="partial-note"><b>Insufficient: the run proved too little.</b> ${text(s.gate.join('; ') || 'no check was applicable')}.</p>`
      : label === 'passed' ? `<p class="muted small">Every check of the catalogue ran and passed.</p>` : '';
    return `<section id="summary" aria-labelledby="summary-h">
<h2 id="summary-h">Summary</h2>
<div class="summary-grid">
<div class="proof" aria-label="${attr(`verdict ${label}: ${this.proofLine()}`)}">
<div class="fig"><div class="big">${s.applicable} <span class="of">of ${catalogue}</span></div><div class="l">checks of the catalogue applicable</div></div>
<div class="fig"><div class="big">${s.clauses_proven} <span class="of">of ${s.clauses_testable}</span></div><div class="l">testable clauses proven</div></div>
</div>
<div class="cards">${cards}<div class="card total"><div class="n">${total}</div><div class="l">Total</div></div></div>
</div>
${meaning}
<p class="rate small muted">${rate === null ? 'No check ran.' : `Of the ${ran} checks that ran, ${counts.passed} passed (${Math.floor(rate * 1000) / 10}%).`}</p>
<div class="bar" role="img" aria-label="${attr(OUTCOMES.map((o) => `${OUTCOME_LABEL[o]} ${counts[o]}`).join(', '))}">${segments}</div>
<div class="legend">${legend}</div>
<p class="muted small">Clauses: ${COVERAGE_STATUSES.map((st) => `${cov[st]} ${COVERAGE_LABEL[st].toLowerCase()}`).join(' · ')} of ${this.report.coverage.length} in the catalogue.</p>
${attention}
</section>`;
  }

  // ------------------------------------------------------------ coverage

  private coverageCounts(): Record<CoverageStatus, number> {
    const counts: Record<CoverageStatus, number> = { passed: 0, failed: 0, not_run: 0, uncovered: 0, untestable: 0 };
    for (const c of this.report.coverage) counts[c.status] += 1;
    return counts;
  }

  private coverage(): string {
    const bySection = new Map<string, ClauseCoverage[]>();
    for (const c of this.report.coverage) {
      const list = bySection.get(c.section);
      if (list) list.push(c);
      else bySection.set(c.section, [c]);
    }
    const sections = [...bySection.keys()].sort(compareSections);
    const counts = this.coverageCounts();
    const legend = COVERAGE_STATUSES.map((s) => `<span class="key"><span class="sw c-${s}"></span><b>${COVERAGE_LABEL[s]}</b> ${counts[s]} <span class="muted">· ${COVERAGE_HINT[s]}</span></span>`).join('');
    const filters = filterBar('coverage-grid', COVERAGE_STATUSES.map((s) => [s, `${COVERAGE_LABEL[s]} ${counts[s]}`]), 'Filter clauses by id, title or check');
    const body = sections.map((section) => {
      const clauses = bySection.get(section) ?? [];
      const sc: Record<CoverageStatus, number> = { passed: 0, failed: 0, not_run: 0, uncovered: 0, untestable: 0 };
      for (const c of clauses) sc[c.status] += 1;
      const mini = COVERAGE_STATUSES.filter((s) => sc[s] > 0).map((s) => `<span class="mini c-${s}">${sc[s]} ${COVERAGE_LABEL[s].toLowerCase()}</span>`).join('');
      // Issue 27 item 5: the grid folds into its sections (265 tiles pushed the failures 18,000 px down); one with a failed clause opens.
      return `<details class="cov-row" data-group${sc.failed > 0 ? ' open' : ''}>
<summary class="cov-label"><span class="sec">§${text(section)}</span><span class="count">${clauses.length} clause${clauses.length === 1 ? '' : 's'}</span>${mini}</summary>
<ul class="tiles">${clauses.map((c) => this.tile(c)).join('')}</ul>
</details>`;
    }).join('\n');
    return `<section id="coverage" aria-labelledby="coverage-h">
<h2 id="coverage-h">Clause coverage</h2>
<p class="muted">Every clause of the catalogue, grouped by section of the API document, with the checks that prove it; open a section to see its clauses.${this.biteLine()}</p>
<div class="legend">${legend}</div>
${filters}
<div id="coverage-grid">${body || '<p class="muted">The report has no clause catalogue.</p>'}</div>
</section>`;
  }

  /** How many clauses with checks have been shown to bite (conformance/bite.ts); nothing for a report without the counts. */
  private biteLine(): string {
    const s = this.report.summary;
    if (s.clauses_shown_to_bite === undefined) return '';
    return ` ${s.clauses_shown_to_bite} of ${s.clauses_shown_to_bite + s.clauses_cited_only} clauses with checks are <b>shown to bite</b>: a check naming the clause caught a deliberate breach of it (a simulator fault or mutant). ${s.clauses_cited_only} are <b>cited, not shown to bite</b> (marked on their tile).`;
  }

  private tile(c: ClauseCoverage): string {
    const checks = c.checks.length > 0
      ? c.checks.map((id) => (this.anchors.has(id) ? `<a href="#${this.anchor(id)}">${breakable(id)}</a>` : `<span title="not in this run">${breakable(id)}</span>`)).join('')
      : c.why ? `<span class="none">${text(c.why)}</span>` : '<span class="none">no check</span>';
    const search = [c.id, c.title, ...c.checks, c.bite === 'cited' ? 'cited, not shown to bite' : ''].join(' ').toLowerCase();
    return `<li class="tile c-${c.status}" data-key="${c.status}" data-search="${attr(search)}"><div class="tile-head"><span class="cid">${text(c.id)}</span><span class="st">${COVERAGE_LABEL[c.status]}</span></div><div class="ctitle">${text(c.title)}</div><div class="cchecks">${checks}</div>${c.bite === 'cited' ? '<div class="bite">cited, not shown to bite</div>' : ''}</li>`;
  }

  // ------------------------------------------------------------ results

  private results(): string {
    const counts = countOutcomes(this.report.results);
    const filters = filterBar('results-table', OUTCOMES.filter((o) => counts[o] > 0).map((o) => [o, `${OUTCOME_LABEL[o]} ${counts[o]}`]), 'Filter checks by id, title, suite or clause');
    const rows = groupBySuite(this.report.results).flatMap(({ results }) => results).map((r) => {
      const search = [r.suite, r.id, r.title, ...r.clauses].join(' ').toLowerCase();
      const linked = r.outcome === 'failed' || r.outcome === 'errored' || r.outcome === 'not_applicable' || r.outcome === 'skipped';
      const idCell = linked ? `<a href="#${this.anchor(r.id)}"><code>${text(r.id)}</code></a>` : `<code>${text(r.id)}</code>`;
      return `<tr class="row o-${r.outcome}" data-key="${r.outcome}" data-search="${attr(search)}"${linked ? '' : ` id="${this.anchor(r.id)}"`}>
<td class="suite">${text(r.suite)}</td><td class="cid">${idCell}</td><td>${text(r.title)}</td><td>${levelBadge(r.level)}</td><td><span class="badge o-${r.outcome}">${OUTCOME_LABEL[r.outcome]}</span></td><td class="clauses">${this.clauseChips(r.clauses)}</td><td class="num">${r.outcome === 'not_applicable' || r.outcome === 'skipped' ? '<span class="muted">–</span>' : text(humanDuration(r.ms))}</td>
</tr>`;
    }).join('\n');
    return `<section id="results" aria-labelledby="results-h">
<h2 id="results-h">Results</h2>
${filters}
<div class="table-scroll">
<table id="results-table" data-group>
<thead><tr><th scope="col">Suite</th><th scope="col">Check</th><th scope="col">Title</th><th scope="col">Level</th><th scope="col">Outcome</th><th scope="col">Clauses</th><th scope="col" class="num">Time</th></tr></thead>
<tbody>
${rows || '<tr><td colspan="7" class="muted">No checks ran.</td></tr>'}
</tbody>
</table>
</div>
</section>`;
  }

  // ------------------------------------------------------------ failures

  private failures(problems: CheckResult[]): string {
    return `<section id="failures" aria-labelledby="failures-h">
<h2 id="failures-h">Failures and errors</h2>
${problems.map((p) => this.failure(p)).join('\n')}
</section>`;
  }

  failure(r: CheckResult): string {
    const f = r.failure;
    const copyId = `${this.anchor(r.id)}-replay`;
    const parts: string[] = [];
    parts.push(`<header class="f-head">
<div class="f-badges"><span class="badge o-${r.outcome}">${OUTCOME_LABEL[r.outcome]}</span>${f ? `<span class="kindname">${text(f.kind)}</span>` : ''}${levelBadge(r.level)}</div>
<h3><code>${text(r.id)}</code> <span class="f-title">${text(r.title)}</span></h3>
<p class="muted small">suite <b>${text(r.suite)}</b> · ${text(humanDuration(r.ms))} · proves ${this.clauseList(r.clauses)}</p>
</header>`);
    if (f) {
      const clauseTitle = this.clauseTitles.get(f.clause);
      parts.push(`${difference(f.documented, f.received)}
<p class="clause small muted">Clause <code>${text(f.clause)}</code>${clauseTitle ? ` · ${text(clauseTitle)}` : ''}${f.exchange !== undefined && r.exchanges.some((e) => e.n === f.exchange) ? ` · judged on call <a href="#${this.anchor(r.id)}-call-${f.exchange}">#${f.exchange}</a>` : ''}</p>${f.note ? `<p class="note"><b>Note:</b> ${text(f.note)}</p>` : ''}`);
    } else if (r.outcome === 'errored') {
      parts.push(`<div class="errbox"><h4>Error</h4>${pre(r.error ?? 'errored without a recorded error')}<p class="muted small">An errored check is a bug in the check or an unreachable target, not a verdict on the API.</p></div>`);
    }
    // What a person acts on first: the request to paste, then the whole check to replay (issue 27 item 5).
    if (r.curl !== undefined) parts.push(this.command(`${this.anchor(r.id)}-curl`, 'The failing request', r.curl, curlNote(this.report, r.curl)));
    parts.push(this.command(copyId, 'Replay the check', r.replay, replayNote(r.replay)));
    if (r.property) {
      const p = r.property;
      parts.push(`<div class="prop"><h4>Property run</h4>
<dl class="facts"><div><dt>Seed</dt><dd><code>${p.seed}</code></dd></div><div><dt>Path</dt><dd>${p.path !== undefined ? `<code>${text(p.path)}</code>` : '<span class="muted">–</span>'}</dd></div><div><dt>Runs</dt><dd>${p.numRuns}</dd></div></dl>
${p.counterexample !== undefined ? `<h5>Counterexample (shrunk)</h5>${pre(p.counterexample)}` : ''}
</div>`);
    }
    if (r.exchanges.length > 0) {
      const firstOpen = r.exchanges.length - OPEN_EXCHANGES;
      parts.push(`<div class="exchanges"><h4>HTTP exchanges <span class="muted">(${r.exchanges.length}${r.exchanges.length > OPEN_EXCHANGES ? `; the last ${OPEN_EXCHANGES} open` : ''})</span></h4>
<ol class="calls">${r.exchanges.map((e, i) => exchange(e, i >= firstOpen || e.n === f?.exchange, `${this.anchor(r.id)}-call-${e.n}`)).join('\n')}</ol></div>`);
    } else {
      parts.push('<p class="muted small">No HTTP exchanges were recorded.</p>');
    }
    return `<article class="failure o-${r.outcome}" id="${this.anchor(r.id)}">\n${parts.join('\n')}\n</article>`;
  }

  /** A command with its copy button, and a line on what it needs. */
  private command(id: string, heading: string, command: string, note: string): string {
    return `<div class="command"><h4>${text(heading)}</h4><div class="cmd"><pre id="${id}"><code>${text(command)}</code></pre><button type="button" class="copy" data-copy="${id}" hidden>Copy</button></div>${note ? `<p class="muted small">${note}</p>` : ''}</div>`;
  }

  // ------------------------------------------------------------ reasons

  private reasons(id: string, heading: string, intro: string, results: CheckResult[]): string {
    return `<section id="${id}" aria-labelledby="${id}-h">
<h2 id="${id}-h">${heading}</h2>
<p class="muted">${intro}</p>
<div class="table-scroll"><table class="reasons">
<thead><tr><th scope="col">Check</th><th scope="col">Title</th><th scope="col">Level</th><th scope="col">Reason</th></tr></thead>
<tbody>${results.map((r) => `<tr id="${this.anchor(r.id)}"><td class="cid"><code>${text(r.id)}</code></td><td>${text(r.title)}</td><td>${levelBadge(r.level)}</td><td>${r.reason !== undefined ? text(r.reason) : '<span class="muted">no reason given</span>'}</td></tr>`).join('\n')}</tbody>
</table></div>
</section>`;
  }

  // ------------------------------------------------------------ helpers

  anchor(checkId: string): string {
    return this.anchors.get(checkId) ?? `${this.anchorPrefix}${checkId.replace(/[^A-Za-z0-9_-]+/g, '-')}`;
  }

  private clauseChips(clauses: readonly string[]): string {
    return clauses.map((c) => `<span class="clause-chip" title="${attr(this.clauseTitles.get(c) ?? '')}">${text(c)}</span>`).join(' ');
  }

  private clauseList(clauses: readonly string[]): string {
    if (clauses.length === 0) return 'no clause';
    return listOf(clauses.map((c) => {
      const title = this.clauseTitles.get(c);
      return `<code>${text(c)}</code>${title ? ` <span class="muted">(${text(title)})</span>` : ''}`;
    }));
  }
}

// ------------------------------------------------------------------ pieces

/**
 * Documented against received as a difference: both sentences, the words
 * that differ marked (removed from the documented one, added in the received
 * one), so the breach shows without comparing two paragraphs by eye.
 */
export function difference(documented: string, received: string): string {
  const parts = wordDiff(documented, received);
  const marked = likeness(parts) >= LIKENESS_TO_MARK;
  const side = (keep: 'del' | 'ins', tag: 'del' | 'ins') => (marked
    ? parts.filter((p) => p.op === 'same' || p.op === keep).map((p) => (p.op === 'same' ? text(p.text) : `<${tag}>${text(p.text)}</${tag}>`)).join('')
    : text(keep === 'del' ? documented : received));
  const unrelated = marked ? '' : '<p class="muted small">The two have too little in common to mark words: each is shown whole.</p>';
  return `<div class="diff" role="group" aria-label="Difference between documented and received">
<h4>Difference <span class="muted">(documented → received)</span></h4>
<div class="d-line d-doc"><span class="sign" aria-hidden="true">−</span><span class="who">Documented</span><span class="txt">${side('del', 'del')}</span></div>
<div class="d-line d-rec"><span class="sign" aria-hidden="true">+</span><span class="who">Received</span><span class="txt">${side('ins', 'ins')}</span></div>
${unrelated}</div>`;
}

/** The variables a command names (`$PARTNER_API_KEY`, `${PARTNER_OTHER_API_KEY:?}`), in order, once each. */
function variablesOf(command: string): string[] {
  return [...new Set(command.match(/(?<=\$\{?)[A-Z][A-Z0-9_]*/g) ?? [])];
}

function replayNote(replay: string): string {
  const vars = variablesOf(replay);
  const where = whereItRuns(replay);
  return vars.length === 0 ? `Runs as is ${where}.`
    : `Needs ${listOf(vars.map((v) => `<code>${text(v)}</code>`))} set to the credentials of the run; runs ${where}.`;
}

/**
 * Where a replay command runs, and its other spelling, read from the command itself: `npm run watch -- …` in a
 * clone, `npx partner-api watch …` where the package is installed (a watch report's replay is watch's, never
 * conformance's: issue 41 item 9).
 */
function whereItRuns(replay: string): string {
  const installed = /\bnpx partner-api ([\w-]+)/.exec(replay)?.[1];
  if (installed !== undefined) return `where the package is installed (in a clone: <code>npm run ${text(installed)} --</code> for <code>npx partner-api ${text(installed)}</code>)`;
  const clone = /\bnpm run ([\w-]+) --/.exec(replay)?.[1];
  if (clone !== undefined) return `in a clone (installed: <code>npx partner-api ${text(clone)}</code> for <code>npm run ${text(clone)} --</code>)`;
  return 'in a clone';
}

function curlNote(report: RunReport, curl: string): string {
  const vars = variablesOf(curl);
  const needs = vars.length > 0 ? `Needs ${listOf(vars.map((v) => `<code>${text(v)}</code>`))} set to the credential the check sent. ` : '';
  return report.target.kind === 'in-process'
    ? `${needs}The in-process simulator that answered is gone: against <code>npm start</code>, change the host and take the credentials from its fixtures file.`
    : `${needs}The same call again: a write may be refused or replayed now that the first one was made.`;
}

function exchange(e: Exchange, open: boolean, id: string): string {
  const status = Number.isFinite(e.status) ? e.status : 0;
  const cls = status >= 500 ? 's5' : status >= 400 ? 's4' : status >= 300 ? 's3' : status >= 200 ? 's2' : 's0';
  return `<li class="call" id="${attr(id)}" value="${Number.isFinite(e.n) ? e.n : 0}"><details${open ? ' open' : ''}>
<summary><span class="n">#${text(String(e.n))}</span><span class="method">${text(e.method)}</span><code class="url">${text(e.url)}</code><span class="status ${cls}">${text(String(e.status))}</span><span class="muted">${text(humanDuration(e.ms))}</span></summary>
<div class="call-grid">
<div class="side"><h5>Request</h5>${headerBlock(e.requestHeaders)}${e.requestBody !== undefined && e.requestBody !== '' ? bodyBlock(e.requestBody, e.requestHeaders) : '<p class="muted small">no body</p>'}</div>
<div class="side"><h5>Response <span class="status ${cls}">${text(String(e.status))}</span></h5>${headerBlock(e.responseHeaders)}${e.responseBody !== '' ? bodyBlock(e.responseBody, e.responseHeaders) : '<p class="muted small">no body</p>'}</div>
</div>
</details></li>`;
}

function headerBlock(headers: Record<string, string>): string {
  const entries = Object.entries(headers);
  if (entries.length === 0) return '<p class="muted small">no headers</p>';
  return `<pre class="headers">${entries.map(([k, v]) => `<span class="hn">${text(k)}</span>: ${text(v)}`).join('\n')}</pre>`;
}

function bodyBlock(body: string, headers: Record<string, string>): string {
  const indented = reindentJson(body, headers);
  const shown = indented ?? body;
  const cut = truncate(shown, HTML_BODY_LIMIT);
  const notes: string[] = [];
  if (indented !== null && indented !== body) notes.push('JSON re-indented for reading; tokens unchanged');
  if (cut.omitted > 0) notes.push(`truncated: showing the first ${HTML_BODY_LIMIT.toLocaleString('en-US')} of ${cut.total.toLocaleString('en-US')} characters; report.json has the whole body`);
  return `${pre(cut.text, 'body')}${notes.length > 0 ? `<p class="note">${text(notes.join(' · '))}</p>` : ''}`;
}

/**
 * A JSON body re-indented by inserting whitespace between tokens only (number
 * literals, key order and duplicate keys stay exactly as received); null when
 * the body is not JSON.
 */
export function reindentJson(body: string, headers: Record<string, string> = {}): string | null {
  const contentType = Object.entries(headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? '';
  const looksJson = /json/i.test(contentType) || /^\s*[[{]/.test(body);
  if (!looksJson) return null;
  try {
    JSON.parse(body);
  } catch {
    return null;
  }
  let out = '';
  let depth = 0;
  let inString = false;
  const newline = () => `\n${'  '.repeat(depth)}`;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i] as string;
    if (inString) {
      out += ch;
      if (ch === '\\') out += body[++i] ?? '';
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === ' ' || ch === '\n' || ch === '\r' || ch === '\t') continue;
    if (ch === '"') {
      inString = true;
      out += ch;
    } else if (ch === '{' || ch === '[') {
      const close = ch === '{' ? '}' : ']';
      let j = i + 1;
      while (j < body.length && /\s/.test(body[j] as string)) j++;
      if (body[j] === close) {
        out += ch + close;
        i = j;
      } else {
        depth++;
        out += ch + newline();
      }
    } else if (ch === '}' || ch === ']') {
      depth--;
      out += newline() + ch;
    } else if (ch === ',') {
      out += `,${newline()}`;
    } else if (ch === ':') {
      out += ': ';
    } else {
      out += ch;
    }
  }
  return out;
}

export function levelBadge(level: CheckResult['level']): string {
  return level === 'normative'
    ? '<span class="level normative" title="the API document says so">normative</span>'
    : '<span class="level assumption" title="relies on an x-assumption of spec/openapi.yaml">assumption</span>';
}

export function filterBar(target: string, keys: Array<[string, string]>, placeholder: string): string {
  return `<div class="filters" data-filter-for="${target}" hidden>
${keys.map(([key, label]) => `<button type="button" class="fbtn k-${key}" data-key="${key}" aria-pressed="true">${text(label)}</button>`).join('')}
<input type="search" placeholder="${attr(placeholder)}" aria-label="${attr(placeholder)}">
</div>`;
}

/** A check id that may wrap after its underscores rather than mid-word. */
function breakable(id: string): string {
  return text(id).replace(/_/g, '_<wbr>');
}

function pre(content: string, cls = ''): string {
  return `<pre${cls ? ` class="${cls}"` : ''}>${text(content)}</pre>`;
}

function pct(n: number, total: number): string {
  return total === 0 ? '0%' : `${Math.round((n / total) * 1000) / 10}%`;
}

function firstLine(s: string): string {
  return s.split('\n')[0] ?? '';
}

// ------------------------------------------------------------------ escaping

/**
 * Characters a page must not carry raw: C0 controls but tab/LF/CR, DEL, C1
 * controls, lone surrogates, U+FFFE/U+FFFF. Shown by name instead.
 */
const INVISIBLE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

const C0_NAMES = ['NUL', 'SOH', 'STX', 'ETX', 'EOT', 'ENQ', 'ACK', 'BEL', 'BS', 'HT', 'LF', 'VT', 'FF', 'CR', 'SO', 'SI',
  'DLE', 'DC1', 'DC2', 'DC3', 'DC4', 'NAK', 'SYN', 'ETB', 'CAN', 'EM', 'SUB', 'ESC', 'FS', 'GS', 'RS', 'US'];

/** The name of a control character in ASCII (`ESC`, `NUL`, `DEL`, `U+0085`): every font can show it. */
function controlName(ch: string): string {
  const code = ch.charCodeAt(0);
  if (code < 0x20) return C0_NAMES[code] ?? 'CTL';
  if (code === 0x7f) return 'DEL';
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

function escapeMarkup(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** Text content: markup escaped, control characters shown by name in a marked box. */
export function text(s: string): string {
  return escapeMarkup(s).replace(INVISIBLE, (ch) => `<span class="ctl" title="control character U+${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}">${controlName(ch)}</span>`);
}

/** An attribute value (always double-quoted): markup and quotes escaped, control characters by name in angle quotes. */
export function attr(s: string): string {
  return escapeMarkup(s).replace(INVISIBLE, (ch) => `‹${controlName(ch)}›`);
}

// ------------------------------------------------------------------ style and script

export const CSS = `
:root{
  --bg:#f5f6f8;--surface:#fff;--text:#1c2128;--muted:#59636e;--border:#d8dee4;--soft:#eef1f4;--accent:#0b5cad;
  --pass:#1a7f37;--pass-bg:#dcf5e3;--fail:#c62828;--fail-bg:#fde8e8;--err:#b35900;--err-bg:#fff0dc;
  --na:#5c6670;--na-bg:#e9edf1;--skip:#6b6f9a;--skip-bg:#ecebf7;--notrun:#8a6100;--notrun-bg:#fff5cc;--unc:#6b7480;--unc-bg:#fff;
  --code-bg:#f3f5f7;--mono:ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,"Liberation Mono",monospace;
  --sans:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,"Noto Sans",sans-serif;
}
@media (prefers-color-scheme:dark){:root{
  --bg:#0f1216;--surface:#171b21;--text:#e3e7ec;--muted:#9aa5b1;--border:#2e353e;--soft:#1f252d;--accent:#6cb0ff;
  --pass:#4cc26b;--pass-bg:#15301e;--fail:#ff7b72;--fail-bg:#3a1a1a;--err:#f0a050;--err-bg:#35250f;
  --na:#a3acb6;--na-bg:#242b33;--skip:#a9a8d8;--skip-bg:#25243a;--notrun:#e0b640;--notrun-bg:#332a0c;--unc:#8c96a1;--unc-bg:#171b21;--code-bg:#1d2229;
}}
*{box-sizing:border-box}
[hidden]{display:none!important}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--text);font:15px/1.5 var(--sans)}
code,pre,.mono{font-family:var(--mono);font-size:.9em}
a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}
.wrap{max-width:1240px;margin:0 auto;padding:0 24px}
.muted{color:var(--muted)}.small{font-size:.88em}
h2{font-size:1.3rem;margin:0 0 .6rem;letter-spacing:-.01em}
h3{font-size:1.05rem;margin:0}
h4{font-size:.8rem;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);margin:1.1rem 0 .4rem}
h5{font-size:.85rem;margin:.2rem 0 .4rem}
main>section{background:var(--surface);border:1px solid var(--border);border-radius:10px;padding:20px 22px;margin:18px 0}
.masthead{background:var(--surface);border-bottom:1px solid var(--border);padding:22px 0 16px}
.title-row{display:flex;justify-content:space-between;align-items:flex-start;gap:16px;flex-wrap:wrap}
.eyebrow{margin:0;color:var(--muted);font-size:.85rem;font-weight:600;letter-spacing:.02em}
h1{margin:.1rem 0 0;font-size:1.6rem;letter-spacing:-.015em}h1 code{font-size:.95em}
.v-insufficient{color:var(--notrun);border-color:var(--notrun)}.verdict{font-weight:700;font-size:1.05rem;padding:.45rem 1rem;border-radius:8px;border:1px solid}
.v-passed{color:var(--pass);background:var(--pass-bg);border-color:var(--pass)}
.v-partial{color:var(--notrun);background:var(--notrun-bg);border-color:var(--notrun)}
.verdict .v-proof{display:block;font-size:.78rem;font-weight:600;opacity:.9}
.proof{display:grid;gap:10px}
.proof .fig .big{font-size:2.2rem;font-weight:700;letter-spacing:-.03em;line-height:1.1}
.proof .fig .of{font-size:1.1rem;font-weight:600;color:var(--muted)}
.proof .fig .l{font-size:.85rem;color:var(--muted)}
.partial-note{border:1px solid var(--notrun);background:var(--notrun-bg);border-radius:8px;padding:8px 12px;margin:12px 0 4px}
.rate{margin:10px 0 0}
.diff{border:1px solid var(--border);border-radius:8px;padding:4px 14px 10px;margin-top:12px}
.diff h4{margin-top:.6rem}
.d-line{display:grid;grid-template-columns:1.2em 7.5em 1fr;gap:6px;align-items:baseline;padding:4px 8px;border-radius:6px;margin:3px 0}
.d-line .txt{white-space:pre-wrap;overflow-wrap:anywhere;font-family:var(--mono);font-size:.9em}
.d-line .who{font-size:.75rem;text-transform:uppercase;letter-spacing:.05em;font-weight:700}
/* git diff's habit: the documented side is the − line in red, the received side the + line in green */
.d-doc{background:var(--fail-bg)}.d-doc .who,.d-doc .sign{color:var(--fail)}
.d-rec{background:var(--pass-bg)}.d-rec .who,.d-rec .sign{color:var(--pass)}
.sign{font-weight:700;font-family:var(--mono)}
.diff del{background:color-mix(in srgb,var(--fail) 28%,transparent);text-decoration:line-through;text-decoration-thickness:1px;border-radius:3px;padding:0 2px}
.diff ins{background:color-mix(in srgb,var(--pass) 28%,transparent);text-decoration:none;font-weight:700;border-radius:3px;padding:0 2px}
.clause{margin:.4rem 0 0}
.v-failed{color:var(--fail);background:var(--fail-bg);border-color:var(--fail)}
.meta{display:grid;grid-template-columns:repeat(auto-fill,minmax(230px,1fr));gap:10px 24px;margin:16px 0 0}
.meta>div{min-width:0}.meta .wide{grid-column:1/-1}
.meta dt{font-size:.75rem;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);font-weight:600}
.meta dd{margin:.1rem 0 0;overflow-wrap:anywhere}
.digest{word-break:break-all;font-size:.82em}
.kind{font-weight:600}
.chip,.clause-chip{display:inline-block;font-family:var(--mono);font-size:.78rem;padding:1px 7px;border-radius:999px;background:var(--soft);border:1px solid var(--border);white-space:nowrap;margin:1px 0}
.options{display:flex;flex-wrap:wrap;gap:6px}
.opt{background:var(--soft);border:1px solid var(--border);border-radius:6px;padding:1px 8px;font-size:.88rem}
.opt .k{color:var(--muted)}
.toc{position:sticky;top:0;z-index:5;background:color-mix(in srgb,var(--surface) 92%,transparent);backdrop-filter:blur(6px);border-bottom:1px solid var(--border)}
.toc .wrap{display:flex;gap:4px;flex-wrap:wrap;padding-top:6px;padding-bottom:6px}
.toc a{padding:4px 10px;border-radius:6px;font-size:.9rem;font-weight:500}.toc a:hover{background:var(--soft);text-decoration:none}
.summary-grid{display:grid;grid-template-columns:minmax(180px,240px) 1fr;gap:20px;align-items:center}
.rate .big{font-size:2.6rem;font-weight:700;letter-spacing:-.03em;line-height:1.1}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(110px,1fr));gap:10px}
.card{border:1px solid var(--border);border-top:4px solid var(--c,var(--border));border-radius:8px;padding:8px 12px;background:var(--surface)}
.card .n{font-size:1.6rem;font-weight:700;color:var(--c,var(--text));line-height:1.2}.card .l{font-size:.85rem;color:var(--muted)}
.card.total{--c:var(--text)}
.o-passed{--c:var(--pass);--cb:var(--pass-bg)}.o-failed{--c:var(--fail);--cb:var(--fail-bg)}.o-errored{--c:var(--err);--cb:var(--err-bg)}
.o-not_applicable{--c:var(--na);--cb:var(--na-bg)}.o-skipped{--c:var(--skip);--cb:var(--skip-bg)}
.c-passed{--c:var(--pass);--cb:var(--pass-bg)}.c-failed{--c:var(--fail);--cb:var(--fail-bg)}.c-not_run{--c:var(--notrun);--cb:var(--notrun-bg)}.c-uncovered{--c:var(--unc);--cb:var(--unc-bg)}.c-untestable{--c:var(--notrun);--cb:transparent}
.bar{display:flex;height:14px;border-radius:7px;overflow:hidden;background:var(--soft);margin:18px 0 8px;border:1px solid var(--border)}
.seg{display:block;height:100%;background:var(--c)}
.legend{display:flex;flex-wrap:wrap;gap:6px 18px;font-size:.88rem;margin:6px 0 10px}
.key{display:inline-flex;align-items:center;gap:6px}
.sw{width:12px;height:12px;border-radius:3px;background:var(--c);display:inline-block}
.sw.c-uncovered{background:var(--unc-bg);border:1.5px dashed var(--unc)}
.attention{border:1px solid var(--fail);background:var(--fail-bg);border-radius:8px;padding:10px 14px;margin-top:12px}
.attention h3{font-size:.95rem;margin:0 0 .3rem;color:var(--fail)}
.attention ul{margin:0;padding-left:1.1rem}.attention li{margin:.2rem 0}
.badge{display:inline-block;font-size:.75rem;font-weight:600;padding:1px 8px;border-radius:999px;color:var(--c);background:var(--cb);border:1px solid color-mix(in srgb,var(--c) 35%,transparent);white-space:nowrap}
.level{display:inline-block;font-size:.72rem;font-weight:600;padding:0 7px;border-radius:4px;white-space:nowrap;letter-spacing:.02em}
.level.normative{background:#e3ecfa;color:#1d4f91;border:1px solid #b8cdef}
.level.assumption{background:transparent;color:#8a5a00;border:1px dashed #c79a3a}
@media (prefers-color-scheme:dark){.level.normative{background:#1b2b44;color:#a9c8f5;border-color:#2d4a75}.level.assumption{color:#e2b65a;border-color:#8a6a2a}}
.kindname{font-family:var(--mono);font-size:.82rem;font-weight:600;color:var(--fail)}
.filters{display:flex;flex-wrap:wrap;gap:6px;align-items:center;margin:8px 0 12px}
.fbtn{font:inherit;font-size:.82rem;padding:3px 10px;border-radius:999px;border:1px solid var(--border);background:var(--surface);color:var(--text);cursor:pointer}
.fbtn[aria-pressed="true"]{background:var(--soft);border-color:var(--muted);font-weight:600}
.fbtn[aria-pressed="false"]{opacity:.55;text-decoration:line-through}
.filters input{font:inherit;font-size:.88rem;padding:4px 10px;border:1px solid var(--border);border-radius:6px;min-width:260px;flex:1;max-width:420px;background:var(--surface);color:var(--text)}
.cov-row{border-top:1px solid var(--border);padding:8px 0}
.cov-label{display:flex;flex-wrap:wrap;align-items:center;gap:4px 10px;cursor:pointer}
.cov-row[open]>.cov-label{margin-bottom:8px}
.sec{font-weight:700;font-family:var(--mono);font-size:1rem}
.count{color:var(--muted);font-size:.8rem}
.mini{font-size:.72rem;padding:0 7px;border-radius:999px;background:var(--cb);color:var(--c);font-weight:600;white-space:nowrap}
.mini.c-uncovered{border:1px dashed var(--unc)}
.tiles{list-style:none;margin:0;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(180px,1fr));gap:8px}
.tile{border:1px solid color-mix(in srgb,var(--c) 45%,transparent);border-left:4px solid var(--c);background:var(--cb);border-radius:6px;padding:6px 9px;min-width:0}
.tile.c-uncovered{border:1.5px dashed var(--unc);border-left-width:4px}
.tile-head{display:flex;justify-content:space-between;gap:6px;align-items:baseline}
.cid{font-family:var(--mono);font-weight:700;font-size:.85rem}
.st{font-size:.68rem;text-transform:uppercase;letter-spacing:.05em;color:var(--c);font-weight:700}
.ctitle{font-size:.84rem;line-height:1.3;margin:2px 0;overflow-wrap:anywhere}
.cchecks{display:flex;flex-wrap:wrap;gap:2px 8px;font-family:var(--mono);font-size:.74rem;overflow-wrap:anywhere}
.cchecks .none{color:var(--muted);font-style:italic;font-family:var(--sans)}
.bite{font-size:.7rem;color:var(--muted);font-style:italic;margin-top:2px}
.table-scroll{overflow-x:auto;border:1px solid var(--border);border-radius:8px}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th{text-align:left;font-size:.75rem;text-transform:uppercase;letter-spacing:.05em;color:var(--muted);background:var(--soft);padding:8px 10px;border-bottom:1px solid var(--border);white-space:nowrap}
td{padding:7px 10px;border-bottom:1px solid var(--border);vertical-align:top}
tbody tr:last-child td{border-bottom:0}
tbody tr:hover td{background:color-mix(in srgb,var(--soft) 60%,transparent)}
tr.o-failed td,tr.o-errored td{background:color-mix(in srgb,var(--cb) 55%,transparent)}
tr.o-failed td:first-child,tr.o-errored td:first-child{box-shadow:inset 3px 0 0 var(--c)}
td.cid{white-space:nowrap}td.cid code{font-weight:600}
td.suite{color:var(--muted);white-space:nowrap}
td.clauses{min-width:150px}
.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
.failure{border:1px solid var(--border);border-left:5px solid var(--c);border-radius:8px;padding:14px 18px;margin:14px 0;background:var(--surface)}
.f-badges{display:flex;gap:8px;align-items:center;flex-wrap:wrap;margin-bottom:6px}
.f-head h3 code{font-size:1rem}.f-title{font-weight:500}
.f-head p{margin:.3rem 0 0}
.errbox pre{border-left:3px solid var(--err)}
.facts{display:flex;gap:8px 28px;flex-wrap:wrap;margin:0}
.facts dt{font-size:.75rem;color:var(--muted);text-transform:uppercase;letter-spacing:.05em}.facts dd{margin:0;font-weight:600;font-family:var(--mono);font-size:.9rem}
pre{background:var(--code-bg);border:1px solid var(--border);border-radius:6px;padding:10px 12px;margin:.3rem 0;white-space:pre-wrap;overflow-wrap:anywhere;line-height:1.45;max-height:36em;overflow:auto}
.cmd{position:relative}
.cmd pre{padding-right:76px;background:#1f2430;color:#e8ecf1;border-color:#1f2430}
.copy{position:absolute;top:7px;right:7px;font:inherit;font-size:.78rem;padding:2px 10px;border-radius:5px;border:1px solid #4a5568;background:#2d3442;color:#e8ecf1;cursor:pointer}
.copy:hover{background:#3a4353}
.calls{list-style:none;padding:0;margin:0}
.call{border:1px solid var(--border);border-radius:8px;margin:8px 0;background:var(--surface)}
.call>details>summary{cursor:pointer;display:flex;gap:10px;align-items:center;padding:7px 12px;flex-wrap:wrap;background:var(--soft);border-radius:8px}
.call>details[open]>summary{border-bottom:1px solid var(--border);border-radius:8px 8px 0 0}
.call .n{font-weight:700;color:var(--muted);font-variant-numeric:tabular-nums}
.method{font-family:var(--mono);font-weight:700;font-size:.8rem;padding:0 6px;border-radius:4px;background:var(--surface);border:1px solid var(--border)}
.call .url{overflow-wrap:anywhere;flex:1;min-width:200px}
.status{font-family:var(--mono);font-weight:700;font-size:.8rem;padding:0 7px;border-radius:4px}
.s2{background:var(--pass-bg);color:var(--pass)}.s3{background:#e3ecfa;color:#1d4f91}.s4{background:var(--err-bg);color:var(--err)}.s5{background:var(--fail-bg);color:var(--fail)}.s0{background:var(--na-bg);color:var(--na)}
.call-grid{display:grid;grid-template-columns:1fr 1fr;gap:14px;padding:8px 12px 12px}
.side{min-width:0}
.headers .hn{color:var(--accent);font-weight:600}
.note{font-size:.8rem;color:var(--muted);margin:.1rem 0 .4rem;font-style:italic}
.ctl{display:inline-block;font-family:var(--sans);font-size:.68em;line-height:1.3;vertical-align:1px;background:var(--err-bg);color:var(--err);border:1px solid color-mix(in srgb,var(--err) 45%,transparent);border-radius:3px;padding:0 3px;margin:0 1px;font-weight:700}
.reasons td:last-child{color:var(--text)}
.foot{color:var(--muted);font-size:.82rem;padding-bottom:30px}
@media (max-width:820px){
  .wrap{padding:0 14px}main>section{padding:14px}
  .summary-grid,.call-grid{grid-template-columns:1fr}
  .d-line{grid-template-columns:1.2em 1fr}.d-line .who{display:none}
  .filters input{min-width:0;flex-basis:100%;max-width:none}
}
@media print{.toc,.filters,.copy{display:none!important}main>section{break-inside:auto;border:0;padding:0}.failure{break-inside:avoid-page}pre{max-height:none}}
`;

// Filters: each [data-filter-for] bar toggles items ([data-key]) of its target
// by key and by text; groups ([data-group]) with nothing visible are hidden.
// Copy buttons copy the text of the element they name. Without JS the bars
// and buttons stay hidden and everything is shown.
export const SCRIPT = `
(function(){
  document.querySelectorAll('[data-filter-for]').forEach(function(bar){
    var root=document.getElementById(bar.getAttribute('data-filter-for'));
    if(!root)return;
    bar.hidden=false;
    var input=bar.querySelector('input');
    function apply(){
      var on={};
      bar.querySelectorAll('button[data-key]').forEach(function(b){on[b.getAttribute('data-key')]=b.getAttribute('aria-pressed')==='true';});
      var q=(input&&input.value||'').trim().toLowerCase();
      root.querySelectorAll('[data-key]').forEach(function(el){
        var show=on[el.getAttribute('data-key')]!==false&&(!q||(el.getAttribute('data-search')||'').indexOf(q)!==-1);
        el.hidden=!show;
      });
      var groups=root.matches('[data-group]')?[]:root.querySelectorAll('[data-group]');
      var narrowed=!!q||Object.keys(on).some(function(k){return !on[k];});
      groups.forEach(function(g){g.hidden=!g.querySelector('[data-key]:not([hidden])');if(narrowed&&!g.hidden&&g.tagName==='DETAILS')g.open=true;});
    }
    bar.querySelectorAll('button[data-key]').forEach(function(b){
      b.addEventListener('click',function(){b.setAttribute('aria-pressed',b.getAttribute('aria-pressed')==='true'?'false':'true');apply();});
    });
    if(input)input.addEventListener('input',apply);
  });
  document.querySelectorAll('button[data-copy]').forEach(function(btn){
    var source=document.getElementById(btn.getAttribute('data-copy'));
    if(!source)return;
    btn.hidden=false;
    btn.addEventListener('click',function(){
      var t=source.textContent||'';
      function done(){btn.textContent='Copied';setTimeout(function(){btn.textContent='Copy';},1500);}
      function fallback(){var r=document.createRange();r.selectNodeContents(source);var s=window.getSelection();s.removeAllRanges();s.addRange(r);try{document.execCommand('copy');done();}catch(e){}}
      if(navigator.clipboard&&navigator.clipboard.writeText)navigator.clipboard.writeText(t).then(done,fallback);else fallback();
    });
  });
})();
`;
