/** Small statistics helpers for the benchmark harness. */

/** The q-quantile (0..1) of already sorted values, nearest-rank. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] as number;
}

/** Latencies are recorded into a bounded array: past the cap, reservoir sampling keeps it fair. */
export class LatencyRecorder {
  private readonly values: number[] = [];
  private seen = 0;
  constructor(private readonly cap = 200_000) {}
  record(ms: number): void {
    this.seen += 1;
    if (this.values.length < this.cap) this.values.push(ms);
    else {
      const slot = Math.floor(Math.random() * this.seen);
      if (slot < this.cap) this.values[slot] = ms;
    }
  }
  summary(): { p50: number; p99: number; count: number } {
    const sorted = [...this.values].sort((a, b) => a - b);
    return { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), count: this.seen };
  }
}

/** The counts and percentiles of a load window. */
export function windowSummary(
  latencies: LatencyRecorder,
  seconds: number,
): { requests: number; seconds: number; rps: number; p50Ms: number; p99Ms: number } {
  const summary = latencies.summary();
  return { requests: summary.count, seconds, rps: summary.count / seconds, p50Ms: summary.p50, p99Ms: summary.p99 };
}

export const round = (value: number, digits = 2) =>
  Number.isFinite(value) ? Math.round(value * 10 ** digits) / 10 ** digits : null;
