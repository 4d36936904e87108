/**
 * The benchmark report: what each comparison measured, the targets judged
 * on ratios from the same run, and its two renderings (a plain-text table
 * for the terminal, Markdown for reports/bench/bench.md). Pure functions of
 * the report, so the rendering is tested on a fake one (bench.test.ts).
 */

/** A column of a comparison's table; values are numbers formatted with `digits`, or text. */
export interface Column {
  key: string;
  label: string;
  digits?: number;
}

export interface Row {
  label: string;
  values: Record<string, number | string | null>;
}

export interface Ratio {
  label: string;
  value: number | null;
}

export type ComparisonStatus = 'measured' | 'unavailable' | 'failed';

export interface Comparison {
  /** 1 to 8, the benchmarks issue's numbering; 9, the soak of issue 17; 10, watch in the path (issue 26); 11, the shared sandbox (issue 39). */
  id: number;
  title: string;
  status: ComparisonStatus;
  /** Why nothing (or not everything) was measured. */
  reason?: string;
  /** How it was measured: tool, warm-up, rounds, pinning. */
  method: string;
  columns: Column[];
  rows: Row[];
  ratios: Ratio[];
  notes: string[];
}

export type Verdict = 'PASS' | 'MISS' | 'UNAVAILABLE';

/** A target of the issue, stated as a bound on one measured figure. */
export interface Target {
  id: string;
  comparison: number;
  description: string;
  /** `atLeast`: figure ≥ bound; `atMost`: figure ≤ bound; `below`: figure < bound. */
  kind: 'atLeast' | 'atMost' | 'below';
  bound: number;
  unit: string;
  measured: number | null;
  verdict: Verdict;
  /** For a MISS: why, and what would reach it; for UNAVAILABLE: why nothing was measured. */
  explanation?: string;
}

export interface MachineInfo {
  node: string;
  platform: string;
  cpus: number;
  cpuModel: string;
  taskset: boolean;
  pinning: string;
  /** 1-minute load averages at the start and the end of the run: other work on the machine skews every figure. */
  loadAverage: { start: number; end: number };
}

export interface BenchReport {
  startedAt: string;
  finishedAt: string;
  seconds: number;
  machine: MachineInfo;
  comparisons: Comparison[];
  targets: Target[];
}

/** PASS or MISS for a measured figure; UNAVAILABLE when there is none. */
export function judge(kind: Target['kind'], bound: number, measured: number | null): Verdict {
  if (measured === null || !Number.isFinite(measured)) return 'UNAVAILABLE';
  const ok = kind === 'atLeast' ? measured >= bound : kind === 'atMost' ? measured <= bound : measured < bound;
  return ok ? 'PASS' : 'MISS';
}

/** Builds a target, judging it; `explain` is consulted only when the verdict is not PASS. */
export function target(
  spec: Omit<Target, 'verdict' | 'explanation'>,
  explain: (verdict: Exclude<Verdict, 'PASS'>) => string | undefined = () => undefined,
): Target {
  const verdict = judge(spec.kind, spec.bound, spec.measured);
  const explanation = verdict === 'PASS' ? undefined : explain(verdict);
  return explanation === undefined ? { ...spec, verdict } : { ...spec, verdict, explanation };
}

/** A ratio of two figures, or null when either is missing or the divisor is zero. */
export function ratio(a: number | null | undefined, b: number | null | undefined): number | null {
  if (a == null || b == null || !Number.isFinite(a) || !Number.isFinite(b) || b === 0) return null;
  return a / b;
}

/** "1 round", "3 rounds". */
export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** `12,345`, `1.50`, or an em dash for a missing value. */
export function formatValue(value: number | string | null | undefined, digits = 0): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return value;
  if (!Number.isFinite(value)) return '—';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function formatRatio(value: number | null): string {
  return value === null ? '—' : `${formatValue(value, value >= 10 ? 1 : 2)}×`;
}

function boundText(t: Target): string {
  return `${{ atLeast: '≥', atMost: '≤', below: '<' }[t.kind]} ${formatValue(t.bound, Number.isInteger(t.bound) ? 0 : 2)}${t.unit === '×' ? '×' : ` ${t.unit}`}`;
}

function measuredText(t: Target): string {
  if (t.measured === null) return '—';
  let digits = t.unit === '×' ? 2 : t.measured >= 100 ? 0 : 2;
  // A figure that rounds to its bound gets the digits that show which side it is on.
  while (digits < 4 && t.measured !== t.bound && formatValue(t.measured, digits) === formatValue(t.bound, digits)) digits += 1;
  return `${formatValue(t.measured, digits)}${t.unit === '×' ? '×' : ` ${t.unit}`}`;
}

/** A busy machine makes every figure suspect: say so next to the numbers. */
export function loadText(m: MachineInfo): string {
  // The run loads the machine itself, so only the figure from before it says anything about other work.
  const busy = m.loadAverage.start > m.cpus * 0.5;
  return `${m.loadAverage.start.toFixed(2)} before the run${busy ? ' (other work was running on this machine: figures are noisy, run again on a quiet one)' : ''}, ${m.loadAverage.end.toFixed(2)} at its end (the run's own load included)`;
}

