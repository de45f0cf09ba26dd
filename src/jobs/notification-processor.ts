import { processDueNotifications, type ProcessDeps } from '../modules/notifications/process-notifications.ts';
import { activeSpanLink } from '../lib/tracing.ts';
import { type Job, runTick } from './job-runner.ts';

/**
 * Processes stored provider notifications. The job runs every second; `kick()` runs a batch at
 * once when the callback route stored a new notification, so the embedded default reacts within
 * milliseconds. One batch at a time per process; several processes share the work through the
 * claim's SKIP LOCKED lease.
 */
export function notificationProcessor(deps: ProcessDeps): { job: Job; kick(): void } {
  const batchSize = 50;
  let running: Promise<number> | undefined;
  const runOnce = (): Promise<number> => {
    running ??= processDueNotifications(deps, batchSize).finally(() => {
      running = undefined;
    });
    return running;
  };
  const job: Job = { name: 'notification-processor', intervalMs: 1_000, batchSize, run: runOnce };
  return {
    job,
    kick() {
      // A run of the job, traced as one (its own trace, linked to the callback request that kicked it).
      void runTick(job, deps.log, { links: activeSpanLink() });
    },
  };
}
