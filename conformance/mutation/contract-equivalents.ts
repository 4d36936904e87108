/**
 * The contract mutants no rule of the document can see (issue 40 item 2),
 * recorded in contract-equivalents.yaml: each by its exact mutant id (the
 * pointer of its keyword and its step, as contract-mutants.ts names it) with
 * a one-line reason citing the § clause that leaves it unobservable.
 *
 * A recorded mutant counts as equivalent only while a run finds it
 * surviving: killed, it is killed (the entry is wrong and said so); not
 * reached, it stays not reached (unreachability is not equivalence, as for
 * Stryker's mutants, summary.ts). An entry naming no mutant of the document
 * is an error: the document changed, look again.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { ContractResult } from './contract-mutation.ts';

export interface ContractEquivalent {
  id: string;
  reason: string;
}

const FILE = new URL('./contract-equivalents.yaml', import.meta.url);

/** Reads a list of entries; one without an id or a reason, with a reason of more than one line or citing no §, is refused. */
export function parseContractEquivalents(list: unknown, where: string): ContractEquivalent[] {
  if (list === null || list === undefined) return [];
  if (!Array.isArray(list)) throw new Error(`${where}: a list of contract mutants recorded equivalent`);
  const seen = new Set<string>();
  return list.map((e: Record<string, unknown>, i) => {
    for (const k of ['id', 'reason'] as const) {
      if (typeof e?.[k] !== 'string' || (e[k] as string).trim() === '') throw new Error(`${where}: entry ${i + 1} needs ${k} (a string)`);
    }
    const { id, reason } = e as { id: string; reason: string };
    if (reason.includes('\n')) throw new Error(`${where}: entry ${i + 1} (${id}): the reason is one line`);
    if (!reason.includes('§')) throw new Error(`${where}: entry ${i + 1} (${id}): the reason cites the § clause that leaves the mutant unobservable`);
    if (seen.has(id)) throw new Error(`${where}: entry ${i + 1}: ${id} is recorded twice`);
    seen.add(id);
    return { id, reason };
  });
}

/** conformance/mutation/contract-equivalents.yaml. */
export function readContractEquivalents(): ContractEquivalent[] {
  return parseContractEquivalents(parse(readFileSync(FILE, 'utf8')), 'conformance/mutation/contract-equivalents.yaml');
}

export type JudgedContractResult = Omit<ContractResult, 'status'> & { status: ContractResult['status'] | 'Equivalent'; equivalentReason?: string };

/**
 * The results with each survivor an entry names judged equivalent, and what is wrong with the entries: one naming no
 * mutant of the document (`ids`: every mutant id there), one whose mutant a check killed or no check reached.
 */
export function judgeContract(results: ContractResult[], entries: ContractEquivalent[], ids: readonly string[]): { results: JudgedContractResult[]; errors: string[] } {
  const byId = new Map(entries.map((e) => [e.id, e]));
  const errors = entries.filter((e) => !ids.includes(e.id)).map((e) => `${e.id}: names no mutant of spec/openapi.yaml (the document changed: look again)`);
  const judged = results.map((r): JudgedContractResult => {
    const entry = byId.get(r.id);
    if (!entry) return r;
    if (r.status === 'Killed') errors.push(`${r.id}: recorded equivalent, but ${r.killedBy} killed it: remove the entry`);
    if (r.status === 'NoCoverage') errors.push(`${r.id}: recorded equivalent, but no check sends its operation: not reached is not equivalent (reach it)`);
    return r.status === 'Survived' ? { ...r, status: 'Equivalent', equivalentReason: entry.reason } : r;
  });
  return { results: judged, errors };
}
