import { type OverviewRefreshDeps, refreshOverview } from '../modules/overview/index.ts';
import type { Job } from './job-runner.ts';
import { quietUntil } from './quiet-store.ts';

export const OVERVIEW_REFRESH_INTERVAL_MS = 60_000;
/** On the embedded store a run waits this long at most for a quiet moment (decision 0034). */
export const OVERVIEW_MAX_QUIET_WAIT_MS = 2 * 60_000;

/**
 * Folds what changed since the last run into the overview's day aggregates (docs/overview.md),
 * every minute. One process does it at a time (an advisory lock; the others skip the tick). A run
 * recounts the touched days, so it is not batched: its batch size is never reached and the runner
 * does not repeat it within a tick.
 *
 * On the embedded store a run first waits for a quiet moment, two minutes at most (decision 0034):
 * recounting today holds PGlite's one thread for the day's payments (~250 ms for ~5,000 of them on
 * the sixteenth session's machine, every request waiting), and the overview can be a little late.
 */
export function overviewRefreshJob(deps: OverviewRefreshDeps & { maxQuietWaitMs?: number }): Job {
  return {
    name: 'overview-refresh',
    intervalMs: OVERVIEW_REFRESH_INTERVAL_MS,
    batchSize: Number.MAX_SAFE_INTEGER,
    run: async () => {
      await quietUntil(deps.store, performance.now() + (deps.maxQuietWaitMs ?? OVERVIEW_MAX_QUIET_WAIT_MS));
      return (await refreshOverview(deps)).daysRecomputed;
    },
  };
}
