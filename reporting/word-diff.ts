/**
 * The difference between what the document says and what was received, word
 * by word (issue 27 item 5: a difference, not two texts side by side). A
 * failure's two sides are sentences about the same call
 * ("401 UNAUTHENTICATED for GET /me …" against "403 UNAUTHENTICATED for
 * GET /me …"), so marking the words that differ shows the breach at a glance.
 * Pure; no I/O.
 */

export interface DiffPart {
  /** `same` in both texts, `del` only in the documented one, `ins` only in the received one. */
  op: 'same' | 'del' | 'ins';
  text: string;
}

/** Above this many token pairs the texts are shown as replaced whole: a longest common subsequence would cost too much. */
const MAX_CELLS = 400_000;

/** Words, runs of white space and single punctuation marks, so `404,` differs from `403,` in the number only. */
function tokens(text: string): string[] {
  return text.match(/\s+|[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu) ?? [];
}

/**
 * `documented` turned into `received`: the parts in reading order, adjacent
 * parts of one kind joined. Joining the `same` and `del` parts gives
 * `documented` back, the `same` and `ins` parts `received`.
 */
export function wordDiff(documented: string, received: string): DiffPart[] {
  const a = tokens(documented);
  const b = tokens(received);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const parts: DiffPart[] = [];
  const push = (op: DiffPart['op'], text: string) => {
    if (text === '') return;
    const last = parts.at(-1);
    if (last && last.op === op) last.text += text;
    else parts.push({ op, text });
  };
  push('same', a.slice(0, start).join(''));
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  if ((midA.length + 1) * (midB.length + 1) > MAX_CELLS) {
    push('del', midA.join(''));
    push('ins', midB.join(''));
  } else {
    for (const part of lcsParts(midA, midB)) push(part.op, part.text);
  }
  push('same', a.slice(endA).join(''));
  return coalesced(parts);
}

/**
 * Changes separated only by white space or a mark read as one change
 * (`[-404 NOT_FOUND-]{+403 FORBIDDEN+}`, not `[-404-]{+403+} [-NOT_FOUND-]{+FORBIDDEN+}`):
 * such a part goes into both sides, and each run of changes becomes one
 * deletion followed by one insertion.
 */
function coalesced(parts: DiffPart[]): DiffPart[] {
  const out: DiffPart[] = [];
  let del = '';
  let ins = '';
  const flush = () => {
    if (del !== '') out.push({ op: 'del', text: del });
    if (ins !== '') out.push({ op: 'ins', text: ins });
    del = '';
    ins = '';
  };
  parts.forEach((p, i) => {
    const between = p.op === 'same' && i > 0 && i < parts.length - 1 && !/[\p{L}\p{N}]/u.test(p.text);
    if (p.op === 'del') del += p.text;
    else if (p.op === 'ins') ins += p.text;
    else if (between) {
      del += p.text;
      ins += p.text;
    } else {
      flush();
      out.push(p);
    }
  });
  flush();
  return out;
}

/** The edit script of a longest common subsequence; deletions before insertions where both apply. */
function lcsParts(a: string[], b: string[]): DiffPart[] {
  const width = b.length + 1;
  // lengths[i * width + j]: the LCS length of a[i..] and b[j..].
  const lengths = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lengths[i * width + j] = a[i] === b[j]
        ? (lengths[(i + 1) * width + j + 1] ?? 0) + 1
        : Math.max(lengths[(i + 1) * width + j] ?? 0, lengths[i * width + j + 1] ?? 0);
    }
  }
  const out: DiffPart[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push({ op: 'same', text: a[i] as string });
      i++;
      j++;
    } else if (j >= b.length || (i < a.length && (lengths[(i + 1) * width + j] ?? 0) >= (lengths[i * width + j + 1] ?? 0))) {
      out.push({ op: 'del', text: a[i] as string });
      i++;
    } else {
      out.push({ op: 'ins', text: b[j] as string });
      j++;
    }
  }
  return out;
}

/** The diff as one line in git's `--word-diff=plain` style: `[-404 NOT_FOUND-]{+403 FORBIDDEN+} for GET …`. */
export function wordDiffText(parts: readonly DiffPart[]): string {
  return parts.map((p) => (p.op === 'same' ? p.text : p.op === 'del' ? `[-${p.text}-]` : `{+${p.text}+}`)).join('');
}

/**
 * How much of the two texts the diff finds common: letters and digits in
 * `same` parts over those of the longer text (0 to 1). Two sentences that
 * share a word or two by chance (under about 0.15) are better shown whole:
 * marking nearly everything says nothing two lines would not.
 */
export function likeness(parts: readonly DiffPart[]): number {
  const count = (t: string) => (t.match(/[\p{L}\p{N}]/gu) ?? []).length;
  const same = parts.filter((p) => p.op === 'same').reduce((n, p) => n + count(p.text), 0);
  const del = parts.filter((p) => p.op === 'del').reduce((n, p) => n + count(p.text), 0);
  const ins = parts.filter((p) => p.op === 'ins').reduce((n, p) => n + count(p.text), 0);
  const longer = same + Math.max(del, ins);
  return longer === 0 ? 1 : same / longer;
}

/** Below this likeness a diff is shown as two whole texts. */
export const LIKENESS_TO_MARK = 0.15;
