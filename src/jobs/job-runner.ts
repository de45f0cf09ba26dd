import type { Logger } from '../lib/logger.ts';

/**
 * Runs named jobs on an interval, one run of a job at a time, each run bounded by the job itself
 * (jobs take a batch limit). stop() waits for running jobs to finish so shutdown leaves no
 * half-done batch behind.
 */
export interface Job {
  name: string;
  intervalMs: number;
  /** Returns how many items it handled; a full batch runs again at once (bounded by maxBurst). */
  run(): Promise<number>;
  batchSize: number;
}

const MAX_BURST = 10;

export function startJobs(jobs: readonly Job[], log: Logger): { stop(): Promise<void> } {
  let stopping = false;
  const timers: NodeJS.Timeout[] = [];
  const running = new Set<Promise<void>>();

  for (const job of jobs) {
    let busy = false;
    const tick = () => {
      if (busy || stopping) return;
      busy = true;
      const p = (async () => {
        try {
          for (let burst = 0; burst < MAX_BURST && !stopping; burst += 1) {
            const handled = await job.run();
            if (handled < job.batchSize) break;
          }
        } catch (error) {
          log.warn({ err: error, job: job.name }, 'job run failed; will retry on the next tick');
        } finally {
          busy = false;
        }
      })();
      running.add(p);
      void p.finally(() => running.delete(p));
    };
    const timer = setInterval(tick, job.intervalMs);
    timer.unref();
    timers.push(timer);
  }

  return {
    async stop() {
      stopping = true;
      for (const t of timers) clearInterval(t);
      await Promise.allSettled([...running]);
    },
  };
}
