/** Latency percentiles over every recorded sample (nearest rank); samples are kept whole, not bucketed. */
export interface LatencySummary {
  samples: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
}

export function summarize(samplesMs: Float64Array): LatencySummary {
  const sorted = Float64Array.from(samplesMs).sort();
  const n = sorted.length;
  const at = (p: number) => (n === 0 ? Number.NaN : (sorted[Math.min(n - 1, Math.max(0, Math.ceil(p * n) - 1))] as number));
  let sum = 0;
  for (const v of sorted) sum += v;
  return { samples: n, p50Ms: at(0.5), p90Ms: at(0.9), p99Ms: at(0.99), maxMs: n ? (sorted[n - 1] as number) : Number.NaN, meanMs: n ? sum / n : Number.NaN };
}
