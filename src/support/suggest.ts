/** Did-you-mean for unknown names in user input. */

/** Edit distance (insertions, deletions, substitutions, adjacent transpositions). */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/**
 * The candidate `word` is most probably a typo of, or undefined when none is close: the smallest
 * case-insensitive edit distance within a third of the word's length (at least 1); failing that, a candidate that
 * contains the word or is contained in it (`prompt` -> `coder_prompt`), the closest first (unless `affix` is
 * false: `description` is not a typo of `on`).
 */
export function suggest(word: string, candidates: readonly string[], options: { affix?: boolean } = {}): string | undefined {
  const w = word.toLowerCase();
  // names that are a user's own (an entry's settings) often contain a short contract key: only typos count there
  const affixes = options.affix ?? true;
  const limit = Math.max(1, Math.floor(w.length / 3));
  let best: { c: string; score: number } | undefined;
  for (const c of candidates) {
    const lc = c.toLowerCase();
    const d = distance(w, lc);
    const affix = affixes && w.length >= 4 && (lc.includes(w) || w.includes(lc));
    if (d > limit && !affix) continue;
    const score = d <= limit ? d : 1000 + d;
    if (!best || score < best.score) best = { c, score };
  }
  return best?.c;
}
