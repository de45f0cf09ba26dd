import type { Config } from '../config.ts';
import { startJobs } from '../jobs/job-runner.ts';
import { webhookJobs } from '../jobs/webhook-jobs.ts';
import { systemClock } from '../lib/clock.ts';
import { tuneHeapForRequestService } from '../lib/heap-tuning.ts';
import type { Logger } from '../lib/logger.ts';
import { startTracing } from '../lib/tracing.ts';
import type { Runtime } from '../runtime.ts';

/**
 * `npx tributary worker`: a process that only dispatches webhooks (and runs their retention).
 * Run any number of them against one PostgreSQL database: they share the work through
 * SKIP LOCKED claims, and a worker that dies loses nothing (its leases expire and another
 * worker sends what it had in flight). SIGTERM/SIGINT finish the sends in flight, then exit.
 */
export async function runWorker(config: Config, runtime: Runtime, log: Logger): Promise<void> {
  tuneHeapForRequestService();
  // With OTEL_EXPORTER_OTLP_ENDPOINT, each delivery attempt is a trace (docs/tracing.md); the
  // store was opened before, so its transactions are not traced here.
  const tracing = await startTracing({ endpoint: config.otlpEndpoint, log });
  const webhooks = webhookJobs(config, { store: runtime.store, secret: runtime.secret, clock: systemClock, log });
  const jobs = startJobs([webhooks.retention], log);
  webhooks.dispatcher.start();
  process.stdout.write(`${JSON.stringify({ worker: 'started', pid: process.pid })}\n`);
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      log.info({ signal }, 'worker stopping: finishing the sends in flight');
      resolve();
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  await webhooks.close();
  await jobs.stop();
  await tracing?.shutdown();
}
