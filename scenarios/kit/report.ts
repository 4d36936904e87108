/**
 * The timeline of a run for people: `reports/scenarios/<NAME>.md` and a
 * self-contained `<NAME>.html` (inline style, no scripts, nothing fetched).
 * Clock, actor, call or event, sequence, outcome; on failure, where the
 * partner's state first diverged. Credentials never reach the disk: both
 * files go through the report writers' redaction.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { redactSecrets } from '../../reporting/write.ts';
import { describeDifference, show, type Divergence } from './convergence.ts';
import type { TimelineEntry } from './timeline.ts';

/**
 * reports/scenarios/ under the working directory: the project root for `npm
 * run scenario` in a clone, the user's own directory for the installed
 * command (never inside the installed package).
 */
export const DEFAULT_REPORT_DIR = join('reports', 'scenarios');

export interface ScenarioReport {
  name: string;
  number: number;
  title: string;
  story: string;
  live: { capable: boolean; note: string };
  mode: 'simulator' | 'live';
  ok: boolean;
  /** Breakages switched on in the partner (certification tests), by name. */
  breakages: string[];
  failure: string | null;
  /** A live wait that ran out (issue 38): what was not observed. Neither passed nor failed. */
  notObserved?: string | null;
  divergence: Divergence | null;
  timeline: TimelineEntry[];
  startedAt: number;
  durationMs: number;
}

const OFFSET_MS = 330 * 60_000;

/** `2026-09-15 12:00:10` on the platform's calendar. */
export function clockText(ms: number): string {
  return new Date(ms + OFFSET_MS).toISOString().slice(0, 19).replace('T', ' ');
}

/** `+2:00:10`, `+31d 0:00:00`. */
export function elapsedText(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const hms = `${h}:${String(m).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
  return `+${d > 0 ? `${d}d ` : ''}${hms}`;
}

function headline(r: ScenarioReport): string {
  return `Scenario ${r.number} · ${r.name}: ${r.title}`;
}

function firstLine(d: Divergence): string {
  const first = d.differences[0];
  return first ? describeDifference(first) : 'none: the partner still matched the platform when the run stopped';
}

/** PASSED, FAILED, or NOT OBSERVED (a live wait ran out: neither). */
export function verdictWord(r: Pick<ScenarioReport, 'ok' | 'failure' | 'notObserved'>): string {
  return r.ok ? 'PASSED' : r.failure === null && r.notObserved ? 'NOT OBSERVED' : 'FAILED';
}

export function renderMarkdown(r: ScenarioReport): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const start = r.timeline[0]?.at ?? r.startedAt;
  const lines = [
    `# ${headline(r)}`,
    '',
    `**${verdictWord(r)}** · ${r.mode} · ${(r.durationMs / 1000).toFixed(1)} s real time · platform clock ${clockText(start)} → ${clockText(r.timeline.at(-1)?.at ?? start)} (+05:30)`,
    '',
    `${r.story}`,
    '',
    `Live target: ${r.live.capable ? 'yes' : 'no'}. ${r.live.note}`,
    ...(r.breakages.length > 0 ? ['', `Partner deliberately broken: **${r.breakages.join(', ')}**.`] : []),
  ];
  if (!r.ok && r.failure === null && r.notObserved) lines.push('', '## Not observed', '', `${r.notObserved}: a live wait that ran out judges nothing (neither passed nor failed).`);
  else if (!r.ok) {
    lines.push('', '## Failure', '', r.failure ?? '');
    if (r.divergence) lines.push(...divergenceMarkdown(r.divergence));
  }
  lines.push('', '## Timeline', '', '| # | clock | elapsed | actor | call or event | seq | outcome |', '|---|---|---|---|---|---|---|');
  r.timeline.forEach((e, i) => {
    const mark = e.level === 'fail' ? '✗ ' : e.level === 'ok' ? '✓ ' : '';
    lines.push(`| ${i + 1} | ${clockText(e.at)} | ${elapsedText(e.at - start)} | ${e.actor} | ${cell(e.action)} | ${cell(e.sequence)} | ${mark}${cell(e.outcome)} |`);
  });
  lines.push('');
  return redactSecrets(lines.join('\n'));
}

