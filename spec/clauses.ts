import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

// Loader for the clause catalogue transcribed from the API document.
// Checks and reports cite clauses by id, so they read the catalogue through
// here rather than each parsing the YAML themselves.

export type ClauseKind = 'rule' | 'transition' | 'limit' | 'error' | 'convention';

export type Clause = {
  id: string;
  section: string;
  title: string;
  summary: string;
  kind: ClauseKind;
  /** Why the clause reads as it does where the document is in tension with itself (decided explicitly). */
  note?: string;
  /** Present when no check against a platform can observe the clause, with one line of why. */
  untestable?: string;
  /**
   * Present when the clause is normative but can be observed only through
   * something the document does not show (an x-assumption): which one.
   * A --normative-only run leaves such a clause unproven, and says why.
   */
  observedThrough?: string;
};

const KINDS: ReadonlySet<string> = new Set<ClauseKind>(['rule', 'transition', 'limit', 'error', 'convention']);

// Resolved next to this module, not against process.cwd(), so the loader works
// from any working directory (vitest, tsx scripts, report generation).
const CATALOGUE_URL = new URL('./clauses.yaml', import.meta.url);

let cache: Clause[] | undefined;

function fail(what: string): never {
  throw new Error(`spec/clauses.yaml: ${what}`);
}

function toClause(raw: unknown, index: number): Clause {
  if (typeof raw !== 'object' || raw === null) fail(`clause #${index} is not a mapping`);
  const r = raw as Record<string, unknown>;
  const str = (key: string): string => {
    const v = r[key];
    if (typeof v !== 'string' || v.trim() === '') fail(`clause #${index} (${String(r.id)}) has no string "${key}"`);
    return v;
  };
  const kind = str('kind');
  if (!KINDS.has(kind)) fail(`clause ${String(r.id)} has unknown kind "${kind}"`);
  const note = typeof r.note === 'string' && r.note.trim() !== '' ? { note: r.note } : {};
  if (r.testable !== undefined && r.testable !== false) fail(`clause ${String(r.id)}: testable may only be false`);
  if (r.testable === false && (typeof r.untestable !== 'string' || r.untestable.trim() === '')) fail(`clause ${String(r.id)} is testable: false without an "untestable" line saying why`);
  const untestable = r.testable === false ? { untestable: r.untestable as string } : {};
  if (r.observed_through !== undefined && (typeof r.observed_through !== 'string' || r.observed_through.trim() === '')) fail(`clause ${String(r.id)}: observed_through must say through which assumption`);
  const observed = typeof r.observed_through === 'string' ? { observedThrough: r.observed_through } : {};
  return { id: str('id'), section: str('section'), title: str('title'), summary: str('summary'), kind: kind as ClauseKind, ...note, ...untestable, ...observed };
}

/** All clauses, in file order. Parsed once; callers must not mutate the result. */
export function loadClauses(): Clause[] {
  if (cache) return cache;
  const doc: unknown = parse(readFileSync(CATALOGUE_URL, 'utf8'));
  if (typeof doc !== 'object' || doc === null || !Array.isArray((doc as { clauses?: unknown }).clauses)) {
    fail('expected a mapping with a "clauses" list');
  }
  cache = (doc as { clauses: unknown[] }).clauses.map(toClause);
  return cache;
}

/** The set of clause ids, for checks that tag themselves with a clause. */
export function clauseIds(): Set<string> {
  return new Set(loadClauses().map((c) => c.id));
}
