/**
 * "Did you mean" for mistyped names (config keys, CLI words): the candidate closest to `word` by optimal string
 * alignment distance (Levenshtein plus adjacent transposition, so `same_usr` → `same_user`, `aproval` → `approval`,
 * `sefl` → `self`), when it is at most `max(1, floor(word.length / 3))` edits away; undefined otherwise or on a
 * tie. Case-insensitive. Pure; O(|word| · Σ|candidate|).
 */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const w = word.toLowerCase();
  const limit = Math.max(1, Math.floor(w.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  let tie = false;
  for (const candidate of candidates) {
    const d = editDistance(w, candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance, tie] = [candidate, d, false];
    else if (d === bestDistance && candidate !== best) tie = true;
  }
  return best !== undefined && bestDistance <= limit && !tie ? best : undefined;
}

/** Optimal string alignment distance between `a` and `b` (insertions, deletions, substitutions, adjacent swaps). */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}
