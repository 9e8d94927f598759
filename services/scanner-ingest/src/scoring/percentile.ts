// The one percentile rule of the board: rank within a cross-section, mapped onto 1..99.

/**
 * Percentile ranks of `values` on the integer scale 1..99: the lowest value maps to 1, the highest
 * to 99, linearly by rank in between. Ties share their average rank. Non-finite values are not
 * ranked and get the middle, 50. A single finite value is 50 too.
 */
export function percentileRanks(values: readonly number[]): number[] {
  const idx: number[] = [];
  values.forEach((v, i) => {
    if (Number.isFinite(v)) idx.push(i);
  });
  const out = new Array<number>(values.length).fill(50);
  const n = idx.length;
  if (n < 2) return out;
  idx.sort((a, b) => values[a]! - values[b]!);
  for (let start = 0; start < n; ) {
    let end = start;
    while (end + 1 < n && values[idx[end + 1]!] === values[idx[start]!]) end++;
    const rank = (start + end) / 2;
    const pct = 1 + Math.round((98 * rank) / (n - 1));
    for (let k = start; k <= end; k++) out[idx[k]!] = pct;
    start = end + 1;
  }
  return out;
}

/** percentileRanks over the cross-section `members` (indices into `values`): index -> percentile. */
export function percentileRanksWithin(values: readonly number[], members: readonly number[]): Map<number, number> {
  const ranks = percentileRanks(members.map((i) => values[i] ?? Number.NaN));
  return new Map(members.map((i, k) => [i, ranks[k]!]));
}
