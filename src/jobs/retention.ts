import type { Store } from '../db/store.ts';
import type { Clock } from '../lib/clock.ts';
import { deleteExpiredKeys } from '../modules/idempotency/idempotency-repo.ts';
import type { Job } from './job-runner.ts';

/** Deletes finished idempotency keys past their expiry (at least 24 h), in bounded batches. */
export function idempotencyRetentionJob(deps: { store: Store; clock: Clock }): Job {
  const batchSize = 500;
  return {
    name: 'idempotency-retention',
    intervalMs: 10 * 60_000,
    batchSize,
    run: () => deleteExpiredKeys(deps.store, deps.clock.now(), batchSize),
  };
}
