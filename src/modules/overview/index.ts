/** The overview's day aggregates and the page's query over them (docs/overview.md). */
export {
  OVERVIEW_CHUNK_ROWS,
  OVERVIEW_MIN_PAUSE_MS,
  OVERVIEW_OVERLAP_MS,
  OVERVIEW_REFRESH_LOCK,
  type OverviewRefreshDeps,
  refreshOverview,
  type RefreshOutcome,
} from './overview-refresh.ts';
export {
  type CurrencyTotals,
  type DayAmount,
  OVERVIEW_DAYS,
  type Overview,
  readOverview,
  type SuccessRate,
  windowDays,
} from './overview-query.ts';
export {
  addHistograms,
  bucketText,
  durationText,
  emptyHistogram,
  percentileBucket,
  TTP_BUCKET_BOUNDS_S,
  TTP_BUCKETS,
  ttpBucket,
  ttpBucketOf,
  type TtpBucket,
} from './time-to-pay.ts';