function divergenceMarkdown(d: Divergence): string[] {
  const c = d.compared;
  const out = [
    '',
    "### Where the partner's state first diverged",
    '',
    `**${firstLine(d)}**`,
    '',
    `Compared ${c.properties} properties × availability, rates, restrictions over ${c.window.from}..${c.window.to} (${c.nights} nights), ${c.bookings} booking(s), ${c.reservations} reservation(s): ${d.total} difference(s).`,
  ];
  if (d.differences.length > 0) {
    out.push('', '| # | where | expected | actual |', '|---|---|---|---|');
    d.differences.slice(0, 20).forEach((x, i) => out.push(`| ${i + 1} | ${x.where.replace(/\|/g, '\\|')} | \`${show(x.expected).replace(/\|/g, '\\|')}\` | \`${show(x.actual).replace(/\|/g, '\\|')}\` |`));
    if (d.total > 20) out.push('', `… and ${d.total - 20} more.`);
  }
  return out;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function renderHtml(r: ScenarioReport): string {
  const start = r.timeline[0]?.at ?? r.startedAt;
  const rows = r.timeline.map((e, i) => `<tr class="${e.level} ${e.actor.replace(/\s/g, '-')}"><td>${i + 1}</td><td class="clock">${esc(clockText(e.at))}</td><td class="clock">${esc(elapsedText(e.at - start))}</td><td>${esc(e.actor)}</td><td>${esc(e.action)}</td><td class="seq">${esc(e.sequence)}</td><td>${esc(e.outcome)}</td></tr>`).join('\n');
  let failure = '';
  if (!r.ok && r.failure === null && r.notObserved) failure = `<section class="failure not-observed"><h2>Not observed</h2><p>${esc(r.notObserved)}: a live wait that ran out judges nothing (neither passed nor failed).</p></section>`;
  else if (!r.ok) {
    failure = `<section class="failure"><h2>Failure</h2><p>${esc(r.failure ?? '')}</p>`;
    if (r.divergence) {
      const d = r.divergence;
      const c = d.compared;
      failure += `<h3>Where the partner's state first diverged</h3><p class="first">${esc(firstLine(d))}</p>`;
      failure += `<p>Compared ${c.properties} properties × availability, rates, restrictions over ${esc(c.window.from)}..${esc(c.window.to)} (${c.nights} nights), ${c.bookings} booking(s), ${c.reservations} reservation(s): ${d.total} difference(s).</p>`;
      if (d.differences.length > 0) {
        failure += `<table><thead><tr><th>#</th><th>where</th><th>expected</th><th>actual</th></tr></thead><tbody>${d.differences.slice(0, 20).map((x, i) => `<tr><td>${i + 1}</td><td>${esc(x.where)}</td><td><code>${esc(show(x.expected))}</code></td><td><code>${esc(show(x.actual))}</code></td></tr>`).join('')}</tbody></table>`;
        if (d.total > 20) failure += `<p>… and ${d.total - 20} more.</p>`;
      }
    }
    failure += '</section>';
  }
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(headline(r))}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2rem;color:#1d1d1f}
h1{font-size:1.3rem}.verdict{font-weight:700;padding:.15rem .5rem;border-radius:4px;color:#fff}
.verdict.pass{background:#1a7f37}.verdict.fail{background:#cf222e}.verdict.info{background:#6e7781}
table{border-collapse:collapse;width:100%;margin:1rem 0}th,td{border-bottom:1px solid #ddd;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f8fa;position:sticky;top:0}td.clock,td.seq{white-space:nowrap;font-family:ui-monospace,monospace;font-size:12px}
tr.fail td{background:#ffebe9}tr.ok td{background:#dafbe1}tr.note td{color:#57606a;font-style:italic}
tr.scenario td{font-weight:600;background:#f6f8fa}.failure{border:2px solid #cf222e;border-radius:6px;padding:0 1rem;margin:1rem 0}
.first{font-weight:700;font-family:ui-monospace,monospace}code{font-size:12px}
</style></head><body>
<h1>${esc(headline(r))}</h1>
<p><span class="verdict ${r.ok ? 'pass' : verdictWord(r) === 'NOT OBSERVED' ? 'info' : 'fail'}">${verdictWord(r)}</span> ${esc(r.mode)} · ${(r.durationMs / 1000).toFixed(1)} s real time · platform clock ${esc(clockText(start))} → ${esc(clockText(r.timeline.at(-1)?.at ?? start))} (+05:30)</p>
<p>${esc(r.story)}</p>
<p>Live target: ${r.live.capable ? 'yes' : 'no'}. ${esc(r.live.note)}</p>
${r.breakages.length > 0 ? `<p>Partner deliberately broken: <strong>${esc(r.breakages.join(', '))}</strong>.</p>` : ''}
${failure}
<h2>Timeline</h2>
<table><thead><tr><th>#</th><th>clock</th><th>elapsed</th><th>actor</th><th>call or event</th><th>seq</th><th>outcome</th></tr></thead>
<tbody>
${rows}
</tbody></table>
</body></html>
`;
  return redactSecrets(html, '&lt;redacted&gt;');
}

/** Writes `<dir>/<fileName>.md` and `.html`; returns both paths. */
export function writeScenarioReport(r: ScenarioReport, reportDir = DEFAULT_REPORT_DIR, fileName = r.name): { md: string; html: string } {
  const dir = resolve(reportDir);
  mkdirSync(dir, { recursive: true });
  const md = join(dir, `${fileName}.md`);
  const html = join(dir, `${fileName}.html`);
  writeFileSync(md, renderMarkdown(r), 'utf8');
  writeFileSync(html, renderHtml(r), 'utf8');
  return { md, html };
}
