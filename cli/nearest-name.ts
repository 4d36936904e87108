/**
 * The known name a mistyped one most likely meant, for "did you mean …?"
 * in the errors of every command line and config file. Names are compared
 * without case, dashes or underscores first (`apikey`, `api-key` → `apiKey`),
 * then by edit distance with a transposition counting as one edit (`--targt`,
 * `--taregt` → `--target`), the way git and npm suggest commands.
 */

/** The nearest of `known` to `given`, or undefined when none is near enough to be a plausible typo. */
export function nearestName(given: string, known: readonly string[]): string | undefined {
  const g = fold(given);
  if (g === '') return undefined;
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(g, fold(name));
    if (best === undefined || distance < best.distance) best = { name, distance };
  }
  // A third of the name may be wrong (at least one edit, at most three): "allowWrite" is near, "port" for "label" is not.
  if (best === undefined || best.distance > Math.min(3, Math.max(1, Math.floor(g.length / 3)))) return undefined;
  return best.name;
}

/** `given`, then " (did you mean NAME?)" when a known name is near. */
export function didYouMean(given: string, known: readonly string[], show: (name: string) => string = (n) => n): string {
  const near = nearestName(given, known);
  return near === undefined || near === given ? '' : ` (did you mean ${show(near)}?)`;
}

function fold(name: string): string {
  return name.replace(/^-+/, '').replace(/[-_]/g, '').toLowerCase();
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent transpositions. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}
