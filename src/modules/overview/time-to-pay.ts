/**
 * Time from a payment's creation to its payment, counted in fixed buckets (docs/overview.md). The
 * bounds are the lower edges of buckets 1..n (seconds); bucket 0 is everything under the first.
 * A histogram of exact integer counts over fixed buckets adds across days and rows, so the day
 * aggregates can be summed for any window; a percentile is then the bucket that holds its rank.
 * Changing the bounds needs a rebuild of the aggregates (docs/overview.md, "first run").
 */
export const TTP_BUCKET_BOUNDS_S: readonly number[] = [
  10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 14_400, 28_800, 86_400, 172_800, 604_800,
];
export const TTP_BUCKETS = TTP_BUCKET_BOUNDS_S.length + 1;

/** A bucket's range in seconds: [fromS, toS), toS undefined for the last (open) one. */
export interface TtpBucket {
  index: number;
  fromS: number;
  toS: number | undefined;
}

export function ttpBucket(index: number): TtpBucket {
  if (!Number.isInteger(index) || index < 0 || index >= TTP_BUCKETS) throw new Error(`no time-to-pay bucket ${index}`);
  return { index, fromS: index === 0 ? 0 : (TTP_BUCKET_BOUNDS_S[index - 1] as number), toS: TTP_BUCKET_BOUNDS_S[index] };
}

/** The bucket of a duration (the same as SQL's width_bucket(seconds, bounds) the refresh uses). */
export function ttpBucketOf(seconds: number): number {
  let index = 0;
  while (index < TTP_BUCKET_BOUNDS_S.length && seconds >= (TTP_BUCKET_BOUNDS_S[index] as number)) index += 1;
  return index;
}

/** Adds histograms bucket by bucket (a missing or short one counts zeros). */
export function addHistograms(into: number[], add: readonly number[]): number[] {
  for (let i = 0; i < TTP_BUCKETS; i += 1) into[i] = (into[i] ?? 0) + (add[i] ?? 0);
  return into;
}

export const emptyHistogram = (): number[] => new Array<number>(TTP_BUCKETS).fill(0);

/**
 * The bucket holding the q-quantile (0 < q ≤ 1): the one with the ⌈n·q⌉-th smallest value, by
 * integer arithmetic on the counts (q is given in per-cent so that nothing is a float).
 * Undefined when the histogram is empty.
 */
export function percentileBucket(histogram: readonly number[], percent: number): TtpBucket | undefined {
  if (!Number.isInteger(percent) || percent <= 0 || percent > 100) throw new Error(`percent ${percent} is not 1..100`);
  const total = histogram.reduce((sum, c) => sum + c, 0);
  if (total === 0) return undefined;
  const rank = Math.ceil((total * percent) / 100);
  let seen = 0;
  for (let i = 0; i < histogram.length; i += 1) {
    seen += histogram[i] ?? 0;
    if (seen >= rank) return ttpBucket(i);
  }
  return ttpBucket(histogram.length - 1);
}

/** "45 s", "2 min", "1 h", "2 d": a bound for people. */
export function durationText(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${seconds / 60} min`;
  if (seconds < 86_400) return `${seconds / 3600} h`;
  return `${seconds / 86_400} d`;
}

/** "under 10 s", "between 1 min and 2 min", "7 d or more". */
export function bucketText(bucket: TtpBucket): string {
  if (bucket.index === 0) return `under ${durationText(bucket.toS as number)}`;
  if (bucket.toS === undefined) return `${durationText(bucket.fromS)} or more`;
  return `between ${durationText(bucket.fromS)} and ${durationText(bucket.toS)}`;
}
