import { eraseDuePayerData, type PayerDataDeps } from '../modules/payer-data/index.ts';
import type { Job } from './job-runner.ts';

/**
 * Erases the payer data of payments whose final state is older than PAYER_DATA_RETENTION_DAYS
 * (docs/payer-data.md), in bounded batches: each unit in its own transaction, so a crash loses at
 * most the unit in flight, which the next run does again. Not started when the variable is unset.
 */
export function payerDataRetentionJob(deps: PayerDataDeps & { retentionDays: number }): Job {
  const batchSize = 100;
  return {
    name: 'payer-data-retention',
    intervalMs: 10 * 60_000,
    batchSize,
    run: () => eraseDuePayerData(deps, batchSize),
  };
}