function cells(c: Comparison): { header: string[]; body: string[][] } {
  const header = ['', ...c.columns.map((col) => col.label)];
  const body = c.rows.map((r) => [r.label, ...c.columns.map((col) => formatValue(r.values[col.key], col.digits))]);
  return { header, body };
}

/** Aligns columns: the first `left` to the left (labels), the rest to the right (figures). */
function pad(rows: string[][], left = 1): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => [...(r[i] ?? '')].length)));
  const fit = (cell: string, i: number) => {
    const fill = ' '.repeat(widths[i]! - [...cell].length);
    return i < left ? cell + fill : fill + cell;
  };
  return rows.map((r) => r.map(fit).join('  ').trimEnd());
}

/** The terminal table: one block per comparison, then the targets. */
export function renderTable(report: BenchReport): string {
  const out: string[] = [];
  out.push(`Benchmarks: ${report.startedAt} · ${report.seconds.toFixed(0)} s · node ${report.machine.node} · ${report.machine.cpus} × ${report.machine.cpuModel}`);
  out.push(`pinning: ${report.machine.pinning}`);
  out.push(`load average: ${loadText(report.machine)}`);
  for (const c of report.comparisons) {
    out.push('');
    out.push(`${c.id}. ${c.title}${c.status === 'measured' ? '' : ` — ${c.status.toUpperCase()}${c.reason ? `: ${c.reason}` : ''}`}`);
    out.push(`   ${c.method}`);
    if (c.rows.length > 0) {
      const { header, body } = cells(c);
      for (const line of pad([header, ...body])) out.push(`   ${line}`);
    }
    if (c.ratios.length > 0) out.push(`   ratios: ${c.ratios.map((r) => `${r.label} ${formatRatio(r.value)}`).join(' · ')}`);
    for (const n of c.notes) out.push(`   note: ${n}`);
  }
  out.push('');
  out.push('Targets');
  const rows = [['', 'target', 'measured', 'bound', 'result'], ...report.targets.map((t) => [`(${t.comparison})`, t.description, measuredText(t), boundText(t), t.verdict])];
  for (const line of pad(rows, 2)) out.push(`   ${line}`);
  for (const t of report.targets.filter((x) => x.explanation)) out.push(`   ${t.verdict} ${t.description}: ${t.explanation}`);
  return out.join('\n') + '\n';
}

function mdEscape(text: string): string {
  return text.replace(/\|/g, '\\|');
}

function mdTable(header: string[], body: string[][], align: ('l' | 'r')[]): string[] {
  return [
    `| ${header.map(mdEscape).join(' | ')} |`,
    `|${align.map((a) => (a === 'r' ? '---:' : '---')).join('|')}|`,
    ...body.map((r) => `| ${r.map(mdEscape).join(' | ')} |`),
  ];
}

/** reports/bench/bench.md */
export function renderMarkdown(report: BenchReport): string {
  const out: string[] = [];
  out.push('# Benchmarks');
  out.push('');
  out.push(`Run ${report.startedAt} to ${report.finishedAt} (${report.seconds.toFixed(0)} s) on node ${report.machine.node}, ${report.machine.platform}, ${report.machine.cpus} × ${report.machine.cpuModel}.`);
  out.push(`Pinning: ${report.machine.pinning}.`);
  out.push(`Load average: ${loadText(report.machine)}.`);
  out.push('');
  out.push('## Targets');
  out.push('');
  out.push(...mdTable(['#', 'target', 'measured', 'bound', 'result'],
    report.targets.map((t) => [String(t.comparison), t.description, measuredText(t), boundText(t), `**${t.verdict}**`]), ['r', 'l', 'r', 'r', 'l']));
  const explained = report.targets.filter((t) => t.explanation);
  if (explained.length > 0) {
    out.push('');
    for (const t of explained) out.push(`- **${t.verdict}** ${t.description}: ${t.explanation}`);
  }
  for (const c of report.comparisons) {
    out.push('');
    out.push(`## ${c.id}. ${c.title}`);
    out.push('');
    if (c.status !== 'measured') out.push(`**${c.status.toUpperCase()}**${c.reason ? `: ${c.reason}` : ''}`, '');
    out.push(`_${c.method}_`);
    if (c.rows.length > 0) {
      const { header, body } = cells(c);
      out.push('');
      out.push(...mdTable(header, body, header.map((_, i) => (i === 0 ? 'l' : 'r'))));
    }
    if (c.ratios.length > 0) out.push('', `Ratios: ${c.ratios.map((r) => `${r.label} **${formatRatio(r.value)}**`).join(', ')}.`);
    if (c.notes.length > 0) out.push('', ...c.notes.map((n) => `- ${n}`));
  }
  return out.join('\n') + '\n';
}

/** What one comparison hands back to the run: its table and the targets it judges. */
export interface Outcome {
  comparison: Comparison;
  targets: Target[];
}
