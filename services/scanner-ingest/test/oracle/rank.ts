// Percentile ranks, written afresh from docs/methodology.md ("Ranks, books and ties") (not the engine's percentile.ts):
// drop non-finite values (they read 50); sort ascending; equal values share their average 0-based
// rank; pct = 1 + Math.round(98 * rank / (n - 1)) over the n finite values; n < 2: everything 50.
//
// Ties for the comparison: a value within TIE_REL (relative) of another could sit on either side of
// it in the engine's arithmetic, so every rank between the lowest and highest position of its
// near-tie cluster is accepted (`accept`); `tied` marks such values so the test can count them.

/** Two raw values this close (relative) are treated as a tie whose order the oracle cannot fix. */
export const TIE_REL = 1e-12;

export type Pct = {
  /** The rank by the rule, exactly as the methodology states it. */
  value: number;
  /** Every percentile the engine may publish for this value (just `value` without near-ties). */
  accept: readonly number[];
  /** True when a near-tie widened `accept` beyond the rule's own answer. */
  tied: boolean;
};

const pctOf = (rank: number, n: number) => 1 + Math.round((98 * rank) / (n - 1));

export function nearlyEqual(a: number, b: number, rel = TIE_REL): boolean {
  return a === b || Math.abs(a - b) <= rel * Math.max(Math.abs(a), Math.abs(b));
}

/** Percentile ranks of `values` (1..99), in the input's order. */
export function percentileRanks(values: readonly number[]): Pct[] {
  const finite = values.map((v, i) => ({ v, i })).filter((x) => Number.isFinite(x.v));
  const out: Pct[] = values.map(() => ({ value: 50, accept: [50], tied: false }));
  const n = finite.length;
  if (n < 2) return out;
  finite.sort((a, b) => a.v - b.v);
  // Exact ties share their average rank (the rule).
  const rank = new Map<number, number>();
  for (let lo = 0; lo < n; ) {
    let hi = lo;
    while (hi + 1 < n && finite[hi + 1]!.v === finite[lo]!.v) hi++;
    for (let k = lo; k <= hi; k++) rank.set(finite[k]!.i, (lo + hi) / 2);
    lo = hi + 1;
  }
  // Near ties: the span of positions whose values are within TIE_REL, chained.
  for (let pos = 0; pos < n; pos++) {
    const { v, i } = finite[pos]!;
    let lo = pos;
    let hi = pos;
    while (lo > 0 && nearlyEqual(finite[lo - 1]!.v, finite[lo]!.v)) lo--;
    while (hi + 1 < n && nearlyEqual(finite[hi + 1]!.v, finite[hi]!.v)) hi++;
    const value = pctOf(rank.get(i)!, n);
    const exactTie = lo < pos || hi > pos ? finite.slice(lo, hi + 1).every((x) => x.v === v) : true;
    if (exactTie) {
      out[i] = { value, accept: [value], tied: false };
      continue;
    }
    const accept = new Set<number>([value]);
    for (let r = lo; r <= hi; r++) accept.add(pctOf(r, n));
    // An average rank over part of the cluster is possible too.
    for (let a = lo; a <= hi; a++) for (let b = a; b <= hi; b++) accept.add(pctOf((a + b) / 2, n));
    out[i] = { value, accept: [...accept].sort((x, y) => x - y), tied: true };
  }
  return out;
}
