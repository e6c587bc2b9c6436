/** "Did you mean": the nearest candidate by edit distance, when it is close enough to be a typo. */

function distance(a: string, b: string): number {
  // Optimal string alignment (a swap of two neighbours counts once: --strcit → --strict).
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

/** The closest candidate within max(1, a third of the word's length) edits, or a unique prefix match. */
export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  const limit = Math.max(1, Math.floor(word.length / 3));
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const dd = distance(word, c);
    if (dd < bestD) [best, bestD] = [c, dd];
  }
  if (best !== undefined && bestD <= limit) return best;
  const prefixed = candidates.filter((c) => word.length >= 3 && c.startsWith(word));
  return prefixed.length === 1 ? prefixed[0] : undefined;
}
