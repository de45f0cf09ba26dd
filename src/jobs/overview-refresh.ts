import { type OverviewRefreshDeps, refreshOverview } from '../modules/overview/index.ts';
import type { Job } from './job-runner.ts';

export const OVERVIEW_REFRESH_INTERVAL_MS = 60_000;

/**
 * Folds what changed since the last run into the overview's day aggregates (docs/overview.md),
 * every minute. One process does it at a time (an advisory lock; the others skip the tick). A run
 * recounts the touched days, so it is not batched: its batch size is never reached and the runner
 * does not repeat it within a tick.
 */
export function overviewRefreshJob(deps: OverviewRefreshDeps): Job {
  return {
    name: 'overview-refresh',
    intervalMs: OVERVIEW_REFRESH_INTERVAL_MS,
    batchSize: Number.MAX_SAFE_INTEGER,
    run: async () => (await refreshOverview(deps)).daysRecomputed,
  };
}
