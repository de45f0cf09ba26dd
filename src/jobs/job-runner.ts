import type { Logger } from '../lib/logger.ts';
import { ATTR, type Link, markError, withSpan } from '../lib/tracing.ts';

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
          await runTick(job, log, { stopping: () => stopping });
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

/**
 * One tick: the job's runs until a batch is not full (at most MAX_BURST); a failure is logged and
 * the next tick tries again. With tracing on, a tick is one trace (`job <name>`, with the number of
 * items handled); a tick that handled nothing, did not fail and called out nowhere is dropped
 * before export (lib/tracing.ts, DropIdleJobTraces), or the notification processor alone would
 * make a trace a second.
 */
export function runTick(
  job: Pick<Job, 'name' | 'run' | 'batchSize'>,
  log: Logger,
  options: { stopping?: () => boolean; links?: Link[] } = {},
): Promise<void> {
  const stopping = options.stopping ?? (() => false);
  const links = options.links ?? [];
  const spanOptions = { root: true, attributes: { [ATTR.jobName]: job.name }, ...(links.length > 0 ? { links } : {}) };
  return withSpan(`job ${job.name}`, spanOptions, async (span) => {
    let total = 0;
    try {
      for (let burst = 0; burst < MAX_BURST && !stopping(); burst += 1) {
        const handled = await job.run();
        total += handled;
        if (handled < job.batchSize) break;
      }
    } catch (error) {
      if (span !== undefined) markError(span, error);
      log.warn({ err: error, job: job.name }, 'job run failed; will retry on the next tick');
    } finally {
      span?.setAttribute(ATTR.jobHandled, total);
    }
  });
}
