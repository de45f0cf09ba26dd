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

/**
 * Starts the jobs out of step: job i of n first ticks after (i + 1) / (n + 1) of its interval, then
 * every interval. Started together, jobs whose intervals divide a minute (5, 10, 15, 60 s) would
 * all tick at the same instant every minute, and on the embedded store (one database thread) every
 * request would wait for all of them at once (docs/benchmarks.md, seventeenth session).
 */
export function startJobs(jobs: readonly Job[], log: Logger): { stop(): Promise<void> } {
  let stopping = false;
  const timers: NodeJS.Timeout[] = [];
  const running = new Set<Promise<void>>();

  for (const [index, job] of jobs.entries()) {
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
    const first = setTimeout(
      () => {
        tick();
        const timer = setInterval(tick, job.intervalMs);
        timer.unref();
        timers.push(timer);
      },
      firstTickDelay(job.intervalMs, index, jobs.length),
    );
    first.unref();
    timers.push(first);
  }

  return {
    async stop() {
      stopping = true;
      for (const t of timers) clearTimeout(t);
      await Promise.allSettled([...running]);
    },
  };
}

/** When job `index` of `count` first ticks: its share of its own interval, so no two start in step. */
export function firstTickDelay(intervalMs: number, index: number, count: number): number {
  return Math.round((intervalMs * (index + 1)) / (count + 1));
}

/**
 * One tick: the job's runs until a batch is not full (at most MAX_BURST); a failure is logged and
 * the next tick tries again. With tracing on, a tick is one trace (`job <name>`, with the number of
 * items handled); a tick that handled nothing, did not fail and called out nowhere is dropped
 * before export (lib/tracing.ts, DropIdleJobTraces), or the notification processor alone would
 * make a trace a second. At LOG_LEVEL=debug each tick is a line (`job tick`: job, handled, took_ms).
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
    const started = performance.now();
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
      log.debug({ job: job.name, handled: total, took_ms: Math.round(performance.now() - started) }, 'job tick');
    }
  });
}
